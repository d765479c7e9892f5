/**
 * The lifecycle every change to a knowledge root goes through, so a crash or a parallel caller
 * can never leave half of one behind:
 *
 *   write lock → recover leftovers of dead writers → journal → fn (writes) → commit → unjournal
 *
 * The journal (`.tkoma/journal/<op>.json`: op, topic, paths, pid, started, HEAD before) is
 * written before `fn` touches the work tree and removed after the commit. When a writer dies
 * (SIGKILL, power loss), the next command finds its journal, sees the pid is gone, and puts the
 * journal's paths back as they were: to HEAD, or to the original folder a swap moved aside; a
 * commit that did land is kept. Only the journal's paths are touched, never other topics or an
 * operator's unrelated edits. Staging folders of dead processes and a `.git/index.lock` left by a
 * killed git are removed too. With nothing to recover this costs one readdir.
 *
 * Test hook: `TKOMA_REF_CRASH_AT=<point>[,<point>]` makes the process SIGKILL itself at a named
 * point (see crashPoint); the crash tests use it. Generic points of every mutation are
 * `<op>:locked`, `<op>:journaled`, `<op>:before-commit`, `<op>:staged` (after `git add`) and
 * `<op>:committed` (before the journal is removed).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';

import { TkomaError } from './errors.js';
import { clearStaleGitLocks, type CommitAuthor, commitStaged, gitSync, headCommit, stagePaths, trackedAtHead } from './kgit.js';
import { commandLine, heldByThisProcess, holderAlive, lockPath, pidAlive, processStart, readHolder, tryAcquire, withLock } from './lock.js';

const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Test hook: SIGKILL this process when TKOMA_REF_CRASH_AT names `point`; with `pause@<point>` it
 * prints `tkoma-ref: paused at <point>` on stderr and blocks there until a signal from outside
 * ends it (the tests send SIGINT/SIGTERM while a mutation holds the lock and its journal).
 */
export function crashPoint(point: string): void {
  const at = process.env.TKOMA_REF_CRASH_AT;
  if (!at) return;
  const wanted = at.split(',');
  if (wanted.includes(point)) {
    process.kill(process.pid, 'SIGKILL');
    sleepSync(10_000); // never runs past this
  }
  if (wanted.includes(`pause@${point}`)) {
    writeSync(2, `tkoma-ref: paused at ${point}\n`);
    for (;;) sleepSync(1000);
  }
}

export function journalDir(root: string): string {
  return join(root, '.tkoma', 'journal');
}

export function stagingRoot(root: string): string {
  return join(root, '.tkoma', 'staging');
}

/** A fresh staging path named after this process, so leftovers of dead processes can be told apart. */
export function stagingPath(root: string, label: string): string {
  return join(stagingRoot(root), `${label}.${process.pid}.${randomBytes(4).toString('hex')}`);
}

export interface Journal {
  op: string;
  topic: string | null;
  /** Paths (relative to the root) the mutation may change; recovery restores exactly these. */
  paths: string[];
  pid: number;
  hostname: string;
  start?: number;
  command: string;
  started: string;
  /** HEAD before the mutation: a commit after it touching `paths` means the mutation landed. */
  head: string | null;
  /** Where the original folder was moved aside (refresh, delete), to be put back on failure. */
  aside?: string;
}

function journalFile(root: string, op: string): string {
  return join(journalDir(root), `${op}.json`);
}

function writeJournal(root: string, j: Journal): void {
  const file = journalFile(root, j.op);
  mkdirSync(journalDir(root), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(j, null, 2) + '\n');
  renameSync(tmp, file);
}

