/**
 * The one lock mechanism of a knowledge root, under two names in `.tkoma/`:
 *  - `write.lock`: one writer at a time for every mutation of the files and every commit;
 *  - `index.lock`: one writer at a time for the derived index (sync, rebuild): withIndexLock.
 * Lock order is write → index (a mutation may index after its commit, never the reverse), so the
 * two cannot deadlock. Both are directories holding an `owner` file (JSON: pid, command, since,
 * hostname, process start time, a nonce).
 *
 * Taking a lock is one atomic step: a private temp directory that already holds the owner file is
 * renamed to the lock path (rename(2) refuses a non-empty target), so a lock never exists without
 * its owner. A lock whose owner process is gone (same host, pid dead or reused) is broken safely:
 * the breaker first claims it by renaming its own owner directory to `<lock>/takeover-<id>` (again
 * atomic, so only one breaker wins), re-reads the owner to be sure it is still the dead one, then
 * moves the lock aside. A breaker that dies while claiming is itself broken the same way.
 * Owner files carry a nonce, so no two lock instances ever read the same.
 *
 * Inside one process, calls queue on a promise chain and a call made while the same async context
 * already holds the lock runs at once (re-entrant), so nested helpers never deadlock themselves.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join, resolve } from 'node:path';

import { environmentError, TkomaError } from './errors.js';
import { pidAlive } from './process.js';
import { envSetting } from './settings.js';

export type LockName = 'write' | 'index' | 'vectors';

export interface LockHolder {
  pid: number;
  command: string;
  since: string;
  hostname: string;
  /** Start time of the process (Linux clock ticks since boot) so a reused pid is not "alive". */
  start?: number;
  nonce?: string;
}

export const OWNER_FILE = 'owner';
/** Write-lock wait unless TKOMA_REF_LOCK_TIMEOUT (seconds) says otherwise. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
/** Index syncs may embed for minutes; waiting for one is normal. */
export const DEFAULT_INDEX_TIMEOUT_MS = 10 * 60_000;

export function lockPath(root: string, name: LockName): string {
  return join(root, '.tkoma', `${name}.lock`);
}

/**
 * READ_ONLY unless the root can be written (a read-only mount, or permissions). Readers never
 * call this: a read-only root still answers searches from the index it has.
 */
export function assertWritable(root: string): void {
  try {
    accessSync(root, constants.W_OK);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT') return; // created by the caller
    throw environmentError(code, `the knowledge root ${root} is not writable`) ?? err;
  }
}

/** The write-lock timeout from the environment (seconds), else 30 s. */
export function writeLockTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = envSetting('lockTimeout', env);
  return seconds === undefined ? DEFAULT_WRITE_TIMEOUT_MS : Math.round(seconds * 1000);
}

/** What a command line looks like in a lock: the binary and its command words, never flag values. */
export function commandLine(argv: string[] = process.argv.slice(2)): string {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-') || words.length === 2 || !/^[a-z][a-z-]*$/.test(a)) break;
    words.push(a);
  }
  return ['tkoma-ref', ...words].join(' ');
}

/** Linux: the process's start time from /proc; undefined elsewhere or when it is gone. */
export function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * False only when we are sure the holder is gone: same host, and its pid is dead or now belongs
 * to a process that started later. A holder on another host is always presumed alive.
 */
export function holderAlive(h: Pick<LockHolder, 'pid' | 'hostname' | 'start'>): boolean {
  if (h.hostname && h.hostname !== hostname()) return true;
  if (!pidAlive(h.pid)) return false;
  if (h.start !== undefined) {
    const now = processStart(h.pid);
    if (now !== undefined && now !== h.start) return false;
  }
  return true;
}

/** Parses an owner file; accepts the bare pid older versions wrote. null when unreadable. */
export function parseHolder(text: string): LockHolder | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v === 'number') return { pid: v, command: 'unknown', since: '', hostname: '' };
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.pid !== 'number') return null;
  return {
    pid: o.pid,
    command: typeof o.command === 'string' ? o.command : 'unknown',
    since: typeof o.since === 'string' ? o.since : '',
    hostname: typeof o.hostname === 'string' ? o.hostname : '',
    ...(typeof o.start === 'number' ? { start: o.start } : {}),
    ...(typeof o.nonce === 'string' ? { nonce: o.nonce } : {}),
  };
}

