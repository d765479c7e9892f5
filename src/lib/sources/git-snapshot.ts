/**
 * One commit of a remote, held in a temporary bare repository: fetched shallow (depth 1) and
 * blob-less where the server allows, its tree listed and split into wanted files and skipped
 * ones. Probe and fetch both work from it; the directory is removed when they are done.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TkomaError } from '../errors.js';
import { unsafePathReason } from '../safety/paths.js';
import { linguistMarks, type AttributesFile, type LinguistMarks } from './git-attributes.js';
import { outputFolders, requestedExplicitly, skipReason } from './git-filter.js';
import { allowsFile, type GitCallOptions } from './git-remote.js';
import { DEFAULT_NETWORK_TIMEOUT_MS, GitFailure, gitError, runGit, summariseGitStderr, uploadPackArgs } from './git-run.js';
import { fetchBlobs, isSelected, listTree, presentBlobSizes, readBlobs, unmatchedPaths, type TreeEntry } from './git-tree.js';
import { repoDisplayName } from './git-url.js';

export interface Skipped {
  path: string;
  reason: string;
  /** Size in bytes when the blob was at hand. */
  bytes?: number;
}

export interface Snapshot {
  dir: string;
  url: string;
  commit: string;
  /** Selected regular files that no name rule drops, sorted by path. */
  candidates: TreeEntry[];
  /** Selected entries dropped by name, symlink or submodule rules. */
  skipped: Skipped[];
  /** Requested paths that match nothing in the tree. */
  missing: string[];
  /** Sizes of the blobs present locally; absent blobs were filtered out by the server. */
  sizes: Map<string, number>;
  /** The build-output folders of the whole tree (outputFolders), for the content rules too. */
  outputDirs: ReadonlySet<string>;
  /** Candidates the user named in `paths` (see requestedExplicitly): evidence rules give way. */
  requested: ReadonlySet<string>;
  /** Blob id of every selected path, to give skipped files their size. */
  oids: Map<string, string>;
  /** What the tree's `.gitattributes` files mark each path as (linguist-generated, linguist-vendored). */
  marksOf: (path: string) => LinguistMarks;
  opts: GitCallOptions;
}

/** Options for skipReason on one candidate of the snapshot. */
export function ruleContext(snap: Snapshot, path: string): { outputDirs: ReadonlySet<string>; requested: boolean; marks: LinguistMarks } {
  return { outputDirs: snap.outputDirs, requested: snap.requested.has(path), marks: snap.marksOf(path) };
}

/** Fills in the size of each skipped file whose blob is present. */
export function withSizes(snap: Snapshot, skipped: Skipped[]): Skipped[] {
  return skipped.map((s) => {
    if (s.bytes !== undefined) return s;
    const n = snap.sizes.get(snap.oids.get(s.path) ?? '');
    return n === undefined ? s : { ...s, bytes: n };
  });
}

