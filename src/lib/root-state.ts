/**
 * What git is in the middle of in the knowledge root, for two kinds of callers:
 *  - every mutation asks `assertRootIdle` before it starts and again under the write lock just
 *    before it commits: the tool commits only onto a branch, never into an operator's merge,
 *    rebase, cherry-pick, revert or bisect, and never over unmerged paths (ROOT_BUSY otherwise,
 *    naming the state and the way out; nothing written, git's index untouched);
 *  - readers (search, get, list, show, doctor) keep answering and add `rootStateNote` as a
 *    warning, so a ghost knows the files it reads are mid-operation.
 * The state is read from git's own marker files (HEAD, MERGE_HEAD, rebase-merge/, …), which costs
 * a few stats; only the unmerged paths need a git process (`git ls-files -u`).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

import { TkomaError } from './errors.js';
import { indexFileOf, plainPathspecs, readIndexFile } from './git-index.js';
import { keepMallocHeap } from './git-malloc.js';

/** A git operation that stopped half-way and waits for the operator. */
export type GitOperation = 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert' | 'bisect';

export interface RootGitState {
  /** The branch HEAD is on (`main`), or null on a detached HEAD (or no repository). */
  branch: string | null;
  /** The operation in progress, or null. */
  operation: GitOperation | null;
  /** Root-relative paths with unmerged (stage 1–3) index entries, sorted; empty when not asked. */
  unmerged: string[];
}

