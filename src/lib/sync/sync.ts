/**
 * `tkoma-ref sync`: fetch the root's remote, merge it (drivers for notes and manifests, then
 * reconcile.ts for topics fetched on both sides), push, and bring the index in line with the
 * files. Under the same rules as every mutation: only onto the operator's branch, under the write
 * lock, never into an operation the tool did not start, never over uncommitted operator changes.
 * A merge that leaves conflicts stays in progress for the operator; `sync --continue` finishes it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { TkomaError } from '../errors.js';
import { withLock } from '../lock.js';
import type { Progress } from '../progress.js';
import { git, gitSync } from '../root-git.js';
import { stateDir } from '../store/root-path.js';
import { allTopics, conflictReason, hasConflictMarkers, type SyncConflict, topicChanges, type TopicChanges, topicOf, unmergedStages } from './changes.js';
import { ensureMergeDrivers } from './install.js';
import { reconcileMerge } from './reconcile.js';
import { commitsBetween, fetchUpstream, requireUpstream, resolveRef, type Upstream } from './remote.js';
import { gitDirOf, readRootGitState, unmergedPaths } from '../root-state.js';

export interface SyncOptions {
  dryRun?: boolean;
  continue?: boolean;
  progress: Progress;
  embedderFlag?: string;
}

export interface SyncSide {
  commits: string[];
  topics: TopicChanges;
}

export interface SyncResult {
  status: 'up_to_date' | 'synced' | 'conflicted' | 'dry_run';
  branch: string;
  upstream: string;
  /** What came in from the remote. */
  pulled: SyncSide;
  /** What went out to it (with --dry-run: what would). */
  pushed: SyncSide;
  /** Topics changed on both sides and merged by themselves; `converged`: fetched again on both, the newer fetch kept. */
  merged: { topics: string[]; converged: string[]; commit: string | null; resolved?: string[] };
  conflicts: SyncConflict[];
  index: { synced: string[]; removed: string[]; warnings: string[] };
  warnings: string[];
}

/** What a stopped sync left, so `--continue` knows the merge is its own. */
interface PendingSync {
  head: string;
  merge_head: string;
  upstream: string;
  conflicts: SyncConflict[];
}

const pendingFile = (root: string): string => join(stateDir(root), 'sync-merge.json');

function readPending(root: string): PendingSync | null {
  try {
    return JSON.parse(readFileSync(pendingFile(root), 'utf8')) as PendingSync;
  } catch {
    return null;
  }
}

function mergeHead(root: string): string | null {
  const dir = gitDirOf(root);
  if (!dir) return null;
  try {
    return readFileSync(join(dir, 'MERGE_HEAD'), 'utf8').trim().split('\n')[0] || null;
  } catch {
    return null;
  }
}

function busy(message: string, details: Record<string, unknown>): TkomaError {
  return new TkomaError('ROOT_BUSY', message, details);
}

function emptyChanges(): TopicChanges {
  return { added: [], changed: [], removed: [] };
}

/**
 * Git's answers for pairs of commit ids during one sync: what two commits hold never changes,
 * and a sync asks the same pair more than once (what it pulled, then what to index).
 */
const diffs = new Map<string, string>();

function changesBetween(root: string, from: string | null, to: string | null): TopicChanges {
  if (!to || from === to) return emptyChanges();
  const args = from ? ['diff', '--no-renames', '--name-status', '-z', from, to, '--', 'references'] : ['diff-tree', '-r', '--root', '--no-renames', '--name-status', '-z', '--no-commit-id', to, '--', 'references'];
  // Only full ids name fixed commits (a ref name such as HEAD moves).
  const fixed = [from ?? '', to].every((c) => c === '' || /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(c));
  const key = JSON.stringify([root, ...args]);
  let out = fixed ? diffs.get(key) : undefined;
  if (out === undefined) {
    out = gitSync(root, args);
    if (fixed) diffs.set(key, out);
  }
  return topicChanges(out);
}

function mergeBase(root: string, a: string, b: string): string | null {
  try {
    return gitSync(root, ['merge-base', a, b]).trim() || null;
  } catch {
    return null;
  }
}

