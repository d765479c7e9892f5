/**
 * The operator's side of approval through the real binary: `approvals`, `approve ID`,
 * `deny ID --note`, what phase 1 shows (every URL in full, local paths marked, hosts) and that it
 * sends nothing to web pages; token mode's single-use tokens from the CLI.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { send, startServer, type TestServer } from '../helpers/http-server.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-approval-');
let server: TestServer;
let repo: ReturnType<typeof makeRepo>;

beforeAll(async () => {
  server = await startServer();
  server.route('/guide', send('<html><body><main><h1>Guide</h1><p>Rope and pulleys.</p></main></body></html>', 'text/html'));
  server.route('/redirect', (_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:9/secret' });
    res.end();
  });
  repo = makeRepo(join(tmp.path, 'rope'), { 'README.md': '# Rope\n\nA rope carries tension.\n', 'docs/knots.md': '# Knots\n\nA bowline makes a fixed loop.\n' });
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

async function newRoot(name: string, approval?: 'token'): Promise<string> {
  const root = join(tmp.path, name);
  await freshRoot(root, approval ? { approval } : {});
  return root;
}

describe('operator mode through the CLI', () => {
  let root: string;
  const request = () => ({ title: 'Rope', body: 'Rope.', sources: [{ type: 'git', url: repo.url }, { type: 'web', url: server.url('/guide') }, { type: 'web', url: server.url('/redirect') }] });
  beforeAll(async () => {
    root = await newRoot('kb');
  });

  it('phase 1 sends nothing to the web pages and names every source in full', async () => {
    const seen = server.seen.length;
    const r = await cli(['topic', 'create', '--json', '--ghost', 'ghost-a', '--model', 'm1', '--input', JSON.stringify(request())], { root });
    expect(r.code, r.stderr).toBe(4);
    expect(server.seen.length).toBe(seen); // not even a HEAD: phase 1 is no port scanner
    const host = new URL(server.base).host;
    const where = `local repository ${new URL(repo.url).pathname}`;
    expect(r.json.summary).toBe(`${where}: 2 files, ${r.json.summary.split(': 2 files, ')[1]!.split(' + ')[0]} + 2 web pages on ${host}`);
    expect(r.stderr).toContain(`APPROVAL_REQUIRED:REFERENCE_TOPIC_CREATE:${r.json.summary}`);
    expect(r.json.token).toBeUndefined();

    const human = await cli(['approvals'], { root });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${r.json.request_id}  PENDING  topic-rope ('Rope')`);
    expect(human.stdout).toContain('by ghost-a, model m1 via cli');
    expect(human.stdout).toContain(`- ${where} @ main: 2 files`);
    expect(human.stdout).toContain(`- web page ${server.url('/guide')} (host ${host})`);
    expect(human.stdout).toContain(`- web page ${server.url('/redirect')} (host ${host})`);
    expect(human.stdout).toContain(`tkoma-ref approve ${r.json.request_id}`);

    const doctor = (await cli(['doctor', '--json'], { root })).json.checks.find((c: { name: string }) => c.name === 'approval');
    expect(doctor).toMatchObject({ status: 'ok', message: expect.stringContaining('1 request waiting for your decision'), details: { mode: 'operator', pending: [expect.objectContaining({ request_id: r.json.request_id })] } });
  });

  it('approve and deny validate their input and say what is wrong', async () => {
    const bad = await cli(['approve', 'nope', '--json'], { root });
    expect(bad.code).toBe(2);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'id' });
    const unknown = await cli(['deny', '0badc0de', '--json'], { root });
    expect(unknown.code).toBe(3);
    expect(unknown.json.error.code).toBe('APPROVAL_NOT_FOUND');
    const token = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request()), '--approve', `v1.${Math.floor(Date.now() / 1000) + 60}.abc`], { root });
    expect(token.json.error.code).toBe('INVALID_TOKEN');
    expect(token.json.error.message).toMatch(/operator mode/);
  });

  it('deny: the identical request fails with APPROVAL_DENIED, the note, and the gateway line; nothing written', async () => {
    const ask = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request())], { root });
    const head = git(root, 'rev-parse', 'HEAD');
    const d = await cli(['deny', ask.json.request_id, '--note', 'no web pages, please'], { root });
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/^Denied [0-9a-f]{8}/);
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request())], { root });
    expect(r.code).toBe(12);
    expect(r.json.error).toMatchObject({ code: 'APPROVAL_DENIED', request_id: ask.json.request_id, note: 'no web pages, please' });
    expect(r.stderr).toContain('APPROVAL_DENIED:REFERENCE_TOPIC_CREATE:no web pages, please');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(existsSync(join(root, 'references', 'topic-rope'))).toBe(false);
    // The operator may change their mind while it is unused.
    expect((await cli(['approve', ask.json.request_id, '--json'], { root })).json.state).toBe('approved');
  });

  it('approve: the identical request fetches under the network policy, once', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request())], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The redirect's target (127.0.0.1:9) is allowed here but nothing listens: that page is a warning, the rest kept.
    expect(r.json).toMatchObject({ status: 'created', topic_id: 'topic-rope' });
    expect(r.json.sources.filter((s: { ok: boolean }) => s.ok)).toHaveLength(2);
    const all = (await cli(['approvals', '--all', '--json'], { root })).json.requests;
    expect(all.filter((q: { state: string }) => q.state === 'used')).toHaveLength(1);
    const again = await cli(['approve', all.find((q: { state: string }) => q.state === 'used').request_id, '--json'], { root });
    expect(again.json.error.code).toBe('APPROVAL_NOT_FOUND');
  });
});

describe('token mode through the CLI', () => {
  it('a token is single-use, also after the topic was deleted', async () => {
    const root = await newRoot('kb-token', 'token');
    const input = JSON.stringify({ title: 'Knots', body: 'Knots.', sources: [{ type: 'git', url: repo.url, paths: ['docs/'] }] });
    const ask = await cli(['topic', 'create', '--json', '--input', input], { root });
    expect(ask.json).toMatchObject({ approval_mode: 'token', token: expect.stringMatching(/^v1\./) });
    expect(ask.json.request_id).toBeUndefined();
    expect((await cli(['approvals', '--json'], { root })).json.requests).toEqual([]);
    const done = await cli(['topic', 'create', '--json', '--input', input, '--approve', ask.json.token], { root });
    expect(done.code, done.stdout).toBe(0);
    expect((await cli(['delete', 'topic-knots', '--yes'], { root })).code).toBe(0);
    const replay = await cli(['topic', 'create', '--json', '--input', input, '--approve', ask.json.token], { root });
    expect(replay.code).toBe(2);
    expect(replay.json.error.code).toBe('INVALID_TOKEN');
    expect(existsSync(join(root, 'references', 'topic-knots'))).toBe(false);
  });

  it('a token given back after a failed fetch still works (nothing was created)', async () => {
    const root = await newRoot('kb-token-retry', 'token');
    const input = JSON.stringify({ title: 'Gone', body: 'x', sources: [{ type: 'web', url: server.url('/missing') }] });
    const ask = await cli(['topic', 'create', '--json', '--input', input], { root });
    const failed = await cli(['topic', 'create', '--json', '--input', input, '--approve', ask.json.token], { root });
    expect(failed.json.error.code).toBe('SOURCE_UNREACHABLE');
    server.route('/missing', send('<html><body><main><p>Here now.</p></main></body></html>', 'text/html'));
    const retry = await cli(['topic', 'create', '--json', '--input', input, '--approve', ask.json.token], { root });
    expect(retry.code, retry.stdout).toBe(0);
  });
});
