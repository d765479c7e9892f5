/**
 * What a remote says about itself without downloading anything: default branch, ref → commit
 * (`git ls-remote --symref`), and GitHub's repository metadata when the host is github.com.
 */
import { spawn } from 'node:child_process';
import { TkomaError } from '../errors.js';
import type { SourcePolicy } from '../net/policy.js';
import { envSetting } from '../settings.js';
import { DEFAULT_NETWORK_TIMEOUT_MS, gitError, runGit } from './git-run.js';
import { gitUrlScheme, isFullCommitSha, validateGitUrl, validateRef } from './git-url.js';

export interface GitSourceSpec {
  url: string;
  ref?: string;
  paths?: string[];
}

export interface GitCallOptions {
  /** Accept file:// URLs (default true). */
  allowFile?: boolean;
  /** Per git call; network calls default to 5 minutes. */
  timeoutMs?: number;
  /** The root's network policy and local roots; absent: public hosts only, local paths unchecked. */
  policy?: SourcePolicy;
}

export interface LsRemoteListing {
  /** symref name → target, e.g. HEAD → refs/heads/main */
  symrefs: Map<string, string>;
  /** ref name (including peeled `^{}` entries) → object id */
  refs: Map<string, string>;
}

export function parseLsRemote(text: string): LsRemoteListing {
  const symrefs = new Map<string, string>();
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const sym = /^ref: (\S+)\t(\S+)$/.exec(line);
    if (sym) {
      symrefs.set(sym[2]!, sym[1]!);
      continue;
    }
    const m = /^([0-9a-f]{40}|[0-9a-f]{64})\t(\S+)$/.exec(line);
    if (m) refs.set(m[2]!, m[1]!);
  }
  return { symrefs, refs };
}

export interface ResolvedRef {
  /** The name a user reads: the given ref, the default branch's short name, or "HEAD". */
  ref: string;
  /** What to fetch: a full ref name, "HEAD", or the commit id itself. */
  fetchTarget: string;
  /** The commit the remote currently has there (peeled for annotated tags). */
  commit: string;
}

/** The ls-remote patterns that are enough to resolve `ref` (and always HEAD for the default branch). */
export function lsRemotePatterns(ref?: string): string[] {
  if (ref === undefined || ref === 'HEAD' || isFullCommitSha(ref)) return ['HEAD'];
  if (ref.startsWith('refs/')) return ['HEAD', ref, `${ref}^{}`];
  return ['HEAD', `refs/heads/${ref}`, `refs/tags/${ref}`, `refs/tags/${ref}^{}`];
}

export function defaultBranchOf(listing: LsRemoteListing): string | null {
  const target = listing.symrefs.get('HEAD');
  if (!target) return null;
  return target.startsWith('refs/heads/') ? target.slice('refs/heads/'.length) : target;
}

/**
 * Resolves a ref against a listing. Branches win over tags of the same name (what a user asking
 * for "main" means). Returns null when the remote has no such ref.
 */
export function resolveRefIn(listing: LsRemoteListing, ref?: string): ResolvedRef | null {
  if (ref !== undefined && isFullCommitSha(ref)) {
    return { ref, fetchTarget: ref.toLowerCase(), commit: ref.toLowerCase() };
  }
  if (ref === undefined || ref === 'HEAD') {
    const commit = listing.refs.get('HEAD');
    if (!commit) return null;
    return { ref: ref ?? defaultBranchOf(listing) ?? 'HEAD', fetchTarget: 'HEAD', commit };
  }
  const candidates = ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const full of candidates) {
    const oid = listing.refs.get(`${full}^{}`) ?? listing.refs.get(full);
    if (oid) return { ref, fetchTarget: full, commit: oid };
  }
  return null;
}

/** Whether a named ref resolved to a branch or a tag (the default branch counts as a branch). */
export function refKind(resolved: Pick<ResolvedRef, 'fetchTarget'>): 'branch' | 'tag' | undefined {
  if (resolved.fetchTarget === 'HEAD' || resolved.fetchTarget.startsWith('refs/heads/')) return 'branch';
  if (resolved.fetchTarget.startsWith('refs/tags/')) return 'tag';
  return undefined;
}

export interface RemoteState {
  default_branch: string | null;
  resolved: ResolvedRef;
}

/** Checks the inputs before any git call. */
export function validateSource(src: GitSourceSpec, opts: GitCallOptions = {}): void {
  if (!src || typeof src.url !== 'string') throw new TkomaError('INVALID_URL', 'A git source needs a url');
  validateGitUrl(src.url, { allowFile: opts.allowFile ?? true });
  if (src.ref !== undefined) validateRef(src.ref);
}

export function allowsFile(url: string): boolean {
  return gitUrlScheme(url) === 'file';
}

