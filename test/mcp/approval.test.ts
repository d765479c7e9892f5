/**
 * Approval over MCP, as a hostile ghost would try it: the built binary's `mcp` with the SDK
 * Client over stdio. Operator mode (the default): no sequence of the ghost's own calls creates a
 * topic; the operator's `approve` (CLI) or an explicit approve in the host's dialog does, once.
 * Token mode: a token approves its own request once. Elicitation: only accept + approve proceeds;
 * decline, deny, dismiss and no answer create nothing and leak no token.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, operatorApproves, tmpDir } from '../helpers/fixtures.js';
import { call, connect, type Connected } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-approval-');
const TOKEN = /v1\.\d+\.[A-Za-z0-9_-]{20,}/;

let n = 0;
/** A fresh small repository and the request that names it. */
function request(extra: Record<string, unknown> = {}) {
  n += 1;
  const repo = makeRepo(join(tmp.path, `repo-${n}`), { 'README.md': `# Pulleys ${n}\n\nA pulley changes the direction of a rope force.\n`, 'docs/blocks.md': '# Blocks\n\nMore sheaves.\n' });
  return { title: `Pulleys ${n}`, body: 'Pulleys.', sources: [{ type: 'git', url: repo.url }], ...extra };
}

async function topicIds(root: string): Promise<string[]> {
  return ((await cli(['topic', 'list', '--json'], { root })).json as { topic_id: string }[]).map((t) => t.topic_id);
}

async function makeRoot(name: string, mode?: 'token'): Promise<string> {
  const root = join(tmp.path, name);
  await freshRoot(root, { approval: mode });
  return root;
}

afterAll(() => tmp.cleanup());

