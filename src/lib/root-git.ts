/**
 * Git operations on the knowledge root: every mutation becomes exactly one readable commit of
 * exactly the paths it wrote. A git that fails is GIT_FAILED with git's own message (READ_ONLY or
 * DISK_FULL when that is what it met); undoing a failed mutation is recovery's job (mutation/).
 * We call the git binary directly (execFile, never a shell): measured when the stack was chosen,
 * it added many files about four times faster than isomorphic-git (1,000 files added and
 * committed in ~0.4 s), and it gives us the exact flags we need. Beside it: git-config.ts (the
 * root's config values), git-refs.ts (HEAD and branch tips read from `.git` without a git).
 */
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { environmentError, TkomaError } from './errors.js';
import { indexFileOf, plainPathspecs, readIndexFile } from './git-index.js';
import { keepMallocHeap } from './git-malloc.js';
import { headFromFiles } from './git-refs.js';
import { gitDirOf } from './root-state.js';
import { listDir } from './soft-fs.js';

export interface CommitAuthor {
  ghost?: string;
  model?: string;
}

const TOOL_NAME = 'tkoma-ref';
const TOOL_EMAIL = 'tkoma-ref@localhost';

/** The environment of every git we start: no prompts, the tool as committer, `author` as author. */
export function gitEnv(author: CommitAuthor): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = keepMallocHeap({
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    // The committer is always the tool; the author is the ghost (and its model) when given, so
    // `git log --format='%an'` tells who asked for each change.
    GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME || TOOL_NAME,
    GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL || TOOL_EMAIL,
  });
  if (author.ghost || author.model) {
    const name = [author.ghost, author.model ? `(${author.model})` : ''].filter(Boolean).join(' ');
    env.GIT_AUTHOR_NAME = name;
    env.GIT_AUTHOR_EMAIL = `${slugEmail(author.ghost || author.model || 'ghost')}@ghosts.tkoma-ref`;
  } else {
    env.GIT_AUTHOR_NAME = process.env.GIT_AUTHOR_NAME || TOOL_NAME;
    env.GIT_AUTHOR_EMAIL = process.env.GIT_AUTHOR_EMAIL || TOOL_EMAIL;
  }
  return env;
}

function slugEmail(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'ghost';
}

/** A git that another process (an operator's `git status`) holds the index lock of: retry briefly. */
function indexBusy(stderr: string): boolean {
  return /index\.lock': File exists/.test(stderr);
}


/** `env`: extra variables (GIT_INDEX_FILE for a temporary index). */
export async function git(cwd: string, args: string[], author: CommitAuthor = {}, env: NodeJS.ProcessEnv = {}): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await gitOnce(cwd, args, author, env);
    } catch (err) {
      if (!(err instanceof TkomaError) || !indexBusy(err.message) || attempt >= 20) throw err;
      await sleep(100);
    }
  }
}

function gitOnce(cwd: string, args: string[], author: CommitAuthor, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd, env: { ...gitEnv(author), ...env }, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          reject(new TkomaError('GIT_UNAVAILABLE', 'git is not installed or not on PATH'));
          return;
        }
        reject(gitFailed(cwd, args, String(stderr || err.message).trim()));
        return;
      }
      resolvePromise(stdout);
    });
  });
}