export async function lsRemote(url: string, patterns: string[], opts: GitCallOptions = {}): Promise<LsRemoteListing> {
  try {
    const { stdout } = await runGit(['ls-remote', '--symref', '--', url, ...patterns], {
      allowFile: allowsFile(url),
      remote: url,
      policy: opts.policy,
      timeoutMs: opts.timeoutMs ?? Math.min(DEFAULT_NETWORK_TIMEOUT_MS, 60_000),
    });
    return parseLsRemote(stdout.toString('utf8'));
  } catch (err) {
    throw gitError(err, 'SOURCE_UNREACHABLE', 'Cannot reach the git repository', url);
  }
}

function refNotFound(url: string, ref: string | undefined): TkomaError {
  if (ref === undefined) {
    return new TkomaError('EMPTY_FETCH', 'The repository has no commits', { url });
  }
  if (/^[0-9a-fA-F]{4,39}$/.test(ref)) {
    return new TkomaError('INVALID_REF', `"${ref}" looks like an abbreviated commit id; give the full 40-character id`, {
      ref,
      url,
    });
  }
  return new TkomaError('INVALID_REF', `The repository has no branch or tag named "${ref}"`, {
    ref,
    url,
    reason: 'not_found',
  });
}

/**
 * Default branch and the commit `src.ref` points at, in one ls-remote round trip; none when
 * `listing` is the remote's answer for this url and ref that the caller has just read
 * (remoteCommit's: refresh checks, then fetches).
 */
export async function remoteState(src: GitSourceSpec, opts: GitCallOptions = {}, listing?: LsRemoteListing): Promise<RemoteState> {
  validateSource(src, opts);
  listing ??= await lsRemote(src.url, lsRemotePatterns(src.ref), opts);
  const resolved = resolveRefIn(listing, src.ref);
  if (!resolved) throw refNotFound(src.url, src.ref);
  return { default_branch: defaultBranchOf(listing), resolved };
}

/**
 * The commit the source's ref points at now, for a cheap up-to-date check, with the listing it
 * was read from: a fetch that follows passes it on (FetchOptions.listing) instead of asking the
 * remote again. A full commit id pins the source, so it is returned without any network call
 * (and no listing). Null when the ref no longer exists; SOURCE_UNREACHABLE when the remote
 * cannot be reached.
 */
export async function remoteCommit(src: GitSourceSpec, opts: GitCallOptions = {}): Promise<{ commit: string | null; listing?: LsRemoteListing }> {
  validateSource(src, opts);
  if (src.ref !== undefined && isFullCommitSha(src.ref)) return { commit: src.ref.toLowerCase() };
  const listing = await lsRemote(src.url, lsRemotePatterns(src.ref), opts);
  return { commit: resolveRefIn(listing, src.ref)?.commit ?? null, listing };
}

export interface GithubMeta {
  /** Repository size in bytes as GitHub reports it (its `size` is in KiB, whole history). */
  size_bytes?: number;
  description?: string;
  default_branch?: string;
}

export function parseGithubRepoJson(json: unknown): GithubMeta | null {
  if (!json || typeof json !== 'object') return null;
  const o = json as Record<string, unknown>;
  const meta: GithubMeta = {};
  if (typeof o.size === 'number' && Number.isFinite(o.size) && o.size >= 0) meta.size_bytes = o.size * 1024;
  if (typeof o.description === 'string' && o.description.trim() !== '') meta.description = o.description.trim();
  if (typeof o.default_branch === 'string') meta.default_branch = o.default_branch;
  return Object.keys(meta).length > 0 ? meta : null;
}

export interface GithubMetaOptions {
  /** REST API base; TKOMA_REF_GITHUB_API or https://api.github.com by default. */
  apiBase?: string;
  /** Try the `gh` CLI first (default true): it carries the user's GitHub login. */
  useGh?: boolean;
  timeoutMs?: number;
}

/** GitHub's metadata for owner/repo, or null when neither `gh` nor the REST API answers. */
export async function githubMetadata(owner: string, repo: string, opts: GithubMetaOptions = {}): Promise<GithubMeta | null> {
  const timeoutMs = opts.timeoutMs ?? 8_000;
  if (opts.useGh ?? true) {
    const viaGh = await ghApi(`repos/${owner}/${repo}`, timeoutMs);
    if (viaGh) return parseGithubRepoJson(viaGh);
  }
  const base = (opts.apiBase ?? envSetting('githubApi') ?? 'https://api.github.com').replace(/\/+$/, '');
  try {
    const res = await fetch(`${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`, {
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'tkoma-ref' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return null;
    return parseGithubRepoJson(await res.json());
  } catch {
    return null;
  }
}

/** `gh api <path>` parsed as JSON, or null when gh is missing, not logged in, or fails. */
function ghApi(path: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('gh', ['api', '--', path], {
        env: { ...process.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
        shell: false,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
      });
    } catch {
      resolve(null);
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', () => resolve(null));
    child.on('close', (code) => {
      if (code !== 0) return resolve(null);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(null);
      }
    });
  });
}
