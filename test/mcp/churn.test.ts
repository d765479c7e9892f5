/**
 * Nobody waits behind a sync (issue 25, items 2, 4 and 8), through a hand-written JSON-RPC client
 * over the real server's stdio. The server runs with TKOMA_REF_HOLD_AT=index:writing: every sync
 * that writes a segment waits there until the release file exists, so a sync is provably in
 * progress while we ask.
 * - a search answers from the last whole index of its topic while a sync of that topic (or
 *   another) runs, and says how far behind it is (`index_lag`);
 * - a create that is indexing does not block a search;
 * - a cancel that arrives after the create committed is answered with the created topic.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, operatorApproves, tmpDir } from '../helpers/fixtures.js';
import { RawClient } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-churn-');
const root = join(tmp.path, 'kb');
let c: RawClient;

const release = join(tmp.path, 'release');
const holds = (): number => c.stderr.split('held at index:writing').length - 1;
/** Lets every sync through until `done` resolves, then holds the next ones again. */
async function releaseUntil<T>(done: Promise<T>): Promise<T> {
  writeFileSync(release, '');
  try {
    return await done;
  } finally {
    rmSync(release, { force: true });
  }
}

beforeAll(async () => {
  await freshRoot(root);
  for (const [title, text] of [
    ['Alpha', '# Alpha\n\nAlpha gears mesh at the fulcrum.\n'],
    ['Beta', '# Beta\n\nBeta pulleys lift with rope.\n'],
  ] as const) {
    const repo = makeRepo(join(tmp.path, title), { 'README.md': text });
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', title, '--git', repo.url], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }
  c = new RawClient(root, { TKOMA_REF_HOLD_AT: 'index:writing', TKOMA_REF_HOLD_UNTIL: release });
  await c.initialize();
  // The first call waits for the warm-up: the watcher is running after it. Its first reconcile
  // runs after that answer (issue 27): wait until it is done, so every lag below is a sync's.
  for (;;) {
    const first = await c.request('tools/call', { name: 'reference_search', arguments: { topic: 'topic-alpha', question: 'fulcrum' } });
    expect(first.result.isError, JSON.stringify(first)).toBeFalsy();
    if (!first.result.structuredContent.index_lag) break;
    await new Promise((res) => setTimeout(res, 50));
  }
});

afterAll(async () => {
  if (c && c.child.exitCode === null) {
    c.child.stdin.end();
    await releaseUntil(c.exited);
  }
  tmp.cleanup();
});

const search = (topic: string, question: string): Promise<any> => c.request('tools/call', { name: 'reference_search', arguments: { topic, question } });

describe('searches during a sync', () => {
  it('answer from the last index, with index_lag, while the sync of that topic is held', async () => {
    const before = holds();
    mkdirSync(join(root, 'references', 'topic-alpha', 'docs'), { recursive: true });
    writeFileSync(join(root, 'references', 'topic-alpha', 'docs', 'airship.md'), '# Airship\n\nThe zeppelin floats on hydrogen.\n');
    await c.until(() => holds() > before, 'the watcher sync to reach its hold');

    const same = await search('topic-alpha', 'fulcrum');
    expect(same.result.isError).toBeFalsy();
    expect(same.result.structuredContent.results[0].path).toBe('README.md');
    expect(same.result.structuredContent.index_lag).toMatchObject({ syncing: true });
    expect(same.result.structuredContent.index_lag.behind_ms).toBeGreaterThanOrEqual(0);
    expect(same.result.content[0].text).toMatch(/answered from the index as it was/);
    // Not synced yet: the new file is not in the index it answered from.
    const notYet = await search('topic-alpha', 'zeppelin hydrogen');
    expect(notYet.result.structuredContent.results.map((h: { path: string }) => h.path)).not.toContain('docs/airship.md');

    const other = await search('topic-beta', 'pulleys rope');
    expect(other.result.structuredContent.results[0].path).toBe('README.md');
    expect(other.result.structuredContent.index_lag).toBeUndefined();

    // Released: a search soon sees the file, and the lag is gone.
    const after = await releaseUntil(
      (async () => {
        for (;;) {
          const r = await search('topic-alpha', 'zeppelin hydrogen');
          const sc = r.result.structuredContent;
          if (!sc.index_lag && sc.results.some((h: { path: string }) => h.path === 'docs/airship.md')) return sc;
          await new Promise((res) => setTimeout(res, 100));
        }
      })(),
    );
    expect(after.results[0].path).toBe('docs/airship.md');
  });
});

describe('a create that is indexing', () => {
  it('blocks no search, and a cancel after its commit is answered with the created topic', async () => {
    const repo = makeRepo(join(tmp.path, 'gamma'), { 'README.md': '# Gamma\n\nGamma rays are short waves.\n' });
    const args = { title: 'Gamma', body: 'Gamma rays.', sources: [{ type: 'git', url: repo.url }] };
    const ask = await c.request('tools/call', { name: 'reference_topic_create', arguments: args });
    await operatorApproves(root, ask.result.structuredContent.request_id);

    const before = holds();
    const id = c.send('tools/call', { name: 'reference_topic_create', arguments: args, _meta: { progressToken: 'create-1' } });
    await c.waitFor((m) => m.method === 'notifications/progress' && m.params.progressToken === 'create-1' && /^Index/.test(m.params.message ?? ''), 'the Index step');
    await c.until(() => holds() > before, 'a sync held at index:writing');
    expect(existsSync(join(root, 'references', 'topic-gamma', 'topic.md'))).toBe(true); // committed

    // A search meanwhile is answered (the create holds no gate).
    const meanwhile = await search('topic-beta', 'pulleys');
    expect(meanwhile.result.structuredContent.results[0].path).toBe('README.md');

    c.notify('notifications/cancelled', { requestId: id, reason: 'the user pressed stop' });
    const answer = await releaseUntil(c.waitFor((m) => m.id === id, 'the answer to the cancelled create'));
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent).toMatchObject({ status: 'created', topic_id: 'topic-gamma', cancel_too_late: true });
    expect(answer.result.content[0].text).toMatch(/cancel came too late/);
    expect(c.messages.filter((m) => m.id === id)).toHaveLength(1);
    const list = await c.request('tools/call', { name: 'reference_topic_list', arguments: {} });
    expect(list.result.structuredContent.topics.map((t: { topic_id: string }) => t.topic_id)).toContain('topic-gamma');
  });
});