function readOwnerText(dir: string): string | null {
  try {
    return readFileSync(join(dir, OWNER_FILE), 'utf8');
  } catch {
    return null;
  }
}

export function readHolder(dir: string): LockHolder | null {
  const text = readOwnerText(dir);
  return text === null ? null : parseHolder(text);
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * A private directory in `base` (the root's `.tkoma/`) holding our owner file, ready to be renamed
 * into place. Never created inside a lock directory: that could bring back a lock just removed.
 */
function ownerDir(base: string, me: LockHolder): string {
  const tmp = join(base, `.lock-tmp.${process.pid}.${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp);
  writeFileSync(join(tmp, OWNER_FILE), JSON.stringify(me));
  return tmp;
}

function placeOwnerDir(target: string, me: LockHolder): boolean {
  const tmp = ownerDir(dirname(target), me);
  try {
    renameSync(tmp, target);
    return true;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = errno(err);
    if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOENT') return false;
    throw err;
  }
}

function removeDir(dir: string): void {
  // Move it aside first so a half-deleted lock is never seen under the lock's name.
  const grave = `${dir}.gone.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(dir, grave);
  } catch {
    return;
  }
  try {
    rmSync(grave, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A late claim landed inside; recovery sweeps graves of dead processes.
  }
}

/** An owner-less lock directory (written by hand or by a crash of an old version) counts as stale after this. */
const ORPHAN_AGE_MS = 2000;

function isStale(dir: string, text: string | null): boolean {
  if (text === null || parseHolder(text) === null) {
    try {
      return Date.now() - statSync(dir).mtimeMs > ORPHAN_AGE_MS;
    } catch {
      return false;
    }
  }
  return !holderAlive(parseHolder(text)!);
}

/**
 * Breaks the stale lock `dir` whose owner file read `observed`. Returns true when `dir` is gone
 * (broken by us or released meanwhile), false when someone else is on it.
 *
 * The claim is named after the instance it targets (a hash of its owner file, which holds a
 * nonce) and is never removed by path: a claim that lands in a newer lock because the stale one
 * went away meanwhile just stays there, harmless (it names another instance), until that lock goes.
 */
function breakStale(dir: string, observed: string | null, me: LockHolder, base: string, depth = 0): boolean {
  const claim = join(dir, `takeover-${createHash('sha256').update(observed ?? '<no owner>').digest('hex').slice(0, 16)}`);
  const tmp = ownerDir(base, me);
  try {
    renameSync(tmp, claim);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (errno(err) === 'ENOENT') return true; // the lock went away meanwhile
    if (errno(err) !== 'EEXIST' && errno(err) !== 'ENOTEMPTY') throw err;
    // Another breaker is on it; if that breaker died mid-way, break its claim the same way.
    const other = readOwnerText(claim);
    if (depth < 4 && isStale(claim, other)) breakStale(claim, other, me, base, depth + 1);
    return false;
  }
  // We hold the claim: nobody else can break this instance now. Is `dir` still that instance?
  if (readOwnerText(dir) !== observed) return false;
  removeDir(dir);
  return true;
}

function newHolder(command: string): LockHolder {
  const start = processStart(process.pid);
  return {
    pid: process.pid,
    command,
    since: new Date().toISOString(),
    hostname: hostname(),
    ...(start !== undefined ? { start } : {}),
    nonce: randomBytes(8).toString('hex'),
  };
}

export type Release = () => void;

/**
 * One non-blocking attempt: the release function, or the current holder (null when unknown).
 * A stale lock is broken and the attempt repeated.
 */
export function tryAcquire(root: string, name: LockName, command = commandLine()): { release: Release } | { holder: LockHolder | null } {
  try {
    return tryAcquireOnce(root, name, command);
  } catch (err) {
    // A lock is a folder in .tkoma/: taking one on a read-only root or a full disk fails here.
    throw environmentError(errno(err), err instanceof Error ? err.message : String(err)) ?? err;
  }
}

function tryAcquireOnce(root: string, name: LockName, command: string): { release: Release } | { holder: LockHolder | null } {
  const dir = lockPath(root, name);
  mkdirSync(dirname(dir), { recursive: true });
  const me = newHolder(command);
  for (let round = 0; round < 5; round++) {
    if (placeOwnerDir(dir, me)) {
      return {
        release: () => {
          // Only remove the lock if it is still ours (it always should be).
          const h = readHolder(dir);
          if (h?.nonce === me.nonce) removeDir(dir);
        },
      };
    }
    const text = readOwnerText(dir);
    if (!isStale(dir, text)) return { holder: text === null ? null : parseHolder(text) };
    breakStale(dir, text, me, dirname(dir));
  }
  return { holder: readHolder(dir) };
}


function lockedError(root: string, name: LockName, holder: LockHolder | null, waitedMs: number): TkomaError {
  const who = holder ? `pid ${holder.pid} (${holder.command}${holder.since ? `, since ${holder.since}` : ''})` : 'another process';
  const what = name === 'write' ? `the knowledge root ${root} is locked by` : `the index of ${root} is being updated by`;
  const hint = name === 'write' ? ' (TKOMA_REF_LOCK_TIMEOUT sets the wait in seconds)' : '';
  return new TkomaError('LOCKED', `${what} ${who}; gave up after ${Math.round(waitedMs / 100) / 10} s${hint}`, {
    lock: name,
    ...(holder ? { holder: { pid: holder.pid, command: holder.command, since: holder.since, hostname: holder.hostname } } : {}),
  });
}

/** Waits up to `timeoutMs` for the lock; LOCKED naming the holder after that. */
export async function acquireLock(root: string, name: LockName, opts: { timeoutMs: number; command?: string }): Promise<Release> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const got = tryAcquire(root, name, opts.command);
    if ('release' in got) return got.release;
    if (Date.now() - started >= opts.timeoutMs) throw lockedError(root, name, got.holder, Date.now() - started);
    await sleep(Math.min(25 + attempt * 10, 200));
  }
}

const chains = new Map<string, Promise<unknown>>();
const held = new AsyncLocalStorage<ReadonlySet<string>>();
/** Locks this process holds right now (any async context), by key. */
const heldHere = new Map<string, number>();

function keyOf(root: string, name: LockName): string {
  return `${resolve(root)}\0${name}`;
}

/** True when some call in this process holds the lock now. */
export function heldByThisProcess(root: string, name: LockName): boolean {
  return (heldHere.get(keyOf(root, name)) ?? 0) > 0;
}

/**
 * Runs `fn` holding the lock. `timeoutMs` bounds the wait for other processes; waiting for this
 * process's own earlier calls is not bounded, and a nested call from inside `fn` runs at once.
 */
export async function withLock<T>(root: string, name: LockName, fn: () => Promise<T>, opts: { timeoutMs?: number; command?: string } = {}): Promise<T> {
  const key = keyOf(root, name);
  const mine = held.getStore();
  if (mine?.has(key)) return fn();
  const previous = chains.get(key) ?? Promise.resolve();
  let done!: () => void;
  const turn = new Promise<void>((r) => (done = r));
  const chained = previous.then(() => turn);
  chains.set(key, chained);
  try {
    await previous.catch(() => undefined);
    const timeoutMs = opts.timeoutMs ?? (name === 'write' ? writeLockTimeoutMs() : DEFAULT_INDEX_TIMEOUT_MS);
    const release = await acquireLock(root, name, { timeoutMs, command: opts.command });
    heldHere.set(key, (heldHere.get(key) ?? 0) + 1);
    try {
      return await held.run(new Set([...(mine ?? []), key]), fn);
    } finally {
      heldHere.set(key, heldHere.get(key)! - 1);
      release();
    }
  } finally {
    done();
    if (chains.get(key) === chained) chains.delete(key);
  }
}

/**
 * Runs `fn` holding the root's index lock: one writer of the derived index at a time (the
 * watcher, a search and `topic create` may all want to sync). `timeoutMs` bounds the wait for
 * another process (LOCKED after it); waiting for this process's own earlier calls is not bounded.
 */
export function withIndexLock<T>(root: string, fn: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  return withLock(root, 'index', fn, { timeoutMs: opts.timeoutMs ?? DEFAULT_INDEX_TIMEOUT_MS });
}
