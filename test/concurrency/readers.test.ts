/**
 * Readers never see partial state: while CLI processes refresh and update a topic again and
 * again, a reader in this process keeps reading topic.md, the manifest and a changing file. Every
 * read is whole: topic.md parses, every manifest line is JSON, the file is exactly one of the
 * versions upstream ever had.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseTopicMd } from '../../src/lib/store/frontmatter.js';
import { makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, expectConsistent, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

/** Big enough that a non-atomic write would be visible half-done. */
const version = (k: number): string => `# Target v${k}\n\n` + `Line ${k} of a long reference page with words.\n`.repeat(4000);

describe('readers during refresh and update', () => {
  const tmp = tmpDir('tkoma-readers-');
  const root = join(tmp.path, 'kb');
  let upstream: ReturnType<typeof makeRepo>;

  beforeAll(async () => {
    upstream = makeRepo(join(tmp.path, 'up'), { 'README.md': version(0), 'docs/guide.md': '# Guide\n' });
    await freshRoot(root);
    await mustRun(createArgs('target', upstream.url), root);
  });
  afterAll(() => tmp.cleanup());

  it('every read is a whole old or whole new state', async () => {
    const dir = join(root, 'references', 'target');
    const known = new Set([version(0)]);
    const stats = { reads: 0, absent: 0, partial: [] as string[] };
    let writing = true;

    const reader = (async () => {
      while (writing) {
        const [topic, manifest, readme] = await Promise.all(
          ['topic.md', '.tkoma-files.jsonl', 'README.md'].map((f) => readFile(join(dir, f), 'utf8').catch(() => null)),
        );
        stats.reads++;
        if (topic === null || manifest === null || readme === null) {
          stats.absent++; // the instant between the two renames of a swap: absent, never half
          continue;
        }
        try {
          parseTopicMd(topic, 'topic.md');
        } catch (err) {
          stats.partial.push(`topic.md: ${(err as Error).message}`);
        }
        for (const line of manifest.split('\n').filter(Boolean)) {
          try {
            JSON.parse(line);
          } catch {
            stats.partial.push(`manifest line: ${line.slice(0, 40)}`);
          }
        }
        if (!known.has(readme)) stats.partial.push(`README.md: ${readme.length} bytes`);
      }
    })();

    for (let k = 1; k <= 4; k++) {
      known.add(version(k));
      upstream.commit({ 'README.md': version(k), [`docs/v${k}.md`]: `# v${k}\n` }, k > 1 ? [`docs/v${k - 1}.md`] : []);
      await mustRun(['refresh', 'target', '--json'], root);
      await mustRun(['topic', 'update', 'target', '--title', `Target ${k}`, '--json'], root);
    }
    writing = false;
    await reader;

    expect(stats.partial).toEqual([]);
    expect(stats.reads).toBeGreaterThan(20);
    expect(stats.absent).toBeLessThan(stats.reads);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(version(4));
    await expectConsistent(root, ['target']);
  });
});