/** The conflicts git holds now, each with the operator's reason. */
export function currentConflicts(root: string): SyncConflict[] {
  const stages = unmergedStages(gitSync(root, ['ls-files', '-u', '-z']));
  const out: SyncConflict[] = [];
  for (const [path, s] of [...stages].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let markersInFront = false;
    if (path.endsWith('/topic.md')) {
      try {
        const text = readFileSync(join(gitSync(root, ['rev-parse', '--show-toplevel']).trim(), path), 'utf8');
        const end = text.indexOf('\n+++', 3);
        markersInFront = end > 0 && hasConflictMarkers(text.slice(0, end));
      } catch {
        // deleted in the work tree
      }
    }
    out.push({ path, topic_id: topicOf(path), reason: conflictReason(path, s, markersInFront) });
  }
  return out;
}

/** Refuses a root whose state is not the tool's to change (the sync's own stopped merge aside). */
function assertSyncable(root: string, pending: PendingSync | null): string {
  if (!gitDirOf(root)) throw new TkomaError('GIT_FAILED', `the knowledge root ${root} is not a git repository`, {});
  const state = readRootGitState(root);
  const ours = pending && state.operation === 'merge' && mergeHead(root) === pending.merge_head;
  if (state.operation && !ours) {
    throw busy(`a ${state.operation} the tool did not start is in progress in the knowledge root: finish or abort it with git first`, { state: state.operation, branch: state.branch });
  }
  if (!state.branch) throw busy('the knowledge root is on a detached HEAD, not on a branch: `git checkout main` (or the branch you work on) first', { state: 'detached' });
  if (!ours && state.unmerged.length > 0) throw busy(`unmerged paths in the knowledge root: ${state.unmerged.slice(0, 3).join(', ')}: resolve and commit them first`, { state: 'unmerged', unmerged: state.unmerged });
  return state.branch;
}

/** Tracked files the operator changed and did not commit: a merge could mix them in, so sync refuses. */
function assertClean(root: string): void {
  const dirty = gitSync(root, ['status', '--porcelain', '-z', '--untracked-files=no']).split('\0').filter(Boolean).map((l) => l.slice(3));
  if (dirty.length > 0) {
    throw busy(`uncommitted changes in the knowledge root (${dirty.slice(0, 3).join(', ')}${dirty.length > 3 ? ` and ${dirty.length - 3} more` : ''}): commit them (or \`git stash\`), then sync; nothing was fetched or merged`, { state: 'uncommitted', paths: dirty.slice(0, 50) });
  }
}

export async function syncRoot(root: string, opts: SyncOptions): Promise<SyncResult> {
  diffs.clear(); // kept for one sync: a long-lived process (serve, watch) syncs many times
  let pending = readPending(root);
  if (pending && mergeHead(root) !== pending.merge_head) {
    // The operator finished (or aborted) the stopped merge with git: nothing of ours is pending.
    rmSync(pendingFile(root), { force: true });
    pending = null;
  }
  const branch = assertSyncable(root, pending);
  const up = requireUpstream(root, branch);
  const upstream = `${up.remote}/${up.remoteBranch}`;
  if (pending && !opts.continue) {
    const conflicts = currentConflicts(root);
    throw busy(`a sync stopped on conflicts (${conflicts.length ? conflicts.map((c) => c.path).slice(0, 3).join(', ') : 'resolved, not committed'}): resolve them (edit, \`git add\`), then \`tkoma-ref sync --continue\`; or \`git merge --abort\``, { state: 'sync', conflicts });
  }
  const result: SyncResult = {
    status: 'up_to_date',
    branch,
    upstream,
    pulled: { commits: [], topics: emptyChanges() },
    pushed: { commits: [], topics: emptyChanges() },
    merged: { topics: [], converged: [], commit: null },
    conflicts: [],
    index: { synced: [], removed: [], warnings: [] },
    warnings: [],
  };
  let startHead = resolveRef(root, 'HEAD');
  if (pending) {
    startHead = pending.head;
    await finishPending(root, pending, result);
  } else if (!opts.dryRun) {
    assertClean(root);
    await ensureMergeDrivers(root);
  }
  const ownMerges: string[] = result.merged.commit ? [result.merged.commit] : [];
  for (let round = 0; ; round++) {
    const tip = await opts.progress.task(`Fetch ${upstream}`, () => fetchUpstream(root, up));
    if (opts.dryRun) return dryRun(root, tip, result);
    const merged = await withLock(root, 'write', () => integrate(root, up, tip, result, opts.progress));
    if (merged === 'conflicted') break;
    if (result.merged.commit && !ownMerges.includes(result.merged.commit)) ownMerges.push(result.merged.commit);
    const head = resolveRef(root, 'HEAD');
    const out = commitsBetween(root, tip, head);
    if (out.length === 0) break;
    if (await opts.progress.task(`Push to ${upstream}`, () => push(root, up))) {
      result.pushed.commits = out;
      result.pushed.topics = changesBetween(root, tip ? mergeBase(root, tip, head!) : null, head);
      break;
    }
    // The remote moved since the fetch: fetch and merge again (a few times, then say so).
    if (round >= 2) {
      result.warnings.push('the remote kept moving: the merge is committed here but not pushed; run `tkoma-ref sync` again');
      break;
    }
  }
  const end = resolveRef(root, 'HEAD');
  const stopped = mergeHead(root);
  const incoming = stopped ?? end;
  result.pulled.commits = commitsBetween(root, startHead, incoming).filter((c) => !ownMerges.includes(c));
  result.pulled.topics = changesBetween(root, stopped && startHead ? mergeBase(root, startHead, stopped) : startHead, incoming);
  if (result.conflicts.length > 0) result.status = 'conflicted';
  else if (result.pulled.commits.length > 0 || result.pushed.commits.length > 0) result.status = 'synced';
  const conflictedTopics = new Set(result.conflicts.map((c) => c.topic_id).filter((x): x is string => x !== null));
  await syncIndex(root, startHead, end, conflictedTopics, result, opts);
  return result;
}