const byPath = (a: TreeEntry, b: TreeEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Splits a tree listing by the user's paths, the repository's marks and the name-based skip rules. */
export function classify(
  entries: TreeEntry[],
  paths: string[] | undefined,
  marksOf: (path: string) => LinguistMarks = () => ({}),
): Pick<Snapshot, 'candidates' | 'skipped' | 'missing' | 'outputDirs' | 'requested' | 'oids'> {
  const candidates: TreeEntry[] = [];
  const skipped: Skipped[] = [];
  // Package roots and output folders are judged on the whole tree, whatever `paths` selects.
  const outputDirs = outputFolders(entries.filter((e) => e.type === 'blob').map((e) => e.path));
  const requested = new Set<string>();
  const oids = new Map<string, string>();
  for (const e of entries) {
    if (!isSelected(e.path, paths)) continue;
    oids.set(e.path, e.oid);
    if (e.type === 'commit') {
      skipped.push({ path: e.path, reason: 'submodule' });
      continue;
    }
    if (e.type !== 'blob') continue;
    // A crafted tree can hold names no checkout would make (`..`, control characters): never written.
    const asked = requestedExplicitly(e.path, paths, outputDirs, marksOf);
    const reason = unsafePathReason(e.path)
      ? 'unsafe_path'
      : skipReason(e.path, Number.NaN, undefined, { isSymlink: e.mode === '120000', outputDirs, requested: asked, marks: marksOf(e.path) });
    if (reason) skipped.push({ path: e.path, reason });
    else {
      candidates.push(e);
      if (asked) requested.add(e.path);
    }
  }
  candidates.sort(byPath);
  const missing = unmatchedPaths(
    entries.map((e) => e.path),
    paths,
  );
  return { candidates, skipped, missing, outputDirs, requested, oids };
}

/** Runs fn with a snapshot of `target` (a full ref name, HEAD or a commit id) and cleans up. */
export async function withSnapshot<T>(
  url: string,
  target: string,
  paths: string[] | undefined,
  opts: GitCallOptions,
  fn: (snap: Snapshot) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'tkoma-ref-git-'));
  try {
    await shallowFetch(dir, url, target, opts);
    const local = { cwd: dir, timeoutMs: opts.timeoutMs };
    const commits = new Set<string>();
    const sizes = await presentBlobSizes(dir, local, commits).catch((e) => {
      throw gitError(e, 'FETCH_FAILED', 'git cat-file failed', url);
    });
    const commit = (await fetchedCommit(dir, commits)) ?? (await runGit(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], { cwd: dir })).stdout.toString('utf8').trim();
    const entries = await listTree(dir, commit, local).catch((e) => {
      throw gitError(e, 'FETCH_FAILED', 'git ls-tree failed', url);
    });
    const marksOf = linguistMarks(await attributesFiles(dir, url, entries, sizes, opts));
    return await fn({ dir, url, commit, ...classify(entries, paths, marksOf), sizes, marksOf, opts });
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Bytes read of one `.gitattributes` file: far past any real one, bounded against a crafted one. */
const ATTRIBUTES_MAX_BYTES = 1024 * 1024;

/**
 * Every `.gitattributes` of the tree (whatever `paths` selects: a root file governs a subfolder
 * too), its blobs downloaded in one request when the server left them out. Symbolic links are
 * passed over, as git itself does for attributes files in a tree.
 */
async function attributesFiles(dir: string, url: string, entries: TreeEntry[], present: ReadonlyMap<string, number>, opts: GitCallOptions): Promise<AttributesFile[]> {
  const files = entries.filter((e) => e.type === 'blob' && e.mode !== '120000' && (e.path === '.gitattributes' || e.path.endsWith('/.gitattributes')));
  if (files.length === 0) return [];
  const oids = [...new Set(files.map((e) => e.oid))];
  try {
    const absent = oids.filter((oid) => !present.has(oid));
    await fetchBlobs(dir, absent, { allowFile: allowsFile(url), timeoutMs: opts.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS, remote: url, policy: opts.policy });
    const blobs = await readBlobs(dir, oids, { headBytes: ATTRIBUTES_MAX_BYTES, timeoutMs: opts.timeoutMs });
    return files.map((e) => ({ dir: e.path.slice(0, Math.max(0, e.path.length - '/.gitattributes'.length)), text: blobs.get(e.oid)?.toString('utf8') ?? '' }));
  } catch (err) {
    throw gitError(err, 'FETCH_FAILED', 'reading the .gitattributes files failed', url);
  }
}

/**
 * A value as git's config file reads it back unchanged: quoted, with git's escapes. Written by
 * us rather than by `git config remote.origin.url`, a git process of its own (~15 ms of CPU).
 */
