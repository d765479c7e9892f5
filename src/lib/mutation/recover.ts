/**
 * Recovery: what the next command does when a writer died (SIGKILL, power loss) or what a
 * mutation does itself when it fails (a commit refused by signing, a full disk). The rule:
 *
 *   undo exactly what the journal says the tool wrote, nothing else.
 *
 * A file the tool was about to write gets its saved bytes back; one it created is removed; a
 * folder moved aside is moved back as it was; the index entries of the paths it staged get their
 * saved entries back. No `git checkout`, no `git clean`, no `git reset` of whole folders: an
 * operator's uncommitted edits, added files and staged changes are never touched. A commit that
 * landed is kept. Staging folders of dead processes and a `.git/index.lock` left by a killed git
 * are removed too. With nothing to recover this costs one readdir.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

import { clearStaleGitLocks, gitSync, headCommit } from '../root-git.js';
import { readRootGitState } from '../root-state.js';
import { heldByThisProcess, holderAlive, lockPath, readHolder, tryAcquire } from '../lock.js';
import { pidAlive } from '../process.js';
import { LOCK_LEFTOVER, recoveryLooksAt } from './leftovers.js';
import { listDir } from '../soft-fs.js';
import { BACKUP_SUFFIX, type Journal, journalDir, readBackup, readJournal, removeJournal, stagingRoot } from './journal.js';

/** Journals of this process's mutations in flight: never "recovered" by a nested call. */
export const active = new Set<string>();

function journalAlive(j: Journal): boolean {
  return holderAlive({ pid: j.pid, hostname: j.hostname, start: j.start });
}

/**
 * Did the mutation's commit land? Version 3: its recorded commit is on its branch (an older
 * journal: a commit after the journal's HEAD touched its paths). Then keep it.
 */
export function landed(root: string, j: Journal): boolean {
  if ((j.version ?? 1) >= 3) {
    if (!j.commit || !j.branch) return false;
    try {
      gitSync(root, ['merge-base', '--is-ancestor', j.commit, `refs/heads/${j.branch}`]);
      return true;
    } catch {
      return false;
    }
  }
  const head = headCommit(root);
  if (head === null || head === j.head) return false;
  if (j.head === null) return true;
  try {
    return gitSync(root, ['log', '--format=%H', `${j.head}..${head}`, '--', ...j.paths]).trim().length > 0;
  } catch {
    return false;
  }
}

const NO_OBJECT = '0'.repeat(40);

/** `git ls-files -s -z` output → path → its entries (one per stage, in order). */
function parseEntries(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) out.set(line.slice(tab + 1), [...(out.get(line.slice(tab + 1)) ?? []), line]);
  }
  return out;
}

/**
 * Puts the index entries of `staged` back as saved before `git add`, stages included (a path
 * whose entries differ is cleared, then gets all its saved entries); other entries are not touched.
 * Only journals before version 3 staged into git's index before the commit.
 */
function restoreIndex(root: string, staged: string[], saved: string): void {
  const before = parseEntries(saved);
  const now = parseEntries(gitSync(root, ['ls-files', '-s', '-z', '--', ...staged]));
  const lines: string[] = [];
  for (const path of now.keys()) if (!before.has(path)) lines.push(`0 ${NO_OBJECT} 0\t${path}`);
  for (const [path, entries] of before) {
    if (now.get(path)?.join('\0') === entries.join('\0')) continue;
    lines.push(`0 ${NO_OBJECT} 0\t${path}`, ...entries);
  }
  if (lines.length > 0) gitSync(root, ['update-index', '-z', '--index-info'], lines.join('\0') + '\0');
}

/**
 * A commit that landed while git's index still holds the entries from before it (the writer died
 * between moving the branch and updating the index): the entries of its paths follow the commit,
 * unless someone changed them since or HEAD is elsewhere now.
 */
function followCommit(root: string, j: Journal): void {
  if (!j.commit || !j.branch || !j.staged || !j.index) return;
  const saved = readBackup(root, j.op, j.index);
  if (!saved || gitSync(root, ['ls-files', '-s', '-z', '--', ...j.staged]) !== saved.toString('utf8')) return;
  if (readRootGitState(root, { unmerged: false }).branch !== j.branch) return;
  gitSync(root, ['reset', '-q', j.commit, '--', ...j.staged]);
}