function readJournal(file: string): Journal | null {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as Journal;
    return typeof j.op === 'string' && Array.isArray(j.paths) && typeof j.pid === 'number' ? j : null;
  } catch {
    return null;
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Journals of this process's mutations in flight: never "recovered" by a nested call. */
const active = new Set<string>();

function journalAlive(j: Journal): boolean {
  return holderAlive({ pid: j.pid, hostname: j.hostname, start: j.start });
}

/** A journal left by an `init` that did not finish: `init` resumes it, other commands refuse. */
export function pendingInit(root: string): boolean {
  return existsSync(journalFile(root, 'init'));
}

export interface MutationSpec {
  op: string;
  topicId?: string;
  /** Default: the topic's folder. */
  paths?: string[];
  author: CommitAuthor;
  command?: string;
  /** Skip the commit (a root without git, used by index-only tests). */
  noGit?: boolean;
}

export interface MutationContext {
  /**
   * Call right before the first write to the work tree: writes the journal. Reads and checks
   * before it need no undo, so a failing check never touches an operator's uncommitted edits.
   */
  begin(): void;
  /** Record (in the journal) that the original folder is about to be moved to `dir`. Call before moving it. */
  setAside(dir: string): void;
}

export interface MutationOutcome<T> {
  /** Commit message; null when nothing changed (no commit). */
  message: string | null;
  value: T;
}

export interface MutationResult<T> {
  value: T;
  commit: string | null;
}

function newJournal(root: string, op: string, topic: string | null, paths: string[], command: string): Journal {
  const start = processStart(process.pid);
  return {
    op,
    topic,
    paths,
    pid: process.pid,
    hostname: hostname(),
    ...(start !== undefined ? { start } : {}),
    command,
    started: new Date().toISOString(),
    head: headCommit(root),
  };
}

/** lock → recover → (fn checks) → journal → (fn writes) → commit → unjournal; on failure the paths are restored. */
export async function runMutation<T>(root: string, spec: MutationSpec, fn: (ctx: MutationContext) => Promise<MutationOutcome<T>>): Promise<MutationResult<T>> {
  const command = spec.command ?? commandLine();
  return withLock(
    root,
    'write',
    async () => {
      crashPoint(`${spec.op}:locked`);
      const useGit = !spec.noGit && existsSync(join(root, '.git'));
      if (useGit) recoverRoot(root);
      const paths = spec.paths ?? [`references/${spec.topicId}`];
      const file = journalFile(root, spec.op);
      let journal: Journal | null = null;
      let aside: string | null = null;
      const begin = (): void => {
        if (journal || !useGit) return;
        journal = newJournal(root, spec.op, spec.topicId ?? null, paths, command);
        active.add(file);
        writeJournal(root, journal);
        crashPoint(`${spec.op}:journaled`);
      };
      const ctx: MutationContext = {
        begin,
        setAside: (dir) => {
          mkdirSync(dirname(dir), { recursive: true });
          begin();
          aside = dir;
          if (journal) writeJournal(root, { ...journal, aside: relative(root, dir) });
        },
      };
      try {
        let commit: string | null = null;
        let value: T;
        try {
          const out = await fn(ctx);
          value = out.value;
          if (out.message !== null && useGit) {
            begin();
            crashPoint(`${spec.op}:before-commit`);
            if (await stagePaths(root, paths)) {
              crashPoint(`${spec.op}:staged`);
              commit = await commitStaged(root, out.message, spec.author, paths);
            }
            crashPoint(`${spec.op}:committed`);
          }
        } catch (err) {
          if (journal) {
            try {
              restore(root, { ...(journal as Journal), ...(aside ? { aside: relative(root, aside) } : {}) });
              rmSync(file, { force: true });
            } catch {
              // Left journaled: the next command retries the restore.
            }
          }
          throw err;
        }
        if (journal) rmSync(file, { force: true });
        if (aside) await rm(aside, { recursive: true, force: true });
        return { value, commit };
      } finally {
        active.delete(file);
      }
    },
    { command },
  );
}

function tryGit(root: string, args: string[]): void {
  try {
    gitSync(root, args);
  } catch {
    // Best effort: e.g. `reset` in a repository without commits.
  }
}

/** Did a commit after the journal's HEAD touch its paths? Then the mutation landed: keep it. */
function landed(root: string, j: Journal): boolean {
  const head = headCommit(root);
  if (head === null || head === j.head) return false;
  if (j.head === null) return true;
  try {
    return gitSync(root, ['log', '--format=%H', `${j.head}..${head}`, '--', ...j.paths]).trim().length > 0;
  } catch {
    return false;
  }
}

/** Puts a journal's paths back as they were before its mutation (unless its commit landed). */
export function restore(root: string, j: Journal): void {
  clearStaleGitLocks(root);
  const aside = j.aside ? join(root, j.aside) : null;
  if (landed(root, j)) {
    if (aside) rmSync(aside, { recursive: true, force: true });
    return;
  }
  for (const p of j.paths) {
    if (p === '' || p === '.' || p.startsWith('..')) continue; // never a whole-root restore
    const abs = join(root, p);
    tryGit(root, ['reset', '-q', '--', p]);
    if (aside && existsSync(aside) && j.paths.length === 1) {
      // The original folder, byte for byte (with any uncommitted edits it had): put it back.
      rmSync(abs, { recursive: true, force: true });
      renameSync(aside, abs);
    } else if (trackedAtHead(root, p)) {
      tryGit(root, ['checkout', '-q', 'HEAD', '--', p]);
      tryGit(root, ['clean', '-fdq', '--', p]);
    } else {
      rmSync(abs, { recursive: true, force: true });
    }
  }
}

export interface RecoveryReport {
  restored: { op: string; topic: string | null; landed: boolean }[];
  removed: string[];
}

const STAGED_NAME = /\.(\d+)\.[0-9a-f]{8}$/;
const LEGACY_STAGING_AGE_MS = 60 * 60_000;

/** Staging folders whose process is gone (named `<label>.<pid>.<hex>`); older unnamed ones by age. */
function sweepStaging(root: string, keep: Set<string>): string[] {
  const removed: string[] = [];
  const dir = stagingRoot(root);
  for (const name of listDir(dir)) {
    const abs = join(dir, name);
    if (keep.has(abs)) continue;
    const m = STAGED_NAME.exec(name);
    let dead: boolean;
    if (m) dead = !pidAlive(Number(m[1]));
    else {
      try {
        dead = Date.now() - statSync(abs).mtimeMs > LEGACY_STAGING_AGE_MS;
      } catch {
        dead = false;
      }
    }
    if (!dead) continue;
    rmSync(abs, { recursive: true, force: true });
    removed.push(relative(root, abs));
  }
  return removed;
}

const LOCK_LEFTOVER = /^(?:\.lock-tmp|.+\.lock\.gone)\.(\d+)\.[0-9a-f]{8}$/;

/** Temp and moved-aside lock folders of dead processes in `.tkoma/`. */
function sweepLockLeftovers(root: string): string[] {
  const removed: string[] = [];
  const dir = join(root, '.tkoma');
  for (const name of listDir(dir)) {
    const m = LOCK_LEFTOVER.exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(`.tkoma/${name}`);
  }
  return removed;
}

/**
 * Full recovery; the caller holds the write lock. Restores every journal of a dead writer
 * (except an unfinished `init`, which `init` resumes) and sweeps leftovers.
 */
export function recoverRoot(root: string): RecoveryReport {
  const report: RecoveryReport = { restored: [], removed: [] };
  const keep = new Set<string>();
  for (const name of listDir(journalDir(root))) {
    const file = join(journalDir(root), name);
    if (!name.endsWith('.json')) {
      // A journal temp file of a writer that died while writing it.
      const pid = Number(/\.tmp-(\d+)$/.exec(name)?.[1]);
      if (!pidAlive(pid)) rmSync(file, { force: true });
      continue;
    }
    if (active.has(file)) continue;
    const j = readJournal(file);
    if (j && j.op === 'init') continue;
    if (j && journalAlive(j) && j.pid !== process.pid) {
      if (j.aside) keep.add(join(root, j.aside));
      continue;
    }
    if (j) {
      const didLand = landed(root, j);
      restore(root, j);
      report.restored.push({ op: j.op, topic: j.topic, landed: didLand });
    }
    rmSync(file, { force: true });
  }
  report.removed.push(...sweepStaging(root, keep), ...sweepLockLeftovers(root));
  return report;
}

/** A lock directory whose holder is gone: break it (tryAcquire does) and let go at once. */
function clearDeadLock(root: string, name: 'write' | 'index'): void {
  const holder = readHolder(lockPath(root, name));
  if (holder && holderAlive(holder)) return;
  const got = tryAcquire(root, name);
  if ('release' in got) got.release();
}

/**
 * The cheap check at the start of every command that touches a root (one readdir when there is
 * nothing to do): when a dead writer left a journal, staging or a lock behind, recover now if the
 * write lock is free (a live writer recovers it itself). Never fails a reader: recovery problems
 * surface in the next mutation instead.
 */
export function recoverIfNeeded(root: string): RecoveryReport | null {
  const entries = listDir(join(root, '.tkoma'));
  const state = new Set(entries);
  if (!state.has('journal') && !state.has('staging') && !state.has('write.lock') && !state.has('index.lock') && !entries.some((e) => LOCK_LEFTOVER.test(e))) return null;
  if (heldByThisProcess(root, 'write')) return null;
  try {
    sweepLockLeftovers(root);
    if (state.has('index.lock') && !heldByThisProcess(root, 'index')) clearDeadLock(root, 'index');
    const journals = listDir(journalDir(root));
    const needsRecovery = journals.some((name) => {
      const j = name.endsWith('.json') ? readJournal(join(journalDir(root), name)) : null;
      return j === null || (j.op !== 'init' && !journalAlive(j));
    });
    const stagingDead = listDir(stagingRoot(root)).some((name) => {
      const m = STAGED_NAME.exec(name);
      return !m || !pidAlive(Number(m[1]));
    });
    if (!needsRecovery && !stagingDead) {
      if (state.has('write.lock')) clearDeadLock(root, 'write');
      return null;
    }
    const got = tryAcquire(root, 'write');
    if (!('release' in got)) return null;
    try {
      return recoverRoot(root);
    } finally {
      got.release();
    }
  } catch {
    return null;
  }
}

/** `init` journals itself by hand: there is no repository yet to restore from, so it resumes instead. */
export function beginInitJournal(root: string): void {
  writeJournal(root, { ...newJournal(root, 'init', null, ['.'], commandLine()), head: null });
}

export function endInitJournal(root: string): void {
  rmSync(journalFile(root, 'init'), { force: true });
}

/** Refuses to run on a root whose `init` was interrupted. */
export function assertNoPendingInit(root: string): void {
  if (pendingInit(root)) {
    throw new TkomaError('ROOT_NOT_INITIALISED', `the knowledge root at ${root} was not fully initialised (an earlier \`init\` stopped): run \`tkoma-ref init\` again`, {
      root,
    });
  }
}
