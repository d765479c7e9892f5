/**
 * The journal of a mutation in flight: `.tkoma/journal/<op>.json`, written before the mutation
 * touches the work tree and removed after its commit. Beside it, `.tkoma/journal/<op>.backup/`
 * holds what recovery needs to undo exactly what the tool wrote and nothing else:
 *  - the prior bytes of every file the tool is about to write (or the fact that it was absent),
 *    saved by `saveWrite` before the first write of that file;
 *  - the index entries of the paths the tool is about to stage (`index`), saved before `git add`.
 * See docs/concepts/locking-and-recovery.md for the rule every mutation follows.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, join, normalize } from 'node:path';

import { TkomaError } from '../errors.js';
import { headCommit } from '../root-git.js';
import { assertWritable, commandLine, processStart } from '../lock.js';

/** 3: the commit is built off git's index and the branch moved by compare-and-swap (commit.ts). */
export const JOURNAL_VERSION = 3;

/** What a path held before the tool first wrote it; recovery puts exactly that back. */
export interface WriteRecord {
  /** Relative to the root. */
  path: string;
  prior: 'file' | 'absent' | 'empty-dir' | 'symlink';
  /** File name of the saved bytes in the backup folder (prior = file). */
  backup?: string;
  mode?: number;
  /** Link target (prior = symlink). */
  target?: string;
}

export interface Journal {
  /** 2: the journal lists the tool's own writes; older journals did not. 3: see JOURNAL_VERSION. */
  version?: number;
  op: string;
  topic: string | null;
  /** Paths (relative to the root) the mutation is about: a commit after `head` touching them means it landed. */
  paths: string[];
  pid: number;
  hostname: string;
  start?: number;
  command: string;
  started: string;
  /** HEAD before the mutation. */
  head: string | null;
  /** Where the original folder was moved aside (refresh, delete), to be put back on failure. */
  aside?: string;
  /** Every path the tool wrote or is about to write, with its prior state. */
  writes?: WriteRecord[];
  /** The paths `git add` was (about to be) run on; their index entries before it are in `index`. */
  staged?: string[];
  /** File name, in the backup folder, of `git ls-files -s -z -- <staged>` before staging. */
  index?: string;
  /** Version 3: the branch the commit goes onto, and the commit, recorded just before the branch moves. */
  branch?: string;
  commit?: string;
}

export function journalDir(root: string): string {
  return join(root, '.tkoma', 'journal');
}

export function stagingRoot(root: string): string {
  return join(root, '.tkoma', 'staging');
}

/**
 * A fresh staging path named after this process, so leftovers of dead processes can be told
 * apart. Every mutation that fetches asks for one first, so this is where a read-only root is
 * refused (READ_ONLY), before anything is fetched.
 */
export function stagingPath(root: string, label: string): string {
  assertWritable(root);
  return join(stagingRoot(root), `${label}.${process.pid}.${randomBytes(4).toString('hex')}`);
}

export function journalFile(root: string, op: string): string {
  return join(journalDir(root), `${op}.json`);
}

export function backupDir(root: string, op: string): string {
  return join(journalDir(root), `${op}.backup`);
}

export const BACKUP_SUFFIX = '.backup';

export function writeJournal(root: string, j: Journal): void {
  const file = journalFile(root, j.op);
  mkdirSync(journalDir(root), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(j, null, 2) + '\n');
  renameSync(tmp, file);
}

export function readJournal(file: string): Journal | null {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as Journal;
    return typeof j.op === 'string' && Array.isArray(j.paths) && typeof j.pid === 'number' ? j : null;
  } catch {
    return null;
  }
}

/** The journal first, then its backups: a journal never names a backup that is already gone. */
export function removeJournal(root: string, op: string): void {
  rmSync(journalFile(root, op), { force: true });
  rmSync(backupDir(root, op), { recursive: true, force: true });
}


/** `head`: HEAD's commit when the caller has just read it (runMutation), else read here. */
export function newJournal(root: string, op: string, topic: string | null, paths: string[], command: string, head: string | null = headCommit(root)): Journal {
  const start = processStart(process.pid);
  return {
    version: JOURNAL_VERSION,
    op,
    topic,
    paths,
    pid: process.pid,
    hostname: hostname(),
    ...(start !== undefined ? { start } : {}),
    command,
    started: new Date().toISOString(),
    head,
  };
}

/** A root-relative path a mutation may write: inside the root, never the root itself or `.git`. */
export function checkRelPath(rel: string): string {
  const n = normalize(rel).replace(/\/+$/, '');
  if (n === '' || n === '.' || isAbsolute(n) || n === '..' || n.startsWith('../') || n === '.git' || n.startsWith('.git/')) {
    throw new TkomaError('INTERNAL', `a mutation may not write "${rel}"`);
  }
  return n;
}

/**
 * Saves what `rel` holds now into the backup folder (or notes that it is absent) and returns the
 * record to list in the journal. Only a file, a link, an empty folder or nothing can be saved: the
 * tool never writes over a folder with content (it moves such folders aside instead).
 */
export function saveWrite(root: string, op: string, rel: string, n: number): WriteRecord {
  const abs = join(root, rel);
  let st;
  try {
    st = lstatSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path: rel, prior: 'absent' };
    throw err;
  }
  if (st.isSymbolicLink()) return { path: rel, prior: 'symlink', target: readlinkSync(abs) };
  if (st.isDirectory()) {
    if (readdirSync(abs).length > 0) throw new TkomaError('INTERNAL', `a mutation may not write over the folder ${rel}: move it aside`);
    return { path: rel, prior: 'empty-dir' };
  }
  const dir = backupDir(root, op);
  mkdirSync(dir, { recursive: true });
  const name = String(n);
  copyFileSync(abs, join(dir, name));
  return { path: rel, prior: 'file', backup: name, mode: st.mode & 0o7777 };
}

/** Saves the index entries of `paths` before `git add` touches them. */
export function saveIndex(root: string, op: string, entries: string): string {
  const dir = backupDir(root, op);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index'), entries);
  return 'index';
}

export function readBackup(root: string, op: string, name: string): Buffer | null {
  const file = join(backupDir(root, op), name);
  return existsSync(file) ? readFileSync(file) : null;
}

/** A journal left by an `init` that did not finish: `init` resumes it, other commands refuse. */
export function pendingInit(root: string): boolean {
  return existsSync(journalFile(root, 'init'));
}

/** `init` journals itself by hand: there is no repository yet to restore from, so it resumes instead. */
export function beginInitJournal(root: string): void {
  writeJournal(root, newJournal(root, 'init', null, ['.'], commandLine(), null));
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
