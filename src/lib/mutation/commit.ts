/**
 * The commit step of runMutation. The commit a mutation reports is reachable from the branch it
 * started on, or the mutation fails: an operator's checkout, reset or commit racing it can make it
 * fail (or build again on the new tip), never make it vanish (issue 23).
 *
 *  1. the tree is built in a temporary index seeded from the branch tip (`read-tree -m` over a
 *     copy of git's index, so unchanged files keep their stat data), plus exactly the paths the
 *     mutation wrote: git's own index, with whatever the operator staged or left unmerged, is not
 *     touched, so a failure before the branch moves has nothing of git's to undo;
 *  2. `commit-tree` makes the commit (signed when `commit.gpgSign` says so, as runMutation read
 *     it; no hooks, as before);
 *  3. all of it under git's own index lock (the operator's porcelain waits, as for any commit):
 *     first HEAD must still be the branch, no operation in progress; a branch that moved since
 *     the mutation started by commits that leave our paths alone is built on, otherwise
 *     ROOT_BUSY; then the branch is moved with a compare-and-swap `update-ref <b> <new> <old>`;
 *  4. git's index entries of our paths are set to the commit (what `git commit -- <paths>` did).
 */
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { TkomaError } from '../errors.js';
import { branchRefFromFiles } from '../git-refs.js';
import { type CommitAuthor, forceAdd, git, stageAll } from '../root-git.js';
import { assertRootIdle, gitDirOf } from '../root-state.js';
import { plainPathspecs, readIndexFile } from '../git-index.js';
import { indexIsTree } from './index-file.js';
import { eachPathRecord } from '../store/path-records.js';
import { stagingPath } from './journal.js';

export interface CommitRequest {
  /** The branch the mutation started on, and its tip then (null: no commit yet). */
  branch: string;
  parent: string | null;
  /** The parent's tree, as read with it. */
  parentTree: string | null;
  /** Staged as they are in the work tree (`git add -A`). */
  written: string[];
  /** Staged even where a .gitignore rule matches them. */
  tracked: string[];
  /** A topic folder whose manifest's files must all be tracked (trackManifest). */
  topicDir?: string;
  blobsStored: boolean;
  /** `commit.gpgSign` as runMutation read it with the rest of the root's config. */
  sign: boolean;
  message: string;
  author: CommitAuthor;
  /** Called with the commit before the branch moves: the journal records it, so recovery can tell whether it landed. */
  beforeMove(commit: string): void;
}

/** Commits `req` onto its branch; the new commit, or null when the tree did not change. */
export async function commitOntoBranch(root: string, req: CommitRequest): Promise<string | null> {
  const gitDir = gitDirOf(root);
  if (!gitDir) throw new TkomaError('GIT_FAILED', `${root} is not a git repository`);
  const scope = [...req.written, ...req.tracked];
  // Git's own index lock for the whole step: the operator's checkout, stash or commit cannot move
  // HEAD or the branch between the checks and the move (they wait, as for any git commit).
  const lock = await lockIndex(gitDir);
  let commit: string | null = null;
  let moved = false;
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (head !== `ref: refs/heads/${req.branch}`) {
      throw new TkomaError('ROOT_BUSY', `HEAD left the branch \`${req.branch}\` while this change was being made (a checkout): nothing was committed; \`git checkout ${req.branch}\` and run it again`, {
        state: head.startsWith('ref:') ? 'switched' : 'detached',
        branch: req.branch,
      });
    }
    assertRootIdle(root, scope);
    let parent = req.parent;
    // The ref file naming the parent still is the common case: the tip's tree is then the one
    // read with the parent, and git need not be asked for either.
    const { tip, tree: tipTree } = parent && req.parentTree && branchRefFromFiles(gitDir, req.branch) === parent ? { tip: parent, tree: req.parentTree } : await branchTip(root, req.branch);
    if (tip !== parent) {
      // Commits of the operator's that leave our paths alone: ours goes on top of them.
      if (!tip || !parent || !(await untouched(root, parent, tip, scope))) {
        throw new TkomaError('ROOT_BUSY', `the branch \`${req.branch}\` moved while this change was being made (a commit, reset or pull touching the same files): nothing was committed; run it again`, {
          state: 'moved',
          branch: req.branch,
        });
      }
      parent = tip;
    }
    const tmp = stagingPath(root, 'index');
    // A fresh clone has no .tkoma/staging until a create made one.
    mkdirSync(dirname(tmp), { recursive: true });
    try {
      // The parent is the tip here (or both are null), so its tree came with it.
      const { tree, whole } = await buildTree(root, gitDir, parent, tipTree, req, tmp);
      if (parent && tree === tipTree) return null;
      const args = ['commit-tree', ...(req.sign ? ['-S'] : []), tree, ...(parent ? ['-p', parent] : []), '-m', req.message];
      commit = (await git(root, args, req.author)).trim();
      req.beforeMove(commit);
      // Compare-and-swap all the same: `git update-ref`, a fetch into the branch or another
      // worktree move it without the index lock.
      await git(root, ['update-ref', '-m', `tkoma-ref: ${req.message.split('\n')[0]}`, `refs/heads/${req.branch}`, commit, parent ?? '0'.repeat(40)]);
      moved = true;
      // Landed. Git's index entries of our paths follow the commit; failing that, they stay as
      // they were. When git's index held exactly the parent's tree, the temporary index now holds
      // exactly the commit's and replaces it (we hold the lock, so nothing wrote it meanwhile);
      // otherwise they are reset in a copy written into the lock file, as git itself does.
      try {
        if (whole && indexIsTree(readFileSync(tmp), tree)) renameSync(tmp, join(gitDir, 'index'));
        else {
          copyFileSync(join(gitDir, 'index'), lock);
          await git(root, ['reset', '-q', commit, '--', ...scope], {}, { GIT_INDEX_FILE: lock });
          renameSync(lock, join(gitDir, 'index'));
        }
      } catch {
        // The branch has the commit; `git status` shows these paths as changed until the next add.
      }
    } finally {
      rmSync(tmp, { force: true });
    }
    return commit;
  } catch (err) {
    if (moved) return commit;
    throw err;
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * The temporary index: the tip's tree (stat data of git's index kept), plus the mutation's paths.
 * `whole`: git's index held exactly the tip's tree (nothing staged by the operator, nothing
 * unmerged), so the `read-tree` was not needed and the result is git's index after the commit.
 */
