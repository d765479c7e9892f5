/**
 * The estimate an operator approves, through the built binary on a small real repository (the
 * installed `qs` package's docs, code and config, committed as a repository): phase 1's chunks are
 * within the bounds of what the create then produces, each create records this machine's rates
 * for the next estimate, and the CLI, `approvals`, the MCP answer and the MCP dialog say the same
 * numbers for the same request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { type EmbedServer, startEmbedServer } from '../helpers/index-topics.js';
import { call, connect, type Connected } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-estimates-');
const root = join(tmp.path, 'kb');
const QS = join(PROJECT, 'node_modules', 'qs');
const FILES = ['README.md', 'CHANGELOG.md', 'package.json', '.editorconfig', 'lib/index.js', 'lib/formats.js', 'lib/parse.js', 'lib/stringify.js', 'lib/utils.js'];
let repoUrl: string;

const state = () =>
  JSON.parse(readFileSync(join(root, '.tkoma', 'estimates.json'), 'utf8')) as {
    creates: { files: number; chunks: number; fetch_s: number; index_s: number; start_s?: number }[];
    embedding: Record<string, { chunks_per_s: number }>;
  };

beforeAll(async () => {
  await freshRoot(root);
  repoUrl = makeRepo(join(tmp.path, 'qs'), Object.fromEntries(FILES.map((f) => [f, readFileSync(join(QS, f))]))).url;
});
afterAll(() => tmp.cleanup());

describe('estimates through the CLI', () => {
  it("phase 1's estimate is within the bounds of what the create produces, and the create records its rates", async () => {
    const args = ['topic', 'create', '--json', '--title', 'qs', '--topic-id', 'qs', '--git', repoUrl];
    const ask = await cli(args, { root });
    expect(ask.code, ask.stderr).toBe(4);
    const est = ask.json.estimate;
    expect(est).toMatchObject({ files: FILES.length, vectors: 'none', rates: { basis: 'default', creates: 0 } });
    // Sizes came from the source's own object store, though the snapshot fetched no blob.
    expect(est.bytes).toBe(FILES.reduce((n, f) => n + readFileSync(join(QS, f)).length, 0));

    const made = await cli([...args, '--yes'], { root });
    expect(made.code, made.stderr).toBe(0);
    expect(made.json.file_count).toBe(est.files);
    const actual = made.json.chunk_count as number;
    expect(actual).toBeGreaterThan(50);
    expect(Math.abs(est.chunks / actual - 1)).toBeLessThanOrEqual(0.3);

    const sample = state().creates.at(-1)!;
    expect(sample).toMatchObject({ files: made.json.file_count, chunks: actual });
    expect(sample.fetch_s).toBeGreaterThan(0);
    expect(sample.index_s).toBeGreaterThan(0);
    expect(sample.start_s).toBeGreaterThan(0);

    // The next estimate rests on what this machine measured.
    const next = await cli(['topic', 'create', '--json', '--title', 'qs again', '--topic-id', 'qs-again', '--git', repoUrl], { root });
    expect(next.json.estimate.rates).toMatchObject({ basis: 'measured', creates: 1 });
    expect(next.json.estimate.chunks).toBe(est.chunks);
  });

  it('--dry-run says what phase 1 says', async () => {
    const args = ['--title', 'qs dry', '--topic-id', 'qs-dry', '--git', repoUrl];
    const dry = await cli(['topic', 'create', '--json', '--dry-run', ...args], { root });
    const ask = await cli(['topic', 'create', '--json', ...args], { root });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json.estimate).toEqual(ask.json.estimate);
  });
});

describe('the same numbers on every surface', () => {
  let plain: Connected;
  let host: Connected;
  beforeAll(async () => {
    plain = await connect(root);
    host = await connect(root, { elicitation: true });
  });
  afterAll(async () => {
    await plain?.close();
    await host?.close();
  });

  it('CLI JSON and text, approvals, the MCP answer and the MCP dialog', async () => {
    const req = { title: 'qs surfaces', topic_id: 'qs-surfaces', body: 'The qs query-string parser.', sources: [{ type: 'git', url: repoUrl }] };
    const args = ['topic', 'create', '--title', req.title, '--topic-id', req.topic_id, '--git', repoUrl];
    const json = await cli([...args, '--json'], { root });
    expect(json.code, json.stderr).toBe(4);
    const est = json.json.estimate;
    const text = await cli(args, { root });
    expect(text.stdout).toContain(est.summary);

    const listed = await cli(['approvals', '--json'], { root });
    expect(listed.json.requests.find((r: { topic_id: string }) => r.topic_id === req.topic_id).estimate).toEqual(est);
    expect((await cli(['approvals'], { root })).stdout).toContain(`estimate: ${est.summary}`);

    const answer = await call(plain, 'reference_topic_create', req);
    expect(answer.data.estimate).toEqual(est);
    expect(answer.text).toContain(`Estimated cost: ${est.summary}.`);

    host.reply.next = () => ({ action: 'cancel' });
    const dialog = await call(host, 'reference_topic_create', req);
    expect(dialog.data.estimate).toEqual(est);
    expect(host.elicited.at(-1)).toContain(`Estimated cost: ${est.summary}.`);
  });
});

describe('vectors in the estimate', () => {
  let embed: EmbedServer;
  // The embedder is the root's recorded choice here, not the tests' usual none.
  const ENV = { TKOMA_REF_EMBEDDER: '', TKOMA_REF_VECTOR_WORKER: 'off' };
  beforeAll(async () => {
    embed = await startEmbedServer(16);
  });
  afterAll(() => embed?.close());

  it("a provider's speed is unknown until a build measures it; then the estimate prices the chunk vectors", async () => {
    const set = await cli(['index', 'embedder', 'set', 'ollama', '--url', embed.url, '--model', 'bow', '--chunks', 'on', '--json'], { root, env: ENV });
    expect(set.code, set.stdout + set.stderr).toBe(0);
    const args = ['topic', 'create', '--json', '--title', 'qs vectors', '--topic-id', 'qs-vectors', '--git', repoUrl];
    const before = await cli(args, { root, env: ENV });
    expect(before.json.estimate).toMatchObject({ vectors: 'chunks', vectors_seconds: null, embedder: 'ollama:bow:16' });
    expect(before.json.estimate.summary).toMatch(/vectors built in the background$/);

    const built = await cli(['index', 'embed', '--json'], { root, env: ENV });
    expect(built.code, built.stderr).toBe(0);
    expect(state().embedding['ollama:bow:16']!.chunks_per_s).toBeGreaterThan(0);

    const after = await cli(args, { root, env: ENV });
    expect(after.json.estimate.vectors_seconds).toBeGreaterThanOrEqual(0);
    expect(after.json.estimate.rates.embed_chunks_per_s).toBeGreaterThan(0);
    expect(after.json.estimate.summary).toMatch(/vectors in ~\d+ (s|min) in the background$/);
  });

  it('chunk vectors off: only topic-note vectors, on every surface', async () => {
    const set = await cli(['index', 'embedder', 'set', 'ollama', '--url', embed.url, '--model', 'bow', '--chunks', 'off', '--json'], { root, env: ENV });
    expect(set.code, set.stdout + set.stderr).toBe(0);
    const ask = await cli(['topic', 'create', '--json', '--title', 'qs notes', '--topic-id', 'qs-notes', '--git', repoUrl], { root, env: ENV });
    expect(ask.json.estimate).toMatchObject({ vectors: 'topic notes only', vectors_seconds: null });
    const mcp = await connect(root, { env: ENV });
    try {
      const answer = await call(mcp, 'reference_topic_create', { title: 'qs notes', topic_id: 'qs-notes', body: 'qs.', sources: [{ type: 'git', url: repoUrl }] });
      expect(answer.data.estimate).toEqual(ask.json.estimate);
      expect(answer.text).toContain('topic-note vectors only');
      expect(answer.text).not.toMatch(/vectors in ~|vectors \(/);
    } finally {
      await mcp.close();
    }
  });
});
