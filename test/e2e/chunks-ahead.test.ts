/**
 * `topic create` through the built binary with a chunk thread started while the files are
 * fetched (src/lib/chunking/ahead.ts): the index is the one a create without threads makes, and
 * the process ends once it has answered, after a failed fetch too. A thread left running would
 * keep Node's event loop alive, and the command would never exit.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FIXTURES } from '../chunking/fixtures.js';
import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { indexBytes } from '../helpers/index-bytes.js';
import { freshRoot } from '../helpers/roots.js';

describe('topic create with its files cut while they are fetched', () => {
  const tmp = tmpDir('tkoma-ahead-e2e-');
  let repo: ReturnType<typeof makeRepo>;

  beforeAll(() => {
    const files: Record<string, string> = {};
    for (const dir of ['a', 'b', 'c']) {
      for (const fx of FIXTURES) files[`${dir}/${fx.path}`] = fx.code;
      files[`${dir}/README.md`] = `# ${dir}\n\nSome prose about the ${dir} package.\n`;
    }
    repo = makeRepo(join(tmp.path, 'upstream'), files);
  });
  afterAll(() => tmp.cleanup());

  const create = (root: string, threads: string) =>
    cli(['topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', 'Corpus', '--git', repo.url], { root, env: { TKOMA_REF_CHUNK_THREADS: threads } });

  it('indexes as a create on one thread does, and exits', async () => {
    const one = join(tmp.path, 'kb-one');
    const two = join(tmp.path, 'kb-two');
    await freshRoot(one);
    await freshRoot(two);
    const inline = await create(one, '1');
    const threaded = await create(two, '2');
    expect(threaded.code).toBe(0);
    expect(threaded.json.chunk_count).toBeGreaterThan(FIXTURES.length * 3);
    expect(threaded.json.chunk_count).toBe(inline.json.chunk_count);
    expect(indexBytes(two, threaded.json.topic_id)).toEqual(indexBytes(one, inline.json.topic_id));
  });

  it('exits when the fetch fails after the thread started', async () => {
    const root = join(tmp.path, 'kb-capped');
    await freshRoot(root);
    // Every file over the cap: the tree is read (the thread starts), then nothing is kept.
    appendFileSync(join(root, 'tkoma-ref.toml'), '\n[limits]\nmax_file_bytes = 10\n');
    git(root, 'commit', '-q', '-m', 'tiny files only', '--', 'tkoma-ref.toml');
    const r = await create(root, '2');
    expect(r.code).not.toBe(0);
    expect(r.json.error.code).toBe('SOURCE_UNREACHABLE');
    expect(r.json.error.message).toMatch(/every match was skipped/);
  });
});