async function buildTree(root: string, gitDir: string, parent: string | null, parentTree: string | null, req: CommitRequest, tmp: string): Promise<{ tree: string; whole: boolean }> {
  const env = { GIT_INDEX_FILE: tmp };
  let whole = false;
  if (parent === null) await git(root, ['read-tree', '--empty'], {}, env);
  else {
    try {
      if (!existsSync(join(gitDir, 'index'))) throw new Error('no index');
      copyFileSync(join(gitDir, 'index'), tmp);
      whole = parentTree !== null && indexIsTree(readFileSync(tmp), parentTree);
      if (!whole) await git(root, ['read-tree', '-m', parent], {}, env);
    } catch {
      // Unmerged entries elsewhere (a stash pop that conflicted) refuse -m: read the tree plain.
      rmSync(tmp, { force: true });
      await git(root, ['read-tree', parent], {}, env);
    }
  }
  await stageAll(root, req.written, { blobsStored: req.blobsStored, env });
  if (req.tracked.length > 0) await forceAdd(root, req.tracked, env);
  if (req.topicDir) await trackManifest(root, req.topicDir, env);
  return { tree: (await git(root, ['write-tree'], {}, env)).trim(), whole };
}

/**
 * Every file the topic's manifest lists (and topic.md, the manifest) is in the commit, whatever
 * a .gitignore says: a fetched repository's own ignore files, or an operator's rule, must not
 * silently keep reference files out of the history (a clone would then lack them). The manifest
 * is read a piece at a time against the tracked paths: whole, with a set of its paths beside git's
 * listing, it was ~500 MB of a 692k-file create's peak.
 */
async function trackManifest(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const manifest = join(root, dir, '.tkoma-files.jsonl');
  if (!existsSync(manifest)) return;
  const tracked = await trackedUnder(root, dir, env);
  const missing = new Set<string>();
  const consider = (p: string): void => {
    if (!tracked.has(p) && !missing.has(p) && existsSync(join(root, p))) missing.add(p);
  };
  for (const p of [`${dir}/topic.md`, `${dir}/.tkoma-files.jsonl`, `${dir}/.tkoma-skipped.jsonl`]) consider(p);
  await eachPathRecord(manifest, (rec) => consider(`${dir}/${rec.path}`));
  if (missing.size > 0) await forceAdd(root, [...missing], env);
}

/** The paths the (temporary) index holds under `dir`: from its file where git-index.ts can read it (a git process less), else `git ls-files`. */
async function trackedUnder(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<Set<string>> {
  const elsewhere = process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR;
  const entries = env.GIT_INDEX_FILE && !elsewhere && plainPathspecs([dir]) ? readIndexFile(env.GIT_INDEX_FILE, { paths: [dir] }) : null;
  if (entries) return new Set(entries.map((e) => e.path));
  const listed = await git(root, ['ls-files', '-z', '--', dir], {}, env);
  // Walked by offsets: split() made a second array of every path.
  const tracked = new Set<string>();
  for (let at = 0; at < listed.length; ) {
    const end = listed.indexOf('\0', at);
    tracked.add(listed.slice(at, end < 0 ? listed.length : end));
    at = end < 0 ? listed.length : end + 1;
  }
  return tracked;
}

/**
 * The branch's tip and its tree (both null when the branch has no commit), from one `git
 * rev-parse` (`--` makes both names revisions, never paths): the tree was a process of its own.
 */
async function branchTip(root: string, branch: string): Promise<{ tip: string | null; tree: string | null }> {
  const ref = `refs/heads/${branch}`;
  try {
    const [tip, tree] = (await git(root, ['rev-parse', `${ref}^{commit}`, `${ref}^{tree}`, '--'])).split('\n').map((l) => l.trim());
    return tip && tree ? { tip, tree } : { tip: null, tree: null };
  } catch {
    return { tip: null, tree: null };
  }
}

/** `tip` descends from `parent` and its commits since leave `scope` alone. */
async function untouched(root: string, parent: string, tip: string, scope: string[]): Promise<boolean> {
  try {
    await git(root, ['merge-base', '--is-ancestor', parent, tip]);
    return (await git(root, ['diff', '--name-only', parent, tip, '--', ...scope])).trim() === '';
  } catch {
    return false;
  }
}

/**
 * Takes git's own index lock (`index.lock`, created exclusively as git does), waiting a little
 * for an operator's git that holds it; returns its path.
 */
async function lockIndex(gitDir: string): Promise<string> {
  const lock = join(gitDir, 'index.lock');
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(lock, 'wx'));
      return lock;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new TkomaError('LOCKED', `git's index is locked (${lock}): another git is running in the knowledge root; run it again when it is done`, { lock });
        }
        throw err;
      }
      await sleep(100);
    }
  }
}