/** Synchronous git for crash recovery, which runs before a command starts its real work. */
export function gitSync(cwd: string, args: string[], input?: string): string {
  try {
    return execFileSync('git', args, {
      cwd,
      env: gitEnv({}),
      encoding: 'utf8',
      ...(input !== undefined ? { input } : {}),
      stdio: [input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new TkomaError('GIT_UNAVAILABLE', 'git is not installed or not on PATH');
    const stderr = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
    throw gitFailed(cwd, args, stderr);
  }
}

/** GIT_FAILED with git's own message (a hook, signing, a damaged repository); READ_ONLY / DISK_FULL when that is what git met. */
function gitFailed(cwd: string, args: string[], stderr: string): TkomaError {
  const sub = args.find((a) => !a.startsWith('-')) ?? args[0];
  const message = `git ${sub} failed in ${cwd}: ${stderr}`;
  return environmentError(undefined, message) ?? new TkomaError('GIT_FAILED', message, { git: sub });
}

/** The commit HEAD points at, or null in a repository without commits (or none at all). */
export function headCommit(root: string): string | null {
  try {
    return gitSync(root, ['rev-parse', '--verify', '-q', 'HEAD']).trim() || null;
  } catch {
    return null;
  }
}

/**
 * HEAD's commit and its tree (null as in headCommit) and the object store's pack folder
 * (absolute; null when git could not say), from one `git rev-parse`: a mutation needs all three
 * (the tree tells a commit that would change nothing), and each was a process of its own (~10 ms
 * of the main thread per spawn). Without a commit git still prints the folder, then fails.
 */
export function headAndPackDir(root: string): { head: string | null; tree: string | null; packDir: string | null } {
  let out: string;
  try {
    // `--` makes both names revisions, never paths; git echoes it as the last line.
    out = execFileSync('git', ['rev-parse', '--git-path', 'objects/pack', 'HEAD^{commit}', 'HEAD^{tree}', '--'], { cwd: root, env: gitEnv({}), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { status?: number; stdout?: string };
    out = typeof e.stdout === 'string' ? e.stdout.split('\n')[0]! : '';
  }
  const [dir, head, tree] = out.split('\n').map((l) => l.trim());
  const sha = (s: string | undefined): string | null => (s && /^[0-9a-f]{40,64}$/.test(s) ? s : null);
  return { head: sha(head) && sha(tree) ? head! : null, tree: sha(head) && sha(tree) ? tree! : null, packDir: dir ? resolve(root, dir) : null };
}

/** Stages everything under `paths` (additions, changes, deletions); true when anything is staged there. */
export async function stagePaths(root: string, paths: string[]): Promise<boolean> {
  await stageAll(root, paths);
  return hasStaged(root, paths);
}

/**
 * `git add` writes each new blob as a loose object: one file create and rename per file, ~1.5 ms
 * each on this machine (8 s for SciFact's 5,183 files, the largest part of a topic create).
 * A size threshold of one byte sends every blob through git's bulk check-in instead, which streams
 * them into one pack (0.9 s for the same files). It applies to this command only; diffs and later
 * repacks use the root's own settings.
 */
const PACK_NEW_BLOBS = ['-c', 'core.bigFileThreshold=1'];

/**
 * `blobsStored`: the files' blobs are already in the object store (adoptPacks). The bulk check-in
 * would still compress every file before finding its blob there (0.6–0.9 s for SciFact); the
 * plain path only hashes each file and finds the blob (0.06–0.10 s). A file whose blob is not
 * there after all (a filter or line-ending rule of the root changed its bytes) is written loose.
 */
export async function stageAll(root: string, paths: string[], opts: { blobsStored?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  await git(root, [...(opts.blobsStored ? [] : PACK_NEW_BLOBS), 'add', '-A', '--', ...paths], {}, opts.env);
}

/**
 * Moves the packs found in the folders under `dir` (packBlobs) into the root's object store;
 * true when at least one was added. Adding a pack only adds objects: one that no commit ends up
 * using is garbage that `git gc` removes, like the blobs of a `git add` whose commit failed.
 * The index file goes last: git finds a pack by its index.
 */
export async function adoptPacks(root: string, dir: string, knownPackDir?: string | null): Promise<boolean> {
  const packs: { dir: string; names: string[] }[] = [];
  for (const sub of listDir(dir)) {
    const names = listDir(join(dir, sub)).filter((n) => /^pack-[0-9a-f]+\.[a-z]+$/.test(n));
    if (names.some((n) => n.endsWith('.idx'))) packs.push({ dir: join(dir, sub), names });
  }
  if (packs.length === 0) return false;
  // `knownPackDir`: the mutation already asked git (headAndPackDir).
  const packDir = knownPackDir ?? resolve(root, (await git(root, ['rev-parse', '--git-path', 'objects/pack'])).trim());
  let added = false;
  for (const p of packs) {
    const ordered = [...p.names.filter((n) => !n.endsWith('.idx')), ...p.names.filter((n) => n.endsWith('.idx'))];
    try {
      for (const n of ordered) renameSync(join(p.dir, n), join(packDir, n));
      added = true;
    } catch {
      // Another file system, or no room: `git add` writes the blobs itself.
    }
  }
  return added;
}

export async function hasStaged(root: string, paths: string[]): Promise<boolean> {
  const staged = await git(root, ['diff', '--cached', '--name-only', '-z', '--', ...paths]);
  return staged.length > 0;
}

/** Stages `paths` (exact names) even where a .gitignore rule matches them. */
export async function forceAdd(root: string, paths: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  for (let i = 0; i < paths.length; i += 500) await git(root, [...PACK_NEW_BLOBS, '--literal-pathspecs', 'add', '-f', '--', ...paths.slice(i, i + 500)], {}, env);
}

/** The index entries under `paths` as `git ls-files -s -z` prints them (saved before staging, for recovery). */
export async function indexEntries(root: string, paths: string[]): Promise<string> {
  // Read from the index file where git-index.ts can (a git process less per mutation).
  const file = plainPathspecs(paths) ? indexFileOf(gitDirOf(root)) : null;
  const entries = file ? readIndexFile(file, { paths }) : null;
  if (entries) return entries.map((e) => `${e.mode} ${e.oid} ${e.stage}\t${e.path}\0`).join('');
  return git(root, ['ls-files', '-s', '-z', '--', ...paths]);
}

/**
 * Commits exactly `paths` as staged by stagePaths: anything else an operator staged by hand stays
 * staged and out of our commit. Returns the new commit's sha.
 */
export async function commitStaged(root: string, message: string, author: CommitAuthor, paths: string[]): Promise<string> {
  // The `git maintenance run --auto` git commit starts after itself finds nothing to do in a root
  // of a few files (its thresholds are thousands of objects); the tool's other commits never start
  // one. Not when the operator passes config this way themselves: theirs would be replaced.
  const noMaintenance = process.env.GIT_CONFIG_COUNT === undefined ? { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'maintenance.auto', GIT_CONFIG_VALUE_0: 'false' } : {};
  await git(root, ['commit', '-q', '--no-verify', '-m', message, '--', ...paths], author, noMaintenance);
  return headFromFiles(join(root, '.git')) ?? (await git(root, ['rev-parse', 'HEAD'])).trim();
}

/**
 * Stages everything under `paths` (default: the whole root, .tkoma/ is ignored by .gitignore)
 * and commits it. Returns the new commit's sha, or null when there was nothing to commit.
 */
export async function commitAll(root: string, message: string, author: CommitAuthor, paths: string[] = ['.']): Promise<string | null> {
  if (!(await stagePaths(root, paths))) return null;
  return commitStaged(root, message, author, paths);
}

const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Removes git's own lock files left by a git that was killed (used by crash recovery, under the
 * write lock). A live git keeps writing its lock file, so only one that has not changed for
 * `staleMs` is removed; one that keeps changing is left alone.
 */
export function clearStaleGitLocks(root: string, staleMs = 2000, maxWaitMs = 30_000): string[] {
  const gitDir = join(root, '.git');
  let refLocks: string[] = [];
  try {
    refLocks = readdirSync(join(gitDir, 'refs', 'heads')).filter((n) => n.endsWith('.lock'));
  } catch {
    // no branches yet
  }
  const candidates = [join(gitDir, 'index.lock'), join(gitDir, 'HEAD.lock'), ...refLocks.map((n) => join(gitDir, 'refs', 'heads', n))];
  const removed: string[] = [];
  for (const file of candidates) {
    let last = -1;
    let unchangedSince = Date.now();
    for (const started = Date.now(); Date.now() - started < maxWaitMs; sleepSync(100)) {
      let mtime: number;
      try {
        mtime = statSync(file).mtimeMs;
      } catch {
        break; // gone: its git finished
      }
      if (mtime !== last) {
        last = mtime;
        unchangedSince = Math.min(Date.now(), mtime); // an old file is stale at once
      }
      if (Date.now() - unchangedSince >= staleMs) {
        rmSync(file, { force: true });
        removed.push(relative(root, file));
        break;
      }
    }
  }
  return removed;
}