describe('operator mode (the default), a host without elicitation', () => {
  let root: string;
  let ghost: Connected;
  beforeAll(async () => {
    root = await makeRoot('kb-operator');
    ghost = await connect(root);
  });
  afterAll(() => ghost?.close());

  it('phase 1 is a pending request with every source in full, and no token anywhere', async () => {
    const req = request();
    const ask = await call(ghost, 'reference_topic_create', req);
    expect(ask.isError, ask.text).toBe(false);
    expect(ask.data).toMatchObject({ status: 'approval_required', approval_mode: 'operator', request_id: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(ask.data.summary).toContain(`local repository ${new URL(req.sources[0]!.url).pathname}`);
    expect(ask.text.split('\n')[0]).toBe(`APPROVAL_REQUIRED:REFERENCE_TOPIC_CREATE:${ask.data.summary}`);
    expect(ask.text).toContain(`tkoma-ref approve ${ask.data.request_id}`);
    expect(JSON.stringify(ask.data) + ask.text).not.toMatch(TOKEN);
    const listed = (await cli(['approvals', '--json'], { root })).json.requests;
    expect(listed).toEqual([expect.objectContaining({ request_id: ask.data.request_id, state: 'pending', requested_by: expect.objectContaining({ via: 'mcp (vitest)' }) })]);
    expect(listed[0].sources[0].display_name).toBe(`local repository ${new URL(req.sources[0]!.url).pathname}`);
  });

  it('no sequence of its own calls lets the ghost create: replay, forged token, guessed id, changed request', async () => {
    const req = request();
    const head = git(root, 'rev-parse', 'HEAD');
    const ask = await call(ghost, 'reference_topic_create', req);
    const id = ask.data.request_id as string;
    const replay = await call(ghost, 'reference_topic_create', req);
    expect(replay.data).toMatchObject({ status: 'approval_required', request_id: id }); // the same request, still pending
    const forged = await call(ghost, 'reference_topic_create', { ...req, approval_token: `v1.${Math.floor(Date.now() / 1000) + 3600}.${'A'.repeat(43)}` });
    expect(forged.data.error.code).toBe('INVALID_TOKEN');
    const guessed = await call(ghost, 'reference_topic_create', { ...req, request_id: id });
    expect(guessed.data.error).toMatchObject({ code: 'INVALID_INPUT', field: 'request_id' });
    const changed = await call(ghost, 'reference_topic_create', { ...req, title: `${req.title} (bigger)` });
    expect(changed.data.request_id).not.toBe(id);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(await topicIds(root)).toEqual([]);

    // The operator approves the first; the changed request is still not approved.
    await operatorApproves(root, id);
    const still = await call(ghost, 'reference_topic_create', { ...req, title: `${req.title} (bigger)` });
    expect(still.data.status).toBe('approval_required');
    const done = await call(ghost, 'reference_topic_create', req);
    expect(done.isError, done.text).toBe(false);
    expect(done.data).toMatchObject({ status: 'created', file_count: 2 });

    // Used once: after a delete, the identical request is a new question for the operator.
    expect((await cli(['delete', done.data.topic_id, '--yes'], { root })).code).toBe(0);
    const again = await call(ghost, 'reference_topic_create', req);
    expect(again.data.status).toBe('approval_required');
    expect(again.data.request_id).not.toBe(id);
    expect(await topicIds(root)).toEqual([]);
  });

  it("the operator's denial and note reach the ghost; a smaller request is asked again", async () => {
    const req = request();
    const ask = await call(ghost, 'reference_topic_create', req);
    const denied = await cli(['deny', ask.data.request_id, '--note', 'too big: only docs/', '--json'], { root });
    expect(denied.json).toMatchObject({ state: 'denied', note: 'too big: only docs/', decided_by: 'operator' });
    const r = await call(ghost, 'reference_topic_create', req);
    expect(r.isError).toBe(true);
    expect(r.text.split('\n')[0]).toBe('APPROVAL_DENIED:REFERENCE_TOPIC_CREATE:too big: only docs/');
    expect(r.data.error).toMatchObject({ code: 'APPROVAL_DENIED', request_id: ask.data.request_id, note: 'too big: only docs/' });
    const smaller = await call(ghost, 'reference_topic_create', { ...req, sources: [{ ...req.sources[0], paths: ['docs/'] }] });
    expect(smaller.data).toMatchObject({ status: 'approval_required' });
    expect(smaller.data.request_id).not.toBe(ask.data.request_id);
    expect(await topicIds(root)).toEqual([]);
  });

  it('an expired approval approves nothing, and the operator cannot decide an expired request', async () => {
    const req = request();
    const ask = await call(ghost, 'reference_topic_create', req);
    const id = ask.data.request_id as string;
    await operatorApproves(root, id);
    // Seven days pass: the request's own record says it expired an hour ago.
    const file = join(root, '.tkoma', 'approvals', `${id}.json`);
    const record = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...record, expires_at: new Date(Date.now() - 3600_000).toISOString() }));
    const r = await call(ghost, 'reference_topic_create', req);
    expect(r.data.status).toBe('approval_required');
    expect(r.data.request_id).not.toBe(id);
    expect(await topicIds(root)).toEqual([]);
    const late = await cli(['approve', id, '--json'], { root });
    expect(late.json.error.code).toBe('APPROVAL_EXPIRED');
    expect((await cli(['approvals', '--all', '--json'], { root })).json.requests.find((q: { request_id: string }) => q.request_id === id).state).toBe('expired');
  });

  it('two identical calls racing after one approval: exactly one creates', async () => {
    const req = request();
    const ask = await call(ghost, 'reference_topic_create', req);
    await operatorApproves(root, ask.data.request_id);
    const second = await connect(root);
    try {
      const [a, b] = await Promise.all([call(ghost, 'reference_topic_create', req), call(second, 'reference_topic_create', req)]);
      const created = [a, b].filter((r) => r.data?.status === 'created');
      expect(created).toHaveLength(1);
      const other = [a, b].find((r) => r !== created[0])!;
      // The loser either found the approval used (a new question) or the topic already there.
      expect(other.data.status === 'approval_required' || other.data.error?.code === 'TOPIC_EXISTS', other.text).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe('elicitation: only an explicit approve proceeds', () => {
  let root: string;
  let host: Connected;
  let slowHost: Connected;
  beforeAll(async () => {
    root = await makeRoot('kb-elicit');
    host = await connect(root, { elicitation: true });
    slowHost = await connect(root, { elicitation: true, env: { TKOMA_REF_ELICITATION_TIMEOUT: '1' } });
  });
  afterAll(async () => {
    await host?.close();
    await slowHost?.close();
  });

  it('accept + approve creates; the operator saw every source in full; the request is recorded as used', async () => {
    const req = request();
    host.reply.next = () => ({ action: 'accept', content: { decision: 'approve' } });
    const r = await call(host, 'reference_topic_create', req);
    expect(r.isError, r.text).toBe(false);
    expect(r.data).toMatchObject({ status: 'created', file_count: 2 });
    const asked = host.elicited.at(-1)!;
    expect(asked).toContain(`Create reference topic '${req.title}'`);
    expect(asked).toContain(`local repository ${new URL(req.sources[0]!.url).pathname}`);
    const all = (await cli(['approvals', '--all', '--json'], { root })).json.requests;
    expect(all.find((q: { topic_id: string }) => q.topic_id === r.data.topic_id)).toMatchObject({ state: 'used', decided_by: 'elicitation' });
  });

  it('accept + deny and decline: denied with the note, recorded; asking again does not reopen it', async () => {
    const req = request();
    host.reply.next = () => ({ action: 'accept', content: { decision: 'deny', note: 'only docs/' } });
    const denied = await call(host, 'reference_topic_create', req);
    expect(denied.isError).toBe(true);
    expect(denied.data).toMatchObject({ status: 'approval_denied', operator_note: 'only docs/' });
    expect(denied.text.split('\n')[0]).toBe('APPROVAL_DENIED:REFERENCE_TOPIC_CREATE:only docs/');
    const shown = host.elicited.length;
    host.reply.next = () => ({ action: 'accept', content: { decision: 'approve' } });
    const again = await call(host, 'reference_topic_create', req);
    expect(again.data.error.code).toBe('APPROVAL_DENIED');
    expect(host.elicited.length).toBe(shown); // the operator already answered this exact request

    const other = request();
    host.reply.next = () => ({ action: 'decline' });
    const declined = await call(host, 'reference_topic_create', other);
    expect(declined.data.status).toBe('approval_denied');
    expect(JSON.stringify(denied.data) + JSON.stringify(declined.data)).not.toMatch(TOKEN);
    expect(await topicIds(root)).not.toContain(`topic-pulleys-${n}`);
  });

  it('dismissed (cancel) and unanswered (timeout): not approved, no token, the request stays for the operator', async () => {
    const req = request();
    host.reply.next = () => ({ action: 'cancel' });
    const dismissed = await call(host, 'reference_topic_create', req);
    expect(dismissed.isError).toBe(false);
    expect(dismissed.data).toMatchObject({ status: 'approval_required', not_approved: 'the operator dismissed the dialog' });
    expect(JSON.stringify(dismissed.data) + dismissed.text).not.toMatch(TOKEN);

    const quiet = request();
    slowHost.reply.next = () => new Promise(() => undefined); // the operator never answers
    const unanswered = await call(slowHost, 'reference_topic_create', quiet);
    expect(unanswered.data).toMatchObject({ status: 'approval_required', not_approved: 'the operator did not answer in time' });
    expect(JSON.stringify(unanswered.data) + unanswered.text).not.toMatch(TOKEN);
    const ids = await topicIds(root);
    expect(ids).not.toContain(dismissed.data.topic_id);
    expect(ids).not.toContain(unanswered.data.topic_id);

    // The operator may still say yes at the shell; the ghost's identical call then proceeds without a dialog.
    await operatorApproves(root, dismissed.data.request_id);
    const shown = host.elicited.length;
    const done = await call(host, 'reference_topic_create', req);
    expect(done.data.status, done.text).toBe('created');
    expect(host.elicited.length).toBe(shown);
  });
});

describe('token mode (for gateways that hold the token)', () => {
  let root: string;
  let ghost: Connected;
  let host: Connected;
  beforeAll(async () => {
    root = await makeRoot('kb-token', 'token');
    ghost = await connect(root);
    host = await connect(root, { elicitation: true });
  });
  afterAll(async () => {
    await ghost?.close();
    await host?.close();
  });

  it('a token approves its own request, once: not another request, not twice, not after a delete', async () => {
    const req = request();
    const ask = await call(ghost, 'reference_topic_create', req);
    expect(ask.data).toMatchObject({ status: 'approval_required', approval_mode: 'token', token: expect.stringMatching(TOKEN) });
    expect(ask.data.request_id).toBeUndefined();
    const wrong = await call(ghost, 'reference_topic_create', { ...req, title: 'Other', approval_token: ask.data.token });
    expect(wrong.data.error.code).toBe('INVALID_TOKEN');
    const done = await call(ghost, 'reference_topic_create', { ...req, approval_token: ask.data.token });
    expect(done.data.status, done.text).toBe('created');
    expect((await cli(['delete', done.data.topic_id, '--yes'], { root })).code).toBe(0);
    const replay = await call(ghost, 'reference_topic_create', { ...req, approval_token: ask.data.token });
    expect(replay.data.error).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(replay.data.error.message).toMatch(/already used/);
    expect(await topicIds(root)).toEqual([]);
  });

  it('with elicitation, a dismissed dialog hands out no token; approve creates', async () => {
    const req = request();
    host.reply.next = () => ({ action: 'cancel' });
    const dismissed = await call(host, 'reference_topic_create', req);
    expect(dismissed.data.status).toBe('approval_required');
    expect(JSON.stringify(dismissed.data) + dismissed.text).not.toMatch(TOKEN);
    host.reply.next = () => ({ action: 'accept', content: { decision: 'approve' } });
    const done = await call(host, 'reference_topic_create', req);
    expect(done.data.status, done.text).toBe('created');
  });
});