/** Writes `data` to `abs` by temp file + rename, so a crash here leaves the old or the new bytes. */
function putBack(abs: string, data: Buffer, mode: number | undefined): void {
  mkdirSync(dirname(abs), { recursive: true });
  const tmp = `${abs}.tkoma-restore-${process.pid}`;
  try {
    writeFileSync(tmp, data);
    if (mode !== undefined) chmodSync(tmp, mode);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  rmSync(abs, { recursive: true, force: true }); // a folder the tool put where a file was
  renameSync(tmp, abs);
}

/**
 * The temp files of the tool's own atomic writes of `abs` (`<file>.tmp-<pid>-…` by the writer of
 * the journal, `<file>.tkoma-restore-…` by an earlier restore) that a failure or a kill left beside it.
 */
function removeTemps(abs: string, pid: number): void {
  const base = basename(abs);
  for (const name of listDir(dirname(abs))) {
    if (name.startsWith(`${base}.tmp-${pid}-`) || name.startsWith(`${base}.tkoma-restore-`)) rmSync(join(dirname(abs), name), { force: true });
  }
}

/**
 * Undoes a journal's mutation unless its commit landed. Idempotent: a restore cut short is simply
 * run again by the next command.
 */
export function restore(root: string, j: Journal): void {
  clearStaleGitLocks(root);
  const aside = j.aside ? join(root, j.aside) : null;
  if (landed(root, j)) {
    if (aside) rmSync(aside, { recursive: true, force: true });
    followCommit(root, j);
    return;
  }
  if (j.staged && j.index && (j.version ?? 1) < 3) {
    const saved = readBackup(root, j.op, j.index);
    if (saved) restoreIndex(root, j.staged, saved.toString('utf8'));
  }
  for (const w of [...(j.writes ?? [])].reverse()) {
    const abs = join(root, w.path);
    removeTemps(abs, j.pid);
    if (w.prior === 'file') {
      const data = w.backup ? readBackup(root, j.op, w.backup) : null;
      if (data) putBack(abs, data, w.mode);
    } else if (w.prior === 'absent') {
      rmSync(abs, { recursive: true, force: true });
    } else if (w.prior === 'empty-dir') {
      rmSync(abs, { recursive: true, force: true });
      mkdirSync(abs, { recursive: true });
    } else if (w.prior === 'symlink' && w.target !== undefined) {
      rmSync(abs, { recursive: true, force: true });
      symlinkSync(w.target, abs);
    }
  }
  if (aside && existsSync(aside) && j.paths.length === 1) {
    // The original folder, byte for byte (with any uncommitted edits it had): put it back. When
    // the aside is missing, the swap never happened and the live folder is still the original.
    const live = join(root, j.paths[0]);
    rmSync(live, { recursive: true, force: true });
    renameSync(aside, live);
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

/** Temp and moved-aside lock folders of dead processes in `.tkoma/`. */
export function sweepLockLeftovers(root: string): string[] {
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
 * A delete that landed but died before dropping the topic's derived index: drop it now (when the
 * index lock is free; otherwise the next sync or `watch` reconciles it).
 */
function dropDeletedIndex(root: string, id: string): void {
  if (existsSync(join(root, 'references', id)) || !/^[a-z0-9][a-z0-9-]*$/.test(id)) return;
  const got = tryAcquire(root, 'index');
  if (!('release' in got)) return;
  try {
    rmSync(join(root, '.tkoma', 'index', 'topics', id), { recursive: true, force: true });
  } finally {
    got.release();
  }
}

/**
 * Full recovery; the caller holds the write lock. Restores every journal of a dead writer
 * (except an unfinished `init`, which `init` resumes) and sweeps leftovers.
 */
export function recoverRoot(root: string): RecoveryReport {
  const report: RecoveryReport = { restored: [], removed: [] };
  const keep = new Set<string>();
  const names = listDir(journalDir(root));
  for (const name of names) {
    const file = join(journalDir(root), name);
    if (name.endsWith(BACKUP_SUFFIX)) {
      // Backups of a journal that is gone (removed first, then its backups): finish the removal.
      if (!names.includes(`${name.slice(0, -BACKUP_SUFFIX.length)}.json`)) rmSync(file, { recursive: true, force: true });
      continue;
    }
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
    const op = name.slice(0, -'.json'.length);
    if (j) {
      const didLand = landed(root, j);
      restore(root, j);
      if (didLand && j.op === 'delete' && j.topic) dropDeletedIndex(root, j.topic);
      report.restored.push({ op: j.op, topic: j.topic, landed: didLand });
    }
    removeJournal(root, op);
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
 * (a read-only root, say) surface in the next mutation instead.
 */
export function recoverIfNeeded(root: string): RecoveryReport | null {
  const entries = listDir(join(root, '.tkoma'));
  const state = new Set(entries);
  if (!entries.some(recoveryLooksAt)) return null;
  if (heldByThisProcess(root, 'write')) return null;
  try {
    sweepLockLeftovers(root);
    if (state.has('index.lock') && !heldByThisProcess(root, 'index')) clearDeadLock(root, 'index');
    const journals = listDir(journalDir(root));
    const needsRecovery = journals.some((name) => {
      if (name.endsWith(BACKUP_SUFFIX)) return !journals.includes(`${name.slice(0, -BACKUP_SUFFIX.length)}.json`);
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
