/**
 * Operator-mode approvals. Phase 1 records a pending request in `.tkoma/approvals/` (the root's
 * state: never committed, never seen by the MCP tools); the operator decides with `approvals`,
 * `approve ID` and `deny ID`; the ghost's identical request then proceeds once, or learns the
 * denial. A request is bound to the sha256 of the canonical request (src/lib/approval/token.ts),
 * so a changed request is a new one. The id is only a handle for the operator: nothing a ghost
 * can send approves anything.
 *
 * One file per request, replaced whole by rename. Using an approval renames the file away first,
 * so of two identical calls racing, exactly one gets it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { TkomaError } from '../errors.js';
import { stateDir } from '../store/root.js';
import type { ApprovalRequired } from '../topics/create-approval.js';
import type { SourceDetails } from '../topics/create-probe.js';

export const REQUEST_TTL_SECONDS = 7 * 24 * 3600;
/** Decided and expired requests stay listed (`approvals --all`) this long after they expire. */
const KEEP_AFTER_EXPIRY_MS = 7 * 24 * 3600 * 1000;
const ID_PATTERN = /^[0-9a-f]{8}$/;

export type RequestState = 'pending' | 'approved' | 'denied' | 'used';

export interface Requester {
  ghost?: string;
  model?: string;
  /** `cli`, or `mcp` with the client's name. */
  via: string;
}

export interface ApprovalRecord {
  request_id: string;
  /** sha256 of the canonical request: what an approval is bound to. */
  request_hash: string;
  state: RequestState;
  topic_id: string;
  title: string;
  summary: string;
  /** What phase 1 found, source by source (full URLs, local paths), for the operator. */
  sources: SourceDetails[];
  estimate?: ApprovalRequired['estimate'];
  requested_by: Requester;
  requested_at: string;
  expires_at: string;
  decided_at?: string;
  /** `operator` (the approve/deny commands) or `elicitation` (the MCP host's dialog). */
  decided_by?: string;
  note?: string;
  used_at?: string;
}

/** A record as listed: `expired` is computed, never stored. */
export type ListedRecord = Omit<ApprovalRecord, 'state'> & { state: RequestState | 'expired' };

export function requestHash(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex');
}

function dir(root: string): string {
  return join(stateDir(root), 'approvals');
}

function fileOf(root: string, id: string): string {
  return join(dir(root), `${id}.json`);
}

/** Pure: has this record's time run out (decided ones too: an unused approval expires). */
export function isExpired(r: Pick<ApprovalRecord, 'expires_at'>, now: number): boolean {
  return Date.parse(r.expires_at) <= now;
}

export function listedState(r: ApprovalRecord, now: number): ListedRecord['state'] {
  return r.state !== 'used' && isExpired(r, now) ? 'expired' : r.state;
}