async function push(root: string, up: Upstream): Promise<boolean> {
  try {
    await git(root, ['push', '-q', '--no-verify', up.remote, `HEAD:refs/heads/${up.remoteBranch}`]);
    return true;
  } catch (err) {
    if (err instanceof TkomaError && /\[rejected\]|non-fast-forward|fetch first/i.test(err.message)) return false;
    throw err;
  }
}

/** Under the write lock: re-check the root, then fast-forward or merge the fetched tip. */
async function integrate(root: string, up: Upstream, tip: string | null, result: SyncResult, progress: Progress): Promise<'none' | 'merged' | 'conflicted'> {
  assertSyncable(root, null);
  assertClean(root);
  const head = resolveRef(root, 'HEAD');
  if (!tip || !head || tip === head) return 'none';
  // One `git merge-base` answers what two `--is-ancestor` did: a commit is an ancestor of the
  // other exactly when it is their best common ancestor.
  const base = mergeBase(root, head, tip);
  if (base === tip) return 'none';
  if (base === head) {
    await progress.task(`Fast-forward to ${up.remote}/${up.remoteBranch}`, () => mergeOrConflict(root, ['merge', '-q', '--ff-only', tip]));
    return 'merged';
  }
  const incoming = commitsBetween(root, head, tip).length;
  const message = `sync: merge ${up.remote}/${up.remoteBranch} (${incoming} commit${incoming === 1 ? '' : 's'})`;
  return progress.task(`Merge ${up.remote}/${up.remoteBranch}`, async () => {
    // No rename detection: a topic deleted here and a similar one created there (same upstream
    // files) is not a rename, and following one writes this side's changes into the other topic.
    // The `recursive` strategy, because `ort` (git 2.39) still pairs such folders with no-renames.
    await mergeOrConflict(root, ['merge', '-q', '--no-ff', '--no-commit', '--no-verify', '-s', 'recursive', '-X', 'no-renames', '-m', message, tip]);
    const both = base ? allTopics(changesBetween(root, base, head)).filter((id) => allTopics(changesBetween(root, base, tip)).includes(id)) : [];
    const rec = base ? await reconcileMerge(root, base, head, tip, new Set(unmergedPaths(root))) : { converged: [], deleted_and_changed: [] };
    const conflicts = currentConflicts(root);
    const conflicted = new Set(conflicts.map((c) => c.topic_id));
    result.merged.topics = both.filter((id) => !conflicted.has(id));
    result.merged.converged = rec.converged.filter((id) => !conflicted.has(id));
    if (conflicts.length > 0) {
      result.conflicts = conflicts;
      const pending: PendingSync = { head, merge_head: tip, upstream: `${up.remote}/${up.remoteBranch}`, conflicts };
      writeFileSync(pendingFile(root), JSON.stringify(pending, null, 2) + '\n');
      return 'conflicted' as const;
    }
    await git(root, ['commit', '-q', '--no-verify', '--no-edit']);
    result.merged.commit = resolveRef(root, 'HEAD');
    return 'merged' as const;
  });
}

