/**
 * Round three of hostile inputs (issue 25), through the built binary against a real HTTP server on
 * 127.0.0.1 and real git repositories: a page of bare links, pages that lie about their charset, a
 * fetched_at from a machine with a wrong clock, and three lesser messages and leftovers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, git, makeRepo, operatorApproves, tmpDir } from '../helpers/fixtures.js';
import { send, startServer, type TestServer } from '../helpers/http-server.js';
import { freshRoot } from '../helpers/roots.js';

/**
 * `topic create` with the operator's own approval (--yes): the fetch and what it stores are what
 * this file tests; the approval steps are e2e/approval's and mcp/approval's.
 */
function create(root: string, request: Record<string, unknown>) {
  return cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(request)], { root });
}

/** The binary with its stderr watched as it comes (to see a hold point reached); the rest as `cli` gives it. */
function cliWatching(args: string[], root: string, env: Record<string, string>, onStderr: (text: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, '--root', root], { env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const page = (body: string) => `<!doctype html><html><head><title>P</title></head><body>${body}</body></html>`;

describe('hostile pages and damaged state, round three (CLI, real server)', () => {
  const tmp = tmpDir('tkoma-hostile-');
  const root = join(tmp.path, 'kb');
  let server: TestServer;
  let n = 0;
  const topicDir = (id: string) => join(root, 'references', id);
  const request = (url: string, extra: Record<string, unknown> = {}) => ({ title: `T${++n}`, body: '# T\n\nx.\n', topic_id: `topic-h${n}`, sources: [{ type: 'web', url }], ...extra });

  beforeAll(async () => {
    server = await startServer();
    await freshRoot(root);
  });
  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  it('a page of 20,000 bare links is converted whole, every link kept in order', async () => {
    const links = Array.from({ length: 20_000 }, (_, i) => `<a href="/ok?${i}">l</a>`).join('');
    server.route('/links', send(`<main>${links}</main>`, 'text/html'));
    const r = await create(root, request(server.url('/links')));
    expect(r.code, r.stderr).toBe(0);
    const file = readdirSync(topicDir(r.json.topic_id)).find((f) => f.endsWith('links.md'))!;
    const md = readFileSync(join(topicDir(r.json.topic_id), file), 'utf8');
    const seen = [...md.matchAll(/\[l\]\(http:\/\/127\.0\.0\.1:\d+\/ok\?(\d+)\)/g)].map((m) => Number(m[1]));
    expect(seen).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
  });

  it('no fetch runs under the write lock: another create commits while one is fetched and converted, not yet committed', async () => {
    // Held just after its fetch and conversion (TKOMA_REF_HOLD_AT), not on a clock: a download kept
    // open would hit the 20 s page deadline on a busy machine before the other create finished.
    const until = join(tmp.path, 'release-slow');
    server.route('/slow', send(page('<main><p>first half of the slow page and the second half.</p></main>'), 'text/html'));
    server.route('/quick', send(page('<main><p>a quick page</p></main>'), 'text/html'));
    const slowReq = request(server.url('/slow'));
    const first = await cli(['topic', 'create', '--json', '--input', JSON.stringify(slowReq)], { root });
    expect(first.code).toBe(4);
    let heldAt!: () => void;
    const held = new Promise<void>((r) => (heldAt = r));
    await operatorApproves(root, first.json.request_id);
    const slow = cliWatching(['topic', 'create', '--json', '--input', JSON.stringify(slowReq)], root, { TKOMA_REF_HOLD_AT: 'create:fetched', TKOMA_REF_HOLD_UNTIL: until }, (err) => {
      if (err.includes('held at create:fetched')) heldAt();
    });
    await held;
    // The slow create has fetched and converted its page and waits before the lock: a whole other create commits.
    const quick = await create(root, request(server.url('/quick')));
    expect(quick.code, quick.stderr).toBe(0);
    expect(existsSync(topicDir(slowReq.topic_id))).toBe(false);
    writeFileSync(until, '');
    const done = await slow;
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(topicDir(slowReq.topic_id), readdirSync(topicDir(slowReq.topic_id)).find((f) => f.endsWith('slow.md'))!), 'utf8')).toContain('second half');
  });

  it('a UTF-8 body served as UTF-16 or Latin-1 is stored as the text it is', async () => {
    const body = Buffer.from(page('<main><p>Un café au lait, naïve façade — 東京</p></main>'), 'utf8');
    for (const charset of ['utf-16', 'iso-8859-1']) {
      server.route(`/lies-${charset}`, send(body, `text/html; charset=${charset}`));
      const r = await create(root, request(server.url(`/lies-${charset}`)));
      expect(r.code, r.stderr).toBe(0);
      const dir = topicDir(r.json.topic_id);
      const md = readFileSync(join(dir, readdirSync(dir).find((f) => f.includes('lies'))!), 'utf8');
      expect(md, charset).toContain('Un café au lait, naïve façade — 東京');
      expect(md).not.toContain('Ã©');
    }
  });

  it('a body its charset turns to garbage is refused with UNDECODABLE_TEXT, nothing written', async () => {
    // Latin-1 bytes (not UTF-8) served as UTF-16: read as such, every byte pair is one CJK-looking character.
    const latin1 = Buffer.from(page('<main><p>Un café crème, s\'il vous plaît.</p></main>'), 'latin1');
    server.route('/garbage', send(latin1, 'text/html; charset=utf-16'));
    const req = request(server.url('/garbage'));
    const r = await create(root, req);
    expect(r.code).toBe(5);
    expect(r.json.error.sources[0].error).toMatchObject({ code: 'UNDECODABLE_TEXT' });
    expect(r.json.error.sources[0].error.message).toMatch(/does not decode as utf-16le/);
    expect(existsSync(topicDir(req.topic_id))).toBe(false);
  });

  describe('a fetched_at in the future (a machine with a wrong clock, shared through git)', () => {
    let repo: ReturnType<typeof makeRepo>;
    const id = 'topic-skewed';
    beforeAll(async () => {
      repo = makeRepo(join(tmp.path, 'skew-upstream'), { 'README.md': '# Skew\n\nClock skew.\n' });
      const r = await create(root, { title: 'Skewed', body: '# Skewed\n\nx.\n', topic_id: id, max_age_days: 30, sources: [{ type: 'git', url: repo.url }] });
      expect(r.code, r.stderr).toBe(0);
      const file = join(topicDir(id), 'topic.md');
      const future = new Date(Date.now() + 400 * 86_400_000).toISOString();
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^fetched_at = ".*"$/m, `fetched_at = "${future}"`));
      git(root, 'commit', '-qam', 'pulled from a machine whose clock is a year ahead');
    });

    it('counts as stale with a warning, refresh --stale picks it, and the refresh records a real time', async () => {
      const list = await cli(['topic', 'list', '--json'], { root });
      const entry = list.json.find((t: { topic_id: string }) => t.topic_id === id);
      expect(entry).toMatchObject({ is_stale: true, stale_since: null });
      expect(entry.warnings[0]).toMatch(/is in the future .*counts as stale until `tkoma-ref refresh topic-skewed`/);

      const refreshed = await cli(['refresh', '--stale', '--json'], { root });
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(JSON.stringify(refreshed.json)).toContain(id);
      const fetched = /^fetched_at = "(.*)"$/m.exec(readFileSync(join(topicDir(id), 'topic.md'), 'utf8'))![1]!;
      expect(Date.parse(fetched)).toBeLessThanOrEqual(Date.now());

      const after = (await cli(['topic', 'list', '--json'], { root })).json.find((t: { topic_id: string }) => t.topic_id === id);
      expect(after).toMatchObject({ is_stale: false });
      expect(after.warnings).toBeUndefined();
    });
  });

  describe('lesser findings', () => {
    it('ref "@" is refused with a message about "@", not about "@{"', async () => {
      const repo = makeRepo(join(tmp.path, 'at-upstream'), { 'README.md': '# At\n' });
      const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ title: 'At', body: '# At\n', sources: [{ type: 'git', url: repo.url, ref: '@' }] })], { root });
      expect(r.json.error.code).toBe('INVALID_REF');
      expect(r.json.error.message).not.toContain('@{');
      expect(r.json.error.message).toMatch(/"@" alone is git's name for HEAD/);
    });

    it('a case-colliding file leaves no empty folder in the topic', async () => {
      const repo = makeRepo(join(tmp.path, 'case-upstream'), { 'README.md': '# Case\n\nx.\n', 'Docs/guide.md': '# Guide\n\nUpper.\n', 'docs/guide.md': '# guide\n\nlower.\n' });
      const r = await create(root, { title: 'Case', body: '# Case\n\nx.\n', topic_id: 'topic-case', sources: [{ type: 'git', url: repo.url }] });
      expect(r.code, r.stderr).toBe(0);
      const names = readdirSync(topicDir('topic-case'));
      expect(names.filter((f) => f.toLowerCase() === 'docs')).toHaveLength(1);
      for (const f of names.filter((f) => f.toLowerCase() === 'docs')) expect(readdirSync(join(topicDir('topic-case'), f)).length).toBeGreaterThan(0);
    });

    it('the SKIPPED hint for a lock file names the file, not a folder like dist/', async () => {
      const repo = makeRepo(join(tmp.path, 'lock-upstream'), {
        'README.md': '# Lock\n\nx.\n',
        'Cargo.lock': '# lock\n',
        // dist/ is output only beside the code it was built from.
        'src/index.ts': 'export const a = 1;\n',
        'dist/index.js': 'export const a = 1;\n',
      });
      const r = await create(root, { title: 'Lock', body: '# Lock\n\nx.\n', topic_id: 'topic-lock', sources: [{ type: 'git', url: repo.url }] });
      expect(r.code, r.stderr).toBe(0);
      const lock = await cli(['get', '--topic', 'topic-lock', '--path', 'Cargo.lock', '--json'], { root });
      expect(lock.json.error).toMatchObject({ code: 'SKIPPED', reason: 'lockfile' });
      expect(lock.json.error.hint).toContain('`Cargo.lock`');
      expect(lock.json.error.hint).not.toContain('dist/');
      const generated = await cli(['get', '--topic', 'topic-lock', '--path', 'dist/index.js', '--json'], { root });
      expect(generated.json.error.hint).toContain('`dist/`');
    });
  });
});
