/**
 * Token approval (`[approval] mode = "token"`, for gateways that hold the token themselves, as the
 * seed designs). Phase 1 answers a token bound to
 * exactly what would be fetched: the topic id and title and every source's type, url, ref and
 * paths. Body, tags, trust and max age do not change what is fetched, so they may be edited between
 * the phases. The token is an HMAC with a per-root secret kept in `.tkoma/`, with an expiry.
 *
 * Limit, said plainly: a ghost with shell access to the same machine can read that secret. The
 * token protects against a ghost approving a *different* request by mistake, and gives gateways
 * a fixed string to look for; it is not a defence against a hostile local process.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { TkomaError } from '../errors.js';
import { stateDir } from '../store/root.js';

export const APPROVAL_REASON = 'REFERENCE_TOPIC_CREATE';
const TOKEN_VERSION = 'v1';
const DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

export interface ApprovableSource {
  type: string;
  url: string;
  ref?: string;
  paths?: string[];
  /** npm and git: the version asked for (npm's package is in `url`, `npm:<package>`). */
  version?: string;
  /** A crawl's bound is part of what the operator approves. */
  crawl?: { scope: string; include?: string[]; exclude?: string[]; max_pages: number; max_depth: number };
}

/** The exact bytes a token is bound to. Pure; key order and path order do not matter. */
export function canonicalRequest(req: { topic_id: string; title: string; sources: ApprovableSource[] }): string {
  return JSON.stringify({
    topic_id: req.topic_id,
    title: req.title,
    sources: req.sources.map((s) => ({
      type: s.type,
      url: s.url,
      ref: s.ref ?? null,
      paths: s.paths ? [...s.paths].sort() : null,
      // Only when given: tokens of requests without a version keep their bytes.
      ...(s.version !== undefined ? { version: s.version } : {}),
      // Only crawls carry the key: tokens of other requests read as they always did.
      ...(s.crawl ? { crawl: { scope: s.crawl.scope, include: s.crawl.include ?? null, exclude: s.crawl.exclude ?? null, max_pages: s.crawl.max_pages, max_depth: s.crawl.max_depth } } : {}),
    })),
  });
}

function sign(secret: Buffer, canonical: string, expires: number): string {
  return createHmac('sha256', secret).update(`${TOKEN_VERSION}\n${expires}\n${canonical}`).digest('base64url');
}

/** Pure: token for a canonical request with a given secret and expiry (unix seconds). */
export function makeToken(secret: Buffer, canonical: string, expires: number): string {
  return `${TOKEN_VERSION}.${expires}.${sign(secret, canonical, expires)}`;
}

/** Pure: why `token` does not approve `canonical`, or null when it does. */
export function tokenProblem(secret: Buffer, canonical: string, token: string, nowSeconds: number): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== TOKEN_VERSION || !/^\d+$/.test(parts[1])) return 'malformed token';
  const expires = Number(parts[1]);
  const expected = Buffer.from(sign(secret, canonical, expires));
  const given = Buffer.from(parts[2]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return 'the token was issued for a different request (title, sources, refs or paths differ) or another knowledge root';
  }
  if (expires < nowSeconds) return 'the token has expired; run the request again without --approve to get a new one';
  return null;
}

async function rootSecret(root: string): Promise<Buffer> {
  const file = join(stateDir(root), 'approval.key');
  try {
    const hex = (await readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
  } catch {
    // first use: create below
  }
  await mkdir(stateDir(root), { recursive: true });
  const secret = randomBytes(32);
  await writeFile(file, secret.toString('hex') + '\n', { mode: 0o600 });
  return secret;
}

export async function issueToken(root: string, canonical: string, ttlSeconds = DEFAULT_TTL_SECONDS): Promise<{ token: string; expires_at: string }> {
  const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
  return { token: makeToken(await rootSecret(root), canonical, expires), expires_at: new Date(expires * 1000).toISOString() };
}

export async function verifyToken(root: string, canonical: string, token: string): Promise<void> {
  const problem = tokenProblem(await rootSecret(root), canonical, token, Math.floor(Date.now() / 1000));
  if (problem) throw new TkomaError('INVALID_TOKEN', `approval token refused: ${problem}`);
}

/**
 * A token approves one create, once: its use is recorded (`wx`: of two racing calls one wins),
 * so a replay, or a replay after the topic was deleted, is refused. `release` takes the record
 * back when the fetch failed before anything was created. A record is pruned once its token has
 * expired (an expired token is refused anyway).
 */
export async function spendToken(root: string, token: string): Promise<() => Promise<void>> {
  const folder = join(stateDir(root), 'approvals', 'used-tokens');
  await mkdir(folder, { recursive: true });
  const now = Math.floor(Date.now() / 1000);
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const expires = Number(name.split('.')[0]);
    if (Number.isFinite(expires) && expires < now) await rm(join(folder, name), { force: true });
  }
  const expires = token.split('.')[1] ?? '0';
  const file = join(folder, `${expires}.${createHash('sha256').update(token).digest('hex').slice(0, 32)}`);
  try {
    await writeFile(file, new Date().toISOString() + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new TkomaError('INVALID_TOKEN', 'approval token refused: it was already used (a token approves one create, once); run the request again without --approve to get a new one');
    }
    throw err;
  }
  return () => rm(file, { force: true });
}

/** The line gateways look for on stderr. */
export function approvalLine(summary: string): string {
  return `APPROVAL_REQUIRED:${APPROVAL_REASON}:${summary}`;
}
