/**
 * Damaged state through the CLI (issue 5, item 5): truncated or garbage index files, a corrupted
 * embedding cache, a missing `.tkoma/`, hand-broken topic.md, a garbage journal or lock owner.
 * Each is detected; the index is rebuilt from the files and search answers as before; a broken
 * topic.md is reported with file and line while the other topics keep working.
 * Vectors come from a local server speaking the Ollama protocol (test/embedding/helpers).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type FakeServer, startFakeServer } from '../helpers/fake-embed-servers.js';
import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, createArgs, expectConsistent, leftovers, start } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('damaged state is detected and repaired', () => {
  const tmp = tmpDir('tkoma-damaged-');
  const root = join(tmp.path, 'kb');
  let server: FakeServer;
  let env: Record<string, string>;
  const run = (args: string[]) => cli(args, { root, env });
  const must = async (args: string[]) => {
    const r = await run(args);
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    return r;
  };
  /** The answer we expect every time: paths of the hits for two questions. */
  const answers = async () => {
    const out: string[][] = [];
    for (const q of ['aardvark burrows', 'badger setts']) {
      const r = await must(['search', q, '--json']);
      expect(r.json.vector_search.available).toBe(true);
      out.push(r.json.results.map((h: { topic_id: string; path: string }) => `${h.topic_id}/${h.path}`));
    }
    return out;
  };
  let baseline: string[][];

  beforeAll(async () => {
    server = await startFakeServer(8);
    env = { TKOMA_REF_EMBEDDER: 'ollama', TKOMA_REF_EMBED_URL: server.url, TKOMA_REF_EMBED_MODEL: 'fake-embed' };
    const alpha = makeRepo(join(tmp.path, 'alpha-up'), { 'README.md': '# Alpha\n\nAardvark notes.\n', 'docs/burrows.md': '# Burrows\n\nAardvark burrows are deep.\n' });
    const beta = makeRepo(join(tmp.path, 'beta-up'), { 'README.md': '# Beta\n\nBadger notes.\n', 'docs/setts.md': '# Setts\n\nBadger setts are wide.\n' });
    await freshRoot(root);
    // The embedder is a deliberate choice (one commit); vectors are built by `index embed` (or a
    // background worker, off in tests), never by create or search.
    await must(['index', 'embedder', 'set', 'ollama', '--model', 'fake-embed', '--chunks', 'on', '--json']);
    await must(createArgs('alpha', alpha.url));
    await must(createArgs('beta', beta.url));
    await must(['index', 'embed', '--json']);
    baseline = await answers();
    expect(baseline[0]).toContain('alpha/docs/burrows.md');
    expect(baseline[1]).toContain('beta/docs/setts.md');
  });
  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('the embedder choice was recorded as one commit, under the write lock', async () => {
    expect(readFileSync(join(root, 'tkoma-ref.toml'), 'utf8')).toContain('recorded = "ollama:fake-embed:8"');
    expect(git(root, 'log', '--format=%s')).toContain('set embedder: ollama:fake-embed:8 (chunk vectors on)');
    await expectConsistent(root, ['alpha', 'beta']);
  });

  it('every index file truncated or replaced by garbage, one at a time: search rebuilds it', async () => {
    // Every kind of file: alpha's (beta's are the same kinds) and the root-wide ones.
    const indexFiles = files(join(root, '.tkoma', 'index')).filter((f) => !f.includes(`${join('topics', 'beta')}`));
    expect(indexFiles.map((f) => f.split('/').pop()!.replace(/-\d+\./, '.')).sort()).toEqual(
      expect.arrayContaining(['ann.hnsw', 'ann.json', 'head.json', 'meta.json', 'notes.json', 'seg.rec', 'seg.lex', 'seg.txt']),
    );
    for (const [i, f] of indexFiles.entries()) {
      if (!existsSync(f)) continue; // a generation file replaced meanwhile
      if (i % 2 === 0) truncateSync(f, Math.floor(statSync(f).size / 2));
      else writeFileSync(f, '\u0000garbage{"not": json');
      const r = await must(['search', 'aardvark burrows', '--json']);
      expect(r.json.results.map((h: { topic_id: string; path: string }) => `${h.topic_id}/${h.path}`), relative(root, f)).toEqual(baseline[0]);
    }
    expect(await answers()).toEqual(baseline);
    const status = await must(['index', 'status', '--json']);
    expect(status.json.pending).toEqual({ changed: 0, added: 0, removed: 0 });
    expect(status.json.chunks).toBeGreaterThan(0);
    expect(status.json.vectors).toBe(status.json.chunks);
  });

  it('a corrupted embedding cache: rebuild and the builder re-embed instead of trusting it', async () => {
    const cacheFiles = files(join(root, '.tkoma', 'cache'));
    expect(cacheFiles.length).toBeGreaterThan(0);
    for (const f of cacheFiles) {
      const buf = readFileSync(f);
      buf.fill(0x41, Math.floor(buf.length / 3)); // a header that looks right, records that are garbage
      writeFileSync(f, buf);
    }
    const asked = server.requests.length;
    // Rebuild calls no model: it restores what the cache holds; the builder embeds the rest.
    await must(['index', 'rebuild', '--json']);
    await must(['index', 'embed', '--json']);
    expect(server.requests.length).toBeGreaterThan(asked); // the damaged records were not used
    expect(await answers()).toEqual(baseline);
    for (const f of cacheFiles) {
      writeFileSync(f, 'not a cache at all');
    }
    await must(['index', 'rebuild', '--json']);
    await must(['index', 'embed', '--json']);
    expect(await answers()).toEqual(baseline);
    expect(readFileSync(cacheFiles[0]).subarray(0, 4).toString('latin1')).toBe('TKEC');
  });

  it('a missing .tkoma/ is rebuilt from the files', async () => {
    rmSync(join(root, '.tkoma'), { recursive: true, force: true });
    // Searchable at once (lexically); the vectors, cache included, are built again by the builder.
    const lexical = await run(['search', 'aardvark burrows', '--json']);
    expect(lexical.json.vector_search).toMatchObject({ available: false, coverage: 0 });
    expect(lexical.json.results.length).toBeGreaterThan(0);
    await must(['index', 'embed', '--json']);
    expect(await answers()).toEqual(baseline);
    await expectConsistent(root, ['alpha', 'beta']);
  });

  it('a garbage journal and a garbage lock owner do not block anyone', async () => {
    mkdirSync(join(root, '.tkoma', 'journal'), { recursive: true });
    writeFileSync(join(root, '.tkoma', 'journal', 'update.json'), '{"op": "upd');
    const lock = join(root, '.tkoma', 'write.lock');
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'owner'), '\u0000\u0000');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const r = await must(['topic', 'update', 'alpha', '--tag', 'mended', '--json']);
    expect(r.json.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(leftovers(root)).toEqual([]);
    await expectConsistent(root, ['alpha', 'beta']);
  });

  it('a hand-broken topic.md is reported with file and line; other topics keep working', async () => {
    const file = join(root, 'references', 'beta', 'topic.md');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('title ='));
    lines[at] = 'title = "unterminated';
    writeFileSync(file, lines.join('\n'));

    const list = await must(['topic', 'list', '--json']);
    expect(list.json.map((t: { topic_id: string; status: string }) => `${t.topic_id} ${t.status}`)).toEqual(['alpha active', 'beta broken']);
    expect(list.stderr).toContain(`references/beta/topic.md:${at + 1}`);

    const show = await run(['topic', 'show', 'beta', '--json']);
    expect(show.code).toBe(7);
    expect(show.json.error).toMatchObject({ code: 'MALFORMED_TOPIC', file: 'references/beta/topic.md', line: at + 1 });
    const update = await run(['topic', 'update', 'beta', '--title', 'x', '--json']);
    expect(update.json.error).toMatchObject({ code: 'MALFORMED_TOPIC', line: at + 1 });
    expect(git(root, 'status', '--porcelain')).toBe('M references/beta/topic.md'); // the failed update wrote nothing

    const s = await must(['search', 'aardvark burrows', '--json']);
    expect(s.json.results.map((h: { topic_id: string; path: string }) => `${h.topic_id}/${h.path}`)).toEqual(baseline[0].filter((p) => p.startsWith('alpha/')));
    const refresh = await must(['refresh', '--all', '--json']);
    expect(refresh.json.topics.map((t: { topic_id: string }) => t.topic_id)).toEqual(['alpha']);

    // The operator can still delete it, as one commit.
    const del = await must(['delete', 'beta', '--yes', '--json']);
    expect(del.json.commit).toMatch(/^[0-9a-f]{40}$/);
    await expectConsistent(root, ['alpha']);
  });

  it('killed while setting a new embedder: the record is put back, then made again as one commit', async () => {
    const toml = join(root, 'tkoma-ref.toml');
    const before = commitCount(root);
    const set = ['index', 'embedder', 'set', 'ollama', '--model', 'other-embed', '--json'];
    const crashed = await start(set, { root, env: { ...env, TKOMA_REF_CRASH_AT: 'set-embedder:before-commit' } }).done;
    expect(crashed.signal).toBe('SIGKILL');
    await expectConsistent(root, ['alpha']);
    expect(readFileSync(toml, 'utf8')).toContain('recorded = "ollama:fake-embed:8"');
    expect(commitCount(root)).toBe(before);
    // A search meanwhile never records anything, whatever the environment asks for.
    const r = await cli(['search', 'aardvark', '--json'], { root, env: { ...env, TKOMA_REF_EMBED_MODEL: 'other-embed' } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(commitCount(root)).toBe(before);
    await must(set);
    expect(readFileSync(toml, 'utf8')).toContain('recorded = "ollama:other-embed:8"');
    expect(commitCount(root)).toBe(before + 1);
    expect(git(root, 'log', '-1', '--format=%s')).toBe('set embedder: ollama:other-embed:8');
    await expectConsistent(root, ['alpha']);
  });
});
