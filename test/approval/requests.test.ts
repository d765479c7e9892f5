/** Pending requests (operator mode) on a real folder: recording, deciding, using once, expiry. */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { claimApproval, decideRequest, findRequest, listRequests, recordRequest, requestHash } from '../../src/lib/approval/requests.js';
import { TkomaError } from '../../src/lib/errors.js';
import { tmpDir } from '../helpers/fixtures.js';

const tmp = tmpDir('tkoma-requests-');
afterAll(() => tmp.cleanup());

let n = 0;
function fields(canonical: string) {
  return { request_hash: requestHash(canonical), topic_id: 'topic-x', title: 'X', summary: 's', sources: [], requested_by: { via: 'cli' } };
}
function root(): string {
  const r = join(tmp.path, `root-${++n}`);
  mkdirSync(join(r, '.tkoma'), { recursive: true });
  return r;
}
const code = (e: unknown) => (e instanceof TkomaError ? e.code : String(e));

describe('approval requests', () => {
  it('asking twice for the same request is one pending request; another request is another', async () => {
    const r = root();
    const a = await recordRequest(r, fields('A'));
    expect(a).toMatchObject({ state: 'pending', request_id: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect((await recordRequest(r, fields('A'))).request_id).toBe(a.request_id);
    expect((await recordRequest(r, fields('B'))).request_id).not.toBe(a.request_id);
    expect((await listRequests(r)).map((q) => q.request_id).sort()).toHaveLength(2);
  });

  it('an approval is used once, even by racing claims', async () => {
    const r = root();
    const a = await recordRequest(r, fields('A'));
    expect(await claimApproval(r, a)).toBeNull(); // pending: nothing to use
    await decideRequest(r, a.request_id, 'approved', { by: 'operator' });
    const found = (await findRequest(r, requestHash('A')))!;
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimApproval(r, found)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await findRequest(r, requestHash('A'))).toBeNull(); // used: no live request
    expect((await listRequests(r, { all: true }))[0]!.state).toBe('used');
    expect(code(await decideRequest(r, a.request_id, 'approved', { by: 'operator' }).catch((e) => e))).toBe('APPROVAL_NOT_FOUND');
  });

  it('a released claim (the fetch failed, nothing created) stands again', async () => {
    const r = root();
    const a = await recordRequest(r, fields('A'));
    await decideRequest(r, a.request_id, 'approved', { by: 'operator' });
    const claim = (await claimApproval(r, (await findRequest(r, requestHash('A')))!))!;
    await claim.release();
    expect((await findRequest(r, requestHash('A')))!.state).toBe('approved');
  });

  it('expiry: an expired approval is not found, cannot be decided, is listed as expired, and is pruned a week later', async () => {
    const r = root();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const a = await recordRequest(r, fields('A'), t0);
    await decideRequest(r, a.request_id, 'approved', { by: 'operator' }, t0 + 1000);
    const eightDays = t0 + 8 * 24 * 3600 * 1000;
    expect(await findRequest(r, requestHash('A'), eightDays)).toBeNull();
    expect(code(await decideRequest(r, a.request_id, 'denied', { by: 'operator' }, eightDays).catch((e) => e))).toBe('APPROVAL_EXPIRED');
    expect((await listRequests(r, { all: true }, eightDays))[0]!.state).toBe('expired');
    expect(await listRequests(r, {}, eightDays)).toEqual([]);
    await listRequests(r, { all: true }, t0 + 15 * 24 * 3600 * 1000);
    expect(readdirSync(join(r, '.tkoma', 'approvals')).filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('a damaged record approves nothing and is dropped; bad ids are refused before any read', async () => {
    const r = root();
    const a = await recordRequest(r, fields('A'));
    writeFileSync(join(r, '.tkoma', 'approvals', `${a.request_id}.json`), '{"state":"approved"');
    expect(await findRequest(r, requestHash('A'))).toBeNull();
    expect(code(await decideRequest(r, '../../x', 'approved', { by: 'operator' }).catch((e) => e))).toBe('INVALID_INPUT');
  });
});