async function write(root: string, r: ApprovalRecord): Promise<void> {
  await mkdir(dir(root), { recursive: true });
  const tmp = join(dir(root), `.${r.request_id}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`);
  await writeFile(tmp, JSON.stringify(r, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, fileOf(root, r.request_id));
}

function parse(text: string): ApprovalRecord | null {
  try {
    const r = JSON.parse(text) as ApprovalRecord;
    return typeof r.request_id === 'string' && ID_PATTERN.test(r.request_id) && typeof r.request_hash === 'string' && typeof r.expires_at === 'string' ? r : null;
  } catch {
    return null; // a damaged record approves nothing; it is dropped at the next prune
  }
}

/** Every readable record, oldest first; records long past their expiry are removed on the way. */
export async function readRequests(root: string, now = Date.now()): Promise<ApprovalRecord[]> {
  let names: string[];
  try {
    names = (await readdir(dir(root))).filter((n) => n.endsWith('.json') && ID_PATTERN.test(n.slice(0, -5)));
  } catch {
    return [];
  }
  const out: ApprovalRecord[] = [];
  for (const name of names) {
    const text = await readFile(join(dir(root), name), 'utf8').catch(() => null);
    if (text === null) continue; // taken by a racing use
    const r = parse(text);
    if (!r || Date.parse(r.expires_at) + KEEP_AFTER_EXPIRY_MS <= now) {
      await rm(join(dir(root), name), { force: true });
      continue;
    }
    out.push(r);
  }
  return out.sort((a, b) => a.requested_at.localeCompare(b.requested_at));
}

/** The live (unexpired, unused) record for this request, if any. */
export async function findRequest(root: string, hash: string, now = Date.now()): Promise<ApprovalRecord | null> {
  const live = (await readRequests(root, now)).filter((r) => r.request_hash === hash && r.state !== 'used' && !isExpired(r, now));
  return live.at(-1) ?? null;
}

/** Phase 1 in operator mode: the pending request for this exact request (the same one when asked again). */
export async function recordRequest(
  root: string,
  fields: Omit<ApprovalRecord, 'request_id' | 'state' | 'requested_at' | 'expires_at'>,
  now = Date.now(),
): Promise<ApprovalRecord> {
  const existing = await findRequest(root, fields.request_hash, now);
  if (existing && existing.state === 'pending') return existing;
  let id = randomBytes(4).toString('hex');
  while ((await readFile(fileOf(root, id)).catch(() => null)) !== null) id = randomBytes(4).toString('hex');
  const r: ApprovalRecord = {
    request_id: id,
    ...fields,
    state: 'pending',
    requested_at: new Date(now).toISOString(),
    expires_at: new Date(now + REQUEST_TTL_SECONDS * 1000).toISOString(),
  };
  await write(root, r);
  return r;
}

export function validRequestId(id: string): string {
  const v = id.trim().toLowerCase();
  if (!ID_PATTERN.test(v)) throw new TkomaError('INVALID_INPUT', `request id must be the 8 hex characters \`tkoma-ref approvals\` shows (got ${JSON.stringify(id)})`, { field: 'id' });
  return v;
}

async function readOne(root: string, id: string): Promise<ApprovalRecord> {
  const text = await readFile(fileOf(root, id), 'utf8').catch(() => null);
  const r = text === null ? null : parse(text);
  if (!r) throw new TkomaError('APPROVAL_NOT_FOUND', `no approval request ${id}: \`tkoma-ref approvals --all\` lists them`, { request_id: id });
  return r;
}

/** The operator's decision (the approve/deny commands, or an answered elicitation). */
export async function decideRequest(root: string, id: string, decision: 'approved' | 'denied', opts: { note?: string; by: string }, now = Date.now()): Promise<ApprovalRecord> {
  const r = await readOne(root, validRequestId(id));
  if (r.state === 'used') throw new TkomaError('APPROVAL_NOT_FOUND', `request ${r.request_id} was approved and used at ${r.used_at}: it cannot be decided again`, { request_id: r.request_id, state: r.state });
  if (isExpired(r, now)) {
    throw new TkomaError('APPROVAL_EXPIRED', `request ${r.request_id} expired at ${r.expires_at}: the ghost must ask again`, { request_id: r.request_id, expires_at: r.expires_at });
  }
  const decided: ApprovalRecord = { ...r, state: decision, decided_at: new Date(now).toISOString(), decided_by: opts.by };
  if (opts.note) decided.note = opts.note;
  else delete decided.note;
  await write(root, decided);
  return decided;
}

/**
 * Takes an approved record for use: it is renamed away first, so two racing calls cannot both
 * have it. Answers null when another call took it meanwhile or it is no longer approved.
 */
export async function claimApproval(root: string, r: ApprovalRecord, now = Date.now()): Promise<{ record: ApprovalRecord; release: () => Promise<void> } | null> {
  const claimed = join(dir(root), `.${r.request_id}.claim.${process.pid}.${randomBytes(3).toString('hex')}`);
  try {
    await rename(fileOf(root, r.request_id), claimed);
  } catch {
    return null;
  }
  const current = parse(await readFile(claimed, 'utf8').catch(() => ''));
  if (!current || current.state !== 'approved' || isExpired(current, now)) {
    await rename(claimed, fileOf(root, r.request_id)).catch(() => undefined);
    return null;
  }
  await write(root, { ...current, state: 'used', used_at: new Date(now).toISOString() });
  await rm(claimed, { force: true });
  return {
    record: current,
    // The fetch failed before anything was created: the operator's yes still stands for this request.
    release: () => write(root, current),
  };
}

/** `tkoma-ref approvals`: pending requests (all of them with `all`), each with its state as of now. */
export async function listRequests(root: string, opts: { all?: boolean } = {}, now = Date.now()): Promise<ListedRecord[]> {
  const listed = (await readRequests(root, now)).map((r) => ({ ...r, state: listedState(r, now) }));
  return opts.all ? listed : listed.filter((r) => r.state === 'pending');
}
