/**
 * The remote a root shares through: the current branch's upstream (`branch.<b>.remote` and
 * `.merge`), else `origin` with the same branch name. Also the cheap "is this root behind what it
 * last fetched" question refresh and watch ask (no network: the remote-tracking ref as it is).
 */
import { TkomaError } from '../errors.js';
import { keyPattern, readGitConfigMatching } from '../git-config.js';
import { headFromObjects } from '../git-refs.js';
import { git, gitSync } from '../root-git.js';
import { readRootGitState } from '../root-state.js';

export interface Upstream {
  branch: string;
  remote: string;
  /** The branch on the remote (`main`). */
  remoteBranch: string;
  /** Where fetch leaves it: `refs/remotes/<remote>/<remoteBranch>`. */
  trackingRef: string;
}

/** The upstream of `branch`, or null when the branch has none and there is no `origin`. */
export function findUpstream(root: string, branch: string): Upstream | null {
  // Both keys from one git process (a `git config --get` each before), trimmed as their output
  // was, and with them every `remote.origin.<key>`: `git remote` lists exactly the names that
  // have such a key, so it is asked only when that read failed (and then fails as it did).
  const config = readGitConfigMatching(root, `${keyPattern([`branch.${branch}.remote`, `branch.${branch}.merge`])}|^remote\\.origin\\.[^.]+$`);
  let remote = config?.get(`branch.${branch}.remote`)?.trim() || null;
  let merge = config?.get(`branch.${branch}.merge`)?.trim() || null;
  if (!remote || remote === '.') {
    const origin = config ? [...config.keys()].some((k) => k.startsWith('remote.origin.')) : gitSync(root, ['remote']).split('\n').map((s) => s.trim()).includes('origin');
    if (!origin) return null;
    remote = 'origin';
    merge = null;
  }
  const remoteBranch = (merge ?? `refs/heads/${branch}`).replace(/^refs\/heads\//, '');
  return { branch, remote, remoteBranch, trackingRef: `refs/remotes/${remote}/${remoteBranch}` };
}

export function requireUpstream(root: string, branch: string): Upstream {
  const up = findUpstream(root, branch);
  if (!up) {
    throw new TkomaError('NO_REMOTE', `the knowledge root has no remote to sync with: \`git remote add origin <url>\` (a bare repository everyone can reach), then \`tkoma-ref sync\``, { branch });
  }
  return up;
}

/** The commit a ref names, or null. */
export function resolveRef(root: string, ref: string): string | null {
  // HEAD from the files where that is sure (git-refs.ts): a sync asks for it four times.
  if (ref === 'HEAD') {
    const known = headFromObjects(root);
    if (known) return known.head;
  }
  try {
    return gitSync(root, ['rev-parse', '--verify', '-q', `${ref}^{commit}`]).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Fetches the remote branch into its tracking ref. A remote without that branch yet (a fresh bare
 * repository) leaves it absent: the first sync just pushes.
 */
export async function fetchUpstream(root: string, up: Upstream): Promise<string | null> {
  try {
    await git(root, ['fetch', '-q', '--no-tags', up.remote, `+refs/heads/${up.remoteBranch}:${up.trackingRef}`]);
  } catch (err) {
    if (err instanceof TkomaError && /couldn't find remote ref/i.test(err.message)) return resolveRef(root, up.trackingRef);
    throw err;
  }
  return resolveRef(root, up.trackingRef);
}

/** Commits in `to` not in `from` (newest first). */
export function commitsBetween(root: string, from: string | null, to: string | null): string[] {
  if (!to) return [];
  const out = gitSync(root, ['rev-list', to, ...(from ? [`^${from}`] : [])]).trim();
  return out ? out.split('\n') : [];
}

/**
 * How many commits the root's branch lacks from its remote as last fetched (no network), with a
 * sentence for refresh and watch; null when it is not behind, or has no remote. Never pulls.
 */
export function behindRemote(root: string): { behind: number; upstream: string; message: string } | null {
  try {
    // The branch from git's HEAD file, as mutations read it (root-state.ts), not a `git symbolic-ref`.
    const head = readRootGitState(root, { unmerged: false }).branch;
    if (!head) return null;
    const up = findUpstream(root, head);
    if (!up) return null;
    // The tracking ref resolved by the count itself (a missing one fails it, as the `rev-parse`
    // asked before did; `--` keeps both names revisions).
    const behind = Number(gitSync(root, ['rev-list', '--count', `HEAD..${up.trackingRef}`, '--']).trim());
    if (!(behind > 0)) return null;
    const name = `${up.remote}/${up.remoteBranch}`;
    return { behind, upstream: name, message: `the knowledge root is ${behind} commit${behind === 1 ? '' : 's'} behind ${name} (as last fetched): \`tkoma-ref sync\` brings them in; nothing was pulled` };
  } catch {
    return null;
  }
}
