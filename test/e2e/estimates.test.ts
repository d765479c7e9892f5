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

import { allowLocalSources, cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { call, connect, type Connected } from '../helpers/mcp.js';

const tmp = tmpDir('tkoma-estimates-');
const root = join(tmp.path, 'kb');
const QS = join(PROJECT, 'node_modules', 'qs');
const FILES = ['README.md', 'CHANGELOG.md', 'package.json', '.editorconfig', 'lib/index.js', 'lib/formats.js', 'lib/parse.js', 'lib/stringify.js', 'lib/utils.js'];
let repoUrl: string;

const state = () => JSON.parse(readFileSync(join(root, '.tkoma', 'estimates.json'), 'utf8')) as { creates: { files: number; chunks: number; fetch_s: number; index_s: number; start_s?: number }[] };

beforeAll(async () => {
  expect((await cli(['init'], { root })).code).toBe(0);
  allowLocalSources(root);
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
