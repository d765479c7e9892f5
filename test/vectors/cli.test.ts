/**
 * The vector lifecycle through the built binary, as a user meets it: create answers at once
 * (lexical), reads never commit, the embedder is chosen by one deliberate command, `index status`
 * and `search` tell what is pending, `index embed` builds in the foreground with rate and ETA.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { type EmbedServer, startEmbedServer } from '../helpers/index-topics.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-vectors-cli-');
const root = join(tmp.path, 'kb');
let embed: EmbedServer;
let topic = '';
let repoUrl = '';
// No TKOMA_REF_EMBEDDER=none here: reads must be safe with the default choice too.
const ENV = { TKOMA_REF_EMBEDDER: '', TKOMA_REF_VECTOR_WORKER: 'off' };
const commits = () => Number(git(root, 'rev-list', '--count', 'HEAD'));
const toml = () => readFileSync(join(root, 'tkoma-ref.toml'), 'utf8');

beforeAll(async () => {
  embed = await startEmbedServer(16);
  await freshRoot(root);
  const repo = makeRepo(join(tmp.path, 'gears'), {
    'README.md': '# Gears\n\nGears mesh with other gears.\n\n## Ratios\n\nThe gear ratio is teeth over teeth.\n',
    'docs/lubrication.md': '# Lubrication\n\nUse grease on the teeth every hundred hours.\n',
    'src/gear.ts': 'export function ratio(a: number, b: number): number {\n  return a / b;\n}\n',
  });
  repoUrl = repo.url;
  const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Gears', '--git', repo.url], { root, env: ENV });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  // Searchable at once; the answer says what vectors are still to come (auto: notes only).
  expect(r.json.vector_search).toMatchObject({ available: true, embedder: 'auto', pending: 0, chunk_vectors: false });
  expect(r.json.chunk_count).toBeGreaterThan(0);
  topic = r.json.topic_id;
});
afterAll(async () => {
  await embed.close();
  tmp.cleanup();
});

describe('vectors through the CLI', () => {
  it('approval (phase 1) tells the cost: chunks, time to searchable, what vectors follow', async () => {
    const r = await cli(['topic', 'create', '--json', '--title', 'Gears again', '--topic-id', 'gears-two', '--git', repoUrl], { root, env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.json.estimate).toMatchObject({ vectors: 'topic notes only', embedder: 'auto' });
    expect(r.json.estimate.chunks).toBeGreaterThan(0);
    expect(r.json.estimate.summary).toMatch(/^~\d+ chunks, searchable in ~\d+ s, topic-note vectors only/);
  });

  it('a read command never commits, whatever embedder it asks for', async () => {
    const before = commits();
    const config = toml();
    for (const args of [
      ['search', 'gear ratio', '--json'],
      ['search', 'gear ratio', '--json', '--no-server', '--embedder', 'use-lite'],
      ['topic', 'search', 'gears', '--json'],
      ['topic', 'search', 'gears', '--json', '--embedder', 'ollama'],
    ]) {
      const r = await cli(args, { root, env: ENV });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    const withEnv = await cli(['search', 'gear ratio', '--json'], { root, env: { ...ENV, TKOMA_REF_EMBEDDER: 'ollama', TKOMA_REF_EMBED_URL: embed.url } });
    expect(withEnv.code).toBe(0);
    expect(commits()).toBe(before);
    expect(toml()).toBe(config);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'log', '--format=%s')).not.toMatch(/record embedder/);
  });

  it('an explicit embedder that cannot run exits 8 with the reason and changes nothing', async () => {
    const before = commits();
    const r = await cli(['index', 'embedder', 'set', 'ollama', '--url', 'http://127.0.0.1:9', '--json'], { root, env: ENV });
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    expect(r.json.error.message).toMatch(/ollama cannot run here/);
    const rebuild = await cli(['index', 'rebuild', '--embedder', 'ollama', '--json'], { root, env: { ...ENV, TKOMA_REF_EMBED_URL: 'http://127.0.0.1:9' } });
    expect(rebuild.code).toBe(8);
    expect(commits()).toBe(before);
  });

  it('embedder set records one commit; status and search show pending; index embed builds with rate and ETA', async () => {
    const before = commits();
    const set = await cli(['index', 'embedder', 'set', 'ollama', '--url', embed.url, '--model', 'bow', '--chunks', 'on', '--json'], { root, env: ENV });
    expect(set.code, set.stdout + set.stderr).toBe(0);
    expect(set.json).toMatchObject({ recorded: 'ollama:bow:16', chunk_vectors: true });
    expect(commits()).toBe(before + 1);
    expect(git(root, 'log', '-1', '--format=%s')).toBe('set embedder: ollama:bow:16 (chunk vectors on)');

    const status = await cli(['index', 'status', '--json'], { root, env: ENV });
    const gears = status.json.vector_work.topics[topic];
    expect(gears.pending).toBe(gears.chunks);
    expect(status.json.vector_work).toMatchObject({ target: 'ollama:bow:16', chunk_vectors: true });

    const human = await cli(['search', 'gear ratio', '--topic', topic, '--no-server'], { root, env: ENV });
    expect(human.code).toBe(0);
    expect(human.stderr).toContain(`vectors: 0% of ${topic}, pending`);
    const searched = await cli(['search', 'gear ratio', '--topic', topic, '--json'], { root, env: ENV });
    expect(searched.json.results.length).toBeGreaterThan(0);
    expect(searched.json.vector_search).toMatchObject({ available: false, coverage: 0, pending: gears.chunks });

    const built = await cli(['index', 'embed'], { root, env: ENV });
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toMatch(/embedding \w+ +\d+\/\d+ \(100%\) +[\d.]+\/s +ETA/);
    const after = await cli(['search', 'gear ratio', '--topic', topic, '--json'], { root, env: ENV });
    expect(after.json.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow:16', coverage: 1, pending: 0 });
    const asked = await cli(['search', 'gear ratio', '--topic', topic, '--json', '--embedder', 'openai'], { root, env: ENV });
    expect(asked.json.vector_search.warning).toMatch(/records ollama:bow:16/);
    expect(commits()).toBe(before + 1);

    // Deleting the derived index loses no vector: rebuild puts them back from the cache.
    const rebuilt = await cli(['index', 'rebuild', '--json'], { root, env: ENV });
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow:16', pending: 0 });
    expect(rebuilt.json.vector_search.restored).toBeGreaterThan(0);

    // An explicitly named provider that cannot run: exit 8, and the vectors are all still there.
    const emptyModels = join(tmp.path, 'no-models');
    const offline = await cli(['index', 'rebuild', '--embedder', 'transformers', '--json'], { root, env: { ...ENV, TKOMA_REF_MODEL_DIR: emptyModels } });
    expect(offline.code).toBe(8);
    expect(offline.json.error.message).toMatch(/transformers cannot run here.*nothing was changed/);
    const kept = await cli(['index', 'status', '--json'], { root, env: ENV });
    expect(kept.json.vector_work.topics[topic]).toMatchObject({ pending: 0 });
    expect(kept.json.vectors).toBe(kept.json.chunks);
  });
});