/** The repository's git directory (`.git`, or where a `.git` file of a linked worktree points), or null. */
export function gitDirOf(root: string): string | null {
  const dotGit = join(root, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return null;
    return isAbsolute(m[1]) ? m[1] : resolve(root, m[1]);
  } catch {
    return null;
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The operation whose marker files are in `gitDir` (a linked worktree keeps its own). */
function operationIn(gitDir: string): GitOperation | null {
  if (existsSync(join(gitDir, 'rebase-merge'))) return 'rebase';
  if (existsSync(join(gitDir, 'rebase-apply'))) return existsSync(join(gitDir, 'rebase-apply', 'applying')) ? 'am' : 'rebase';
  if (existsSync(join(gitDir, 'MERGE_HEAD'))) return 'merge';
  if (existsSync(join(gitDir, 'CHERRY_PICK_HEAD'))) return 'cherry-pick';
  if (existsSync(join(gitDir, 'REVERT_HEAD'))) return 'revert';
  // A multi-commit cherry-pick or revert between two picks keeps only its sequencer.
  const todo = readText(join(gitDir, 'sequencer', 'todo'));
  if (todo !== null) return /^\s*(revert|r)\s/m.test(todo) ? 'revert' : 'cherry-pick';
  if (existsSync(join(gitDir, 'BISECT_LOG'))) return 'bisect';
  return null;
}

/**
 * The root's git state. `unmerged: false` skips the one git process (readers on a hot path);
 * a root that is no git repository reads as `{branch: null, operation: null, unmerged: []}`.
 */
export function readRootGitState(root: string, opts: { unmerged?: boolean } = {}): RootGitState {
  const gitDir = gitDirOf(root);
  if (!gitDir) return { branch: null, operation: null, unmerged: [] };
  const head = readText(join(gitDir, 'HEAD'))?.trim() ?? '';
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  const state: RootGitState = { branch: ref ? ref[1] : null, operation: operationIn(gitDir), unmerged: [] };
  if (opts.unmerged !== false) state.unmerged = unmergedPaths(root);
  return state;
}

/**
 * What identifies the index file's content: its trailing checksum (SHA of everything before it,
 * which a split index's link to its shared index is part of) with its inode, size and mtime; null
 * when git does not write one (`index.skipHash`), or when git's variables may point it elsewhere.
 */
function indexIdentity(root: string): string | null {
  if (process.env.GIT_INDEX_FILE || process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return null;
  const gitDir = gitDirOf(root);
  if (!gitDir) return null;
  let fd: number;
  try {
    fd = openSync(join(gitDir, 'index'), 'r');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : null;
  }
  try {
    // One descriptor for both: a rename between the stat and the read cannot mix two files.
    const st = fstatSync(fd, { bigint: true });
    if (st.size < 32n) return null;
    const tail = Buffer.alloc(20);
    if (readSync(fd, tail, 0, 20, Number(st.size) - 20) !== 20 || tail.every((b) => b === 0)) return null;
    return `${st.ino}:${st.size}:${st.mtimeNs}:${tail.toString('hex')}`;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `git ls-files -u` answer and the index content it came from. A mutation asks three
 * times (before fetching, under the write lock, under git's index lock) and writes git's index
 * only after the last: an index file whose checksum has not changed holds the same entries, so the
 * answer is the same without a git process (~15 ms of CPU each). Kept only when the index read
 * the same before and after git read it.
 */
let lastUnmerged: { key: string; paths: string[] } | null = null;

/** Paths with unmerged index entries (`git ls-files -u`), each once, sorted. */
export function unmergedPaths(root: string, paths: string[] = []): string[] {
  const before = indexIdentity(root);
  const key = before === null ? null : JSON.stringify([resolve(root), paths, before]);
  if (key !== null && lastUnmerged?.key === key) return [...lastUnmerged.paths];
  const found = listUnmerged(root, paths);
  if (found === null) return []; // as before: a git that fails finds nothing (and is asked again next time)
  if (key !== null && indexIdentity(root) === before) lastUnmerged = { key, paths: [...found] };
  return found;
}

function listUnmerged(root: string, paths: string[]): string[] | null {
  const fromFile = unmergedFromIndexFile(root, paths);
  if (fromFile) return fromFile;
  let out: string;
  try {
    // git itself, not root-git.js: a search reads this, and must not load the writer's modules.
    out = execFileSync('git', ['ls-files', '-u', '-z', '--', ...paths], { cwd: root, env: keepMallocHeap(process.env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
  } catch {
    return null;
  }
  const seen = new Set<string>();
  for (const line of out.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) seen.add(line.slice(tab + 1));
  }
  return [...seen].sort();
}

/** The answer of `git ls-files -u -- <paths>` read from the index file itself, or null where git must be asked (git-index.ts). */
function unmergedFromIndexFile(root: string, paths: string[]): string[] | null {
  const file = plainPathspecs(paths) ? indexFileOf(gitDirOf(root)) : null;
  const entries = file ? readIndexFile(file, { paths, unmerged: true }) : null;
  if (!entries) return null;
  return [...new Set(entries.map((e) => e.path))].sort();
}

const WAY_OUT: Record<GitOperation, string> = {
  merge: 'finish it (`git merge --continue`, or `tkoma-ref sync --continue` after a sync) or drop it (`git merge --abort`)',
  rebase: 'finish it (`git rebase --continue`) or drop it (`git rebase --abort`)',
  am: 'finish it (`git am --continue`) or drop it (`git am --abort`)',
  'cherry-pick': 'finish it (`git cherry-pick --continue`) or drop it (`git cherry-pick --abort`)',
  revert: 'finish it (`git revert --continue`) or drop it (`git revert --abort`)',
  bisect: 'end it (`git bisect reset`)',
};

/** Is `path` one of `scope` or inside one of them (root-relative, `.` is everything)? */
function within(path: string, scope: string[]): boolean {
  return scope.some((s) => s === '.' || path === s || path.startsWith(`${s.replace(/\/+$/, '')}/`));
}

/**
 * Why the tool may not commit in this state, as one sentence with the way out, or null when it
 * may. Only unmerged paths inside `scope` (root-relative; default: all) stop it.
 */
export function busyReason(state: RootGitState, scope: string[] = ['.']): { state: string; message: string } | null {
  if (state.operation) {
    const conflicts = state.unmerged.length > 0 ? ` (unmerged: ${listPaths(state.unmerged)})` : '';
    return { state: state.operation, message: `a ${state.operation} is in progress in the knowledge root${conflicts}: ${WAY_OUT[state.operation]}` };
  }
  if (state.branch === null) {
    return { state: 'detached', message: 'the knowledge root is on a detached HEAD, not on a branch: `git checkout main` (or the branch you work on) first' };
  }
  const mine = state.unmerged.filter((p) => within(p, scope));
  if (mine.length > 0) {
    return { state: 'unmerged', message: `unmerged paths where this change would write: ${listPaths(mine)}: resolve them (edit, then \`git add\`) or \`git checkout -m -- <path>\`, and commit` };
  }
  return null;
}

function listPaths(paths: string[]): string {
  return paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`;
}

/**
 * Throws ROOT_BUSY unless the tool may commit `scope` now (on a branch, no operation in
 * progress, nothing unmerged there); returns the state read. A root without git passes.
 */
export function assertRootIdle(root: string, scope: string[] = ['.']): RootGitState {
  if (!gitDirOf(root)) return { branch: null, operation: null, unmerged: [] };
  const state = readRootGitState(root);
  const busy = busyReason(state, scope);
  if (busy) {
    throw new TkomaError('ROOT_BUSY', busy.message, {
      state: busy.state,
      branch: state.branch,
      operation: state.operation,
      unmerged: state.unmerged.filter((p) => within(p, scope)),
    });
  }
  return state;
}

/**
 * One line for readers' answers when the root is mid-operation (a `warning`), or null when it is
 * on a branch with nothing in progress. Reads only marker files unless `unmerged` is asked.
 */
export function rootStateNote(root: string, opts: { unmerged?: boolean } = {}): string | null {
  if (!gitDirOf(root)) return null;
  const state = readRootGitState(root, opts);
  if (state.operation) return `the knowledge root is in the middle of a ${state.operation}${state.unmerged.length ? ` with unmerged paths (${listPaths(state.unmerged)})` : ''}: files may hold conflict markers`;
  if (state.branch === null) return 'the knowledge root is on a detached HEAD: you read an older state, and changes are refused until `git checkout main`';
  if (state.unmerged.length) return `the knowledge root has unmerged paths (${listPaths(state.unmerged)}): those files may hold conflict markers`;
  return null;
}

/** Git's conflict markers in a text: a `<<<<<<< ` line, later `=======`, later `>>>>>>> `. */
export function hasConflictMarkers(text: string): boolean {
  const start = text.search(/^<<<<<<< /m);
  if (start < 0) return false;
  const mid = text.slice(start).search(/^=======\r?$/m);
  return mid >= 0 && /^>>>>>>> /m.test(text.slice(start + mid));
}

/**
 * Conflicted paths under `references/` (root-relative, sorted): unmerged index entries, and with
 * `deep`, tracked files whose work-tree text holds conflict markers (one `git grep`, for doctor
 * and index status; a hand-resolved file committed with its markers still counts). `unmerged`:
 * the whole root's unmerged paths as readRootGitState just read them (then no `git ls-files -u`).
 */
export async function conflictedPaths(root: string, opts: { deep?: boolean; unmerged?: string[] } = {}): Promise<string[]> {
  const mine = opts.unmerged?.filter((p) => p === 'references' || p.startsWith('references/'));
  const out = new Set(mine ?? (gitDirOf(root) ? unmergedPaths(root, ['references']) : []));
  if (opts.deep && gitDirOf(root)) {
    try {
      const { git } = await import('./root-git.js');
      const found = await git(root, ['grep', '-l', '-z', '-I', '--all-match', '-e', '^<<<<<<< ', '-e', '^=======$', '-e', '^>>>>>>> ', '--', 'references']);
      for (const p of found.split('\0')) if (p) out.add(p);
    } catch {
      // exit 1: nothing found
    }
  }
  return [...out].sort();
}

/** `references/<id>/<path>` entries grouped by topic id, paths relative to the topic. */
export function byTopic(paths: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of paths) {
    const m = /^references\/([^/]+)\/(.+)$/.exec(p);
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

/**
 * How the root's branch stands against its upstream (`git rev-list --left-right --count`), or
 * null without a branch or an upstream.
 */
export async function upstreamCounts(root: string): Promise<{ upstream: string; ahead: number; behind: number } | null> {
  try {
    const { git } = await import('./root-git.js');
    const upstream = (await git(root, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'])).trim();
    const [ahead, behind] = (await git(root, ['rev-list', '--left-right', '--count', 'HEAD...@{upstream}'])).trim().split(/\s+/).map(Number);
    return { upstream, ahead, behind };
  } catch {
    return null;
  }
}