/** A merge that stops on conflicts is expected; anything else (untracked files in the way) is not, and left nothing behind. */
async function mergeOrConflict(root: string, args: string[]): Promise<void> {
  try {
    await git(root, args);
  } catch (err) {
    if (mergeHead(root) && unmergedPaths(root).length > 0) return;
    if (err instanceof TkomaError && /would be overwritten/.test(err.message)) {
      throw busy(`files in the knowledge root are in the way of the merge (git: ${err.message.split('\n').slice(-4).join(' ').trim()}): move or commit them, then sync`, { state: 'untracked' });
    }
    throw err;
  }
}

/** `--continue`: the operator resolved the stopped merge; check it, and commit it. */
async function finishPending(root: string, pending: PendingSync, result: SyncResult): Promise<void> {
  await withLock(root, 'write', async () => {
    const left = unmergedPaths(root);
    if (left.length > 0) {
      throw busy(`${left.length} path${left.length === 1 ? '' : 's'} still unmerged (${left.slice(0, 3).join(', ')}): edit them, \`git add\` them, then \`tkoma-ref sync --continue\``, { state: 'sync', conflicts: currentConflicts(root) });
    }
    const marked = pending.conflicts.map((c) => c.path).filter((p) => {
      try {
        return hasConflictMarkers(readFileSync(join(root, p), 'utf8'));
      } catch {
        return false;
      }
    });
    if (marked.length > 0) {
      throw busy(`conflict markers are still in ${marked.join(', ')}: edit them out, \`git add\`, then \`tkoma-ref sync --continue\``, { state: 'sync', paths: marked });
    }
    await git(root, ['commit', '-q', '--no-verify', '--no-edit']);
    result.merged.commit = resolveRef(root, 'HEAD');
    // The operator's own resolution, not a merge that went by itself.
    result.merged.resolved = [...new Set(pending.conflicts.map((c) => c.topic_id ?? c.path))];
    rmSync(pendingFile(root), { force: true });
  });
}

function dryRun(root: string, tip: string | null, result: SyncResult): SyncResult {
  const head = resolveRef(root, 'HEAD');
  const base = tip && head ? mergeBase(root, head, tip) : null;
  result.status = 'dry_run';
  result.pulled = { commits: commitsBetween(root, head, tip), topics: changesBetween(root, base ?? head, tip) };
  result.pushed = { commits: commitsBetween(root, tip, head), topics: changesBetween(root, base ?? tip, head) };
  if (tip && head && base && base !== tip && base !== head) {
    const theirs = allTopics(result.pulled.topics);
    result.merged.topics = allTopics(result.pushed.topics).filter((id) => theirs.includes(id));
    result.warnings.push(result.merged.topics.length > 0 ? `topics changed on both sides, to be merged (conflicts show when merging): ${result.merged.topics.join(', ')}` : 'both sides moved: a merge commit would join them');
  }
  return result;
}

/** The index follows the files: the topics the sync changed here are synced, the removed ones dropped. */
async function syncIndex(root: string, from: string | null, to: string | null, conflicted: Set<string>, result: SyncResult, opts: SyncOptions): Promise<void> {
  const changes = changesBetween(root, from, to);
  // Topics written in the work tree by a stopped merge (not committed yet) are indexed too, conflicted ones excepted.
  const inTree = mergeHead(root) ? changesBetween(root, from, mergeHead(root)) : emptyChanges();
  const ids = [...new Set([...allTopics(changes), ...allTopics(inTree)])].filter((id) => !conflicted.has(id));
  const present = ids.filter((id) => existsSync(join(root, 'references', id, 'topic.md')));
  const removed = ids.filter((id) => !present.includes(id));
  if (removed.length > 0) {
    const { removeTopicIndex } = await import('../index/service.js');
    for (const id of removed) await removeTopicIndex(root, id);
    result.index.removed = removed;
  }
  if (present.length > 0) {
    const { indexTopics } = await import('../topics/indexing.js');
    const outcome = await indexTopics(root, present, { embedderFlag: opts.embedderFlag, progress: opts.progress, author: {} });
    result.index.synced = present;
    result.index.warnings = outcome.warnings;
  }
}