export function configFileValue(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

/**
 * The commit FETCH_HEAD names, when the object store says it is a commit (`commits`: every
 * commit there, from the same `cat-file` that sized the blobs); null otherwise (an annotated tag
 * is peeled by `git rev-parse`, as before).
 */
async function fetchedCommit(dir: string, commits: ReadonlySet<string>): Promise<string | null> {
  try {
    const m = /^([0-9a-f]{40}|[0-9a-f]{64})\t/.exec(await readFile(join(dir, 'FETCH_HEAD'), 'utf8'));
    return m && commits.has(m[1]!) ? m[1]! : null;
  } catch {
    return null;
  }
}

/**
 * The empty bare repository `git init -q --bare` makes (init.defaultBranch=main, as safetyConfig
 * sets), written here: a git process cost ~20 ms of CPU, for files a fetch only needs to find.
 * Left out: the template's sample hooks (hooks are off: core.hooksPath), `description` and
 * `info/exclude`, which a bare fetch never reads. A hash other than SHA-1 or a template folder
 * asked for in the environment still goes through git.
 */
export async function initBare(dir: string): Promise<void> {
  if (process.env.GIT_DEFAULT_HASH || process.env.GIT_TEMPLATE_DIR) {
    await runGit(['init', '-q', '--bare'], { cwd: dir });
    return;
  }
  for (const sub of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) await mkdir(join(dir, sub), { recursive: true });
  await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(dir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');
}

/** `git init --bare` + one shallow, blob-less fetch of `target` (FETCH_HEAD names what came). */
async function shallowFetch(dir: string, url: string, target: string, opts: GitCallOptions): Promise<void> {
  await initBare(dir);
  await appendFile(join(dir, 'config'), `[remote "origin"]\n\turl = ${configFileValue(url)}\n`);
  try {
    await runGit(['fetch', '-q', '--depth', '1', '--filter=blob:none', '--no-tags', ...uploadPackArgs(allowsFile(url)), '--', 'origin', target], {
      cwd: dir,
      allowFile: allowsFile(url),
      timeoutMs: opts.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
      remote: url,
      policy: opts.policy,
    });
  } catch (err) {
    if (err instanceof GitFailure && /not our ref|couldn't find remote ref|no such remote ref|unadvertised object/i.test(err.stderr)) {
      throw new TkomaError('INVALID_REF', `The remote does not have "${target}" (or does not allow fetching a commit by id)`, {
        ref: target,
        git: summariseGitStderr(err.stderr),
      });
    }
    throw gitError(err, 'FETCH_FAILED', 'git fetch failed', url);
  }
}

/**
 * Makes the given candidates' blobs (default: every candidate) local: one request for all that
 * the server's filter left out. Blobs skipped by name were never candidates, so they are never
 * downloaded.
 */
export async function completeBlobs(snap: Snapshot, entries: TreeEntry[] = snap.candidates): Promise<void> {
  const absent = [...new Set(entries.map((e) => e.oid).filter((oid) => !snap.sizes.has(oid)))];
  if (absent.length === 0) return;
  try {
    await fetchBlobs(snap.dir, absent, {
      allowFile: allowsFile(snap.url),
      timeoutMs: snap.opts.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
      remote: snap.url,
      policy: snap.opts.policy,
    });
    const sizes = await presentBlobSizes(snap.dir, { timeoutMs: snap.opts.timeoutMs });
    for (const [oid, n] of sizes) snap.sizes.set(oid, n);
  } catch (err) {
    throw gitError(err, 'FETCH_FAILED', 'downloading file contents failed', snap.url);
  }
}

export function countReasons(skipped: { reason: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of skipped) counts[s.reason] = (counts[s.reason] ?? 0) + 1;
  return counts;
}

export function emptyFetch(url: string, paths: string[] | undefined, skipped: Skipped[]): TkomaError {
  return new TkomaError('EMPTY_FETCH', `Nothing to fetch from ${repoDisplayName(url)}: no file matched or every match was skipped`, {
    url,
    ...(paths ? { paths } : {}),
    skipped: countReasons(skipped),
  });
}

/**
 * Groups entries into batches of at most `maxCount` entries and about `maxBytes` bytes, so blob
 * contents can be read a batch at a time with bounded memory.
 */
export function batches<T>(items: T[], bytesOf: (t: T) => number, maxCount = 256, maxBytes = 32 * 1024 * 1024): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const it of items) {
    const n = bytesOf(it);
    if (cur.length > 0 && (cur.length >= maxCount || bytes + n > maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(it);
    bytes += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
