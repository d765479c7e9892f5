/**
 * Git sources: a cheap probe for the approval step (what would be fetched, how big, which
 * languages) and the fetch itself. Both work from a shallow, blob-less snapshot in a temporary
 * bare repository; the fetch then downloads only the wanted blobs (one request) and writes them
 * straight from the object store, so no working tree (and no symlink) is ever created.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { appendAll } from '../append.js';
import { CAP_REASONS, countByReason, planCaps } from '../safety/limits.js';
import { isInside } from '../safety/paths.js';
import { BINARY_SNIFF_BYTES, DEFAULT_MAX_FILE_BYTES, languageOf, skipReason } from './git-filter.js';
import {
  githubMetadata,
  refKind,
  remoteState,
  validateSource,
  type GitCallOptions,
  type GitSourceSpec,
  type GithubMeta,
  type GithubMetaOptions,
  type LsRemoteListing,
} from './git-remote.js';
import { BlobReader } from './git-blob-reader.js';
import { gitError, runGit } from './git-run.js';
import { localPathOf } from './local-roots.js';
import { batches, completeBlobs, countReasons, emptyFetch, ruleContext, withSizes, withSnapshot, type Skipped, type Snapshot } from './git-snapshot.js';
import { packForRoot, readBlobs, type TreeEntry } from './git-tree.js';
import { githubRepo, normalizePaths, repoDisplayName } from './git-url.js';
import { type FileWrite, writeFilesSync } from './git-write.js';

export { remoteCommit } from './git-remote.js';
export type { GitSourceSpec, LsRemoteListing } from './git-remote.js';

export interface GitProbe {
  url: string;
  display_name: string;
  default_branch: string | null;
  /** The given ref, or the default branch when none was given. */
  ref: string;
  commit: string;
  /** Files that a fetch would keep. */
  file_count: number;
  /** Exact when the blobs came along; GitHub's repository size (whole repo, no paths); else null. */
  total_bytes: number | null;
  /** Present when the server sent no blobs: sizes, the size cap and binary content are known only at fetch time. */
  sizes_unknown?: true;
  languages: { name: string; files: number; bytes: number | null }[];
  skipped: Record<string, number>;
  /** Files the caps (maxFiles, maxTotalBytes) would leave out, by reason; also counted in `skipped`. */
  capped?: Record<string, number>;
  description?: string;
  /** Requested paths that match nothing in the tree. */
  missing_paths?: string[];
  /**
   * The files a fetch would keep (path order; bytes null when sizes are unknown), for dry runs.
   * `size_hint`: a file:// source's own object store knew the size the snapshot lacked; only the
   * estimate uses it (caps and filters keep to what the snapshot knows, as the fetch does).
   */
  kept_files: { path: string; bytes: number | null; size_hint?: number }[];
  /** Every file left out, with its reason: the per-folder counts and samples of phase 1. */
  skipped_files: Skipped[];
}

export interface ProbeOptions extends GitCallOptions {
  maxFileBytes?: number;
  /** Room left in the topic: files and bytes (bytes are known only when the blobs came along). */
  maxFiles?: number;
  maxTotalBytes?: number;
  /** Paths the fetch will drop (topic.md and the manifest at the topic's top): counted as reserved_name. */
  isReserved?: (path: string) => boolean;
  /** GitHub metadata lookup for github.com URLs; false turns it off. */
  github?: GithubMetaOptions | false;
}

export interface FetchOptions extends GitCallOptions {
  maxFileBytes?: number;
  maxFiles?: number;
  /** Bytes the kept files may add up to; files past it (in path order) are skipped as max_topic_bytes. */
  maxTotalBytes?: number;
  /** Never overwrite a file already in destDir (another source's): such paths are skipped as duplicate_path. */
  keepExisting?: boolean;
  /**
   * Sees each kept file's bytes as they are written, so a caller that needs their hash or a scan
   * of their content need not read thousands of files back (one at a time that was ~3 s of a
   * 10k-file create). It may also see files whose write then fails; those are not in `files`.
   */
  onFile?: (path: string, data: Buffer) => void;
  /** Sees the paths of the files the fetch may keep (path order) once the tree is read, before any blob. */
  onTree?: (paths: string[]) => void | Promise<void>;
  /**
   * A folder to write one pack of the kept files' blobs and folder trees into, for the caller to
   * add to the root's object store before `git add`: git then finds them stored instead of
   * compressing and writing each again. Best effort: when packing fails the folder is removed.
   */
  packInto?: string;
  /** Fewer kept files than this make no pack (PACK_MIN_FILES; tests of the pack lower it). */
  packMinFiles?: number;
  /**
   * The remote's ls-remote answer for this source's url and ref (remoteCommit), read by the
   * caller just before: the fetch resolves the ref in it instead of a second round trip.
   */
  listing?: LsRemoteListing;
}

/**
 * Blobs are downloaded a round of files at a time, so the caps stop the download, not just the
 * write. Rounds start at FETCH_ROUND files and double up to MAX_FETCH_ROUND: each round costs a
 * git fetch and a listing of every object held, so a 10,970-file topic took 22 rounds of 512;
 * doubling takes 6, and a cap still stops the download within a round of what was kept.
 */
const FETCH_ROUND = 512;
const MAX_FETCH_ROUND = 8192;

export interface GitFetchResult {
  commit: string;
  ref: string;
  /** What `ref` named at the remote: a branch or a tag (absent for a commit id). */
  ref_kind?: 'branch' | 'tag';
  files: { path: string; bytes: number }[];
  /** Files left out and why; requested paths that matched nothing have reason `not_found`. */
  skipped: Skipped[];
}

/**
 * Metadata for the approval step: default branch, commit, how many files a fetch would keep,
 * their size and languages. Downloads the tree only; servers that ignore the blob filter (such
 * as file:// remotes without uploadpack.allowFilter) send blobs too, which makes sizes and
 * binary detection exact. Absent blobs are never fetched here.
 */
export async function probeGitSource(src: GitSourceSpec, opts: ProbeOptions = {}): Promise<GitProbe> {
  validateSource(src, opts);
  const paths = src.paths && src.paths.length > 0 ? normalizePaths(src.paths) : undefined;
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const gh = githubRepo(src.url);
  // Started early: it overlaps with the git round trips and never fails the probe.
  const ghMeta: Promise<GithubMeta | null> =
    gh && opts.github !== false ? githubMetadata(gh.owner, gh.repo, opts.github || {}) : Promise.resolve(null);

  const state = await remoteState(src, opts);
  return withSnapshot(src.url, state.resolved.fetchTarget, paths, opts, async (snap) => {
    const { candidates, skipped, missing, sizes } = snap;
    const exact = candidates.every((e) => sizes.has(e.oid));
    let kept: { path: string; bytes: number | null; size_hint?: number }[];
    if (exact) {
      const small: TreeEntry[] = [];
      for (const e of candidates) {
        const reason = skipReason(e.path, sizes.get(e.oid)!, undefined, { maxFileBytes, ...ruleContext(snap, e.path) });
        if (reason) skipped.push({ path: e.path, reason });
        else small.push(e);
      }
      kept = [];
      for (const batch of batches(small, (e) => Math.min(sizes.get(e.oid)!, BINARY_SNIFF_BYTES))) {
        const heads = await readHeads(snap, batch);
        for (const e of batch) {
          const reason = skipReason(e.path, sizes.get(e.oid)!, heads.get(e.oid), { maxFileBytes, ...ruleContext(snap, e.path) });
          if (reason) skipped.push({ path: e.path, reason });
          else kept.push({ path: e.path, bytes: sizes.get(e.oid)! });
        }
      }
    } else {
      const hints = await localBlobSizes(src.url, candidates.map((e) => e.oid), opts.timeoutMs);
      kept = candidates.map((e) => ({ path: e.path, bytes: null, ...(hints.has(e.oid) ? { size_hint: hints.get(e.oid)! } : {}) }));
    }
    if (opts.isReserved) {
      const reserved = kept.filter((f) => opts.isReserved!(f.path));
      for (const f of reserved) skipped.push({ path: f.path, reason: 'reserved_name' });
      if (reserved.length > 0) kept = kept.filter((f) => !opts.isReserved!(f.path));
    }
    if (kept.length === 0) throw emptyFetch(src.url, paths, skipped);
    // The caps, as the fetch will apply them: in path order, sizes known only when exact.
    kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const plan = planCaps(kept, (f) => f.bytes, { max_file_bytes: Number.POSITIVE_INFINITY }, {
      files: opts.maxFiles ?? Number.POSITIVE_INFINITY,
      bytes: opts.maxTotalBytes ?? Number.POSITIVE_INFINITY,
    });
    for (const c of plan.skipped) skipped.push({ path: c.item.path, reason: c.reason });
    kept = plan.kept;

    const meta = await ghMeta;
    let totalBytes: number | null = exact ? kept.reduce((n, f) => n + (f.bytes ?? 0), 0) : null;
    // GitHub's size covers the whole repository, so it only stands in when no paths narrow it.
    if (totalBytes === null && !paths && meta?.size_bytes !== undefined) totalBytes = meta.size_bytes;

    const probe: GitProbe = {
      url: src.url,
      display_name: repoDisplayName(src.url),
      default_branch: state.default_branch,
      ref: state.resolved.ref,
      commit: snap.commit,
      file_count: kept.length,
      total_bytes: totalBytes,
      languages: topLanguages(kept, exact),
      skipped: countReasons(skipped),
      kept_files: kept,
      skipped_files: withSizes(snap, skipped),
    };
    if (plan.skipped.length > 0) probe.capped = countByReason(plan.skipped);
    if (!exact) probe.sizes_unknown = true;
    if (meta?.description) probe.description = meta.description;
    if (missing.length > 0) probe.missing_paths = missing;
    return probe;
  });
}

/**
 * Sizes of `oids` in a file:// source's own object store (the policy admitted its path): what a
 * blob-less snapshot cannot tell, read without fetching anything. Empty for other URLs and on any
 * failure: the estimate then falls back to a mean per kind of file.
 */
async function localBlobSizes(url: string, oids: string[], timeoutMs?: number): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const dir = localPathOf(url);
  if (!dir || oids.length === 0) return sizes;
  try {
    const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { cwd: dir, input: `${[...new Set(oids)].join('\n')}\n`, ...(timeoutMs ? { timeoutMs } : {}) });
    for (const line of stdout.toString('utf8').split('\n')) {
      const [oid, type, size] = line.split(' ');
      if (type === 'blob' && oid && size) sizes.set(oid, Number(size));
    }
  } catch {
    // not a readable repository: no hints
  }
  return sizes;
}

async function readHeads(snap: Snapshot, entries: TreeEntry[]): Promise<Map<string, Buffer>> {
  return readBlobs(snap.dir, [...new Set(entries.map((e) => e.oid))], {
    headBytes: BINARY_SNIFF_BYTES,
    timeoutMs: snap.opts.timeoutMs,
  }).catch((err) => {
    throw gitError(err, 'FETCH_FAILED', 'git cat-file failed', snap.url);
  });
}

function topLanguages(files: { path: string; bytes: number | null }[], withBytes: boolean, limit = 5): GitProbe['languages'] {
  const byName = new Map<string, { files: number; bytes: number }>();
  for (const f of files) {
    const name = languageOf(f.path);
    if (!name) continue;
    const cur = byName.get(name) ?? { files: 0, bytes: 0 };
    cur.files += 1;
    cur.bytes += f.bytes ?? 0;
    byName.set(name, cur);
  }
  return [...byName.entries()]
    .sort(([an, a], [bn, b]) => (withBytes ? b.bytes - a.bytes : 0) || b.files - a.files || an.localeCompare(bn))
    .slice(0, limit)
    .map(([name, v]) => ({ name, files: v.files, bytes: withBytes ? v.bytes : null }));
}

/**
 * Fetches the source's files into destDir (relative paths preserved). Only the selected blobs
 * that pass the name rules are downloaded; size and content rules are applied before writing.
 * `ref` may be a branch, a tag or a full commit id (which pins exactly that commit).
 */
export async function fetchGitSource(src: GitSourceSpec, destDir: string, opts: FetchOptions = {}): Promise<GitFetchResult> {
  validateSource(src, opts);
  const paths = src.paths && src.paths.length > 0 ? normalizePaths(src.paths) : undefined;
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const maxFiles = opts.maxFiles ?? Number.POSITIVE_INFINITY;
  const root = resolve(destDir);
  const state = await remoteState(src, opts, opts.listing);

  return withSnapshot(src.url, state.resolved.fetchTarget, paths, opts, async (snap) => {
    const { candidates, skipped, missing, sizes } = snap;
    for (const m of missing) skipped.push({ path: m, reason: 'not_found' });
    if (candidates.length === 0) throw emptyFetch(src.url, paths, skipped);
    await opts.onTree?.(candidates.map((e) => e.path));

    const files: GitFetchResult['files'] = [];
    let bytesLeft = opts.maxTotalBytes ?? Number.POSITIVE_INFINITY;
    // Set once a cap is reached: every later candidate (path order) is skipped with this reason.
    let stopped: string | null = null;
    let next = 0;
    let roundSize = FETCH_ROUND;
    // Download no more blobs than the file cap can still take (skipped ones make another round).
    const download = (room: number): Download => {
      const round = candidates.slice(next, next + Math.max(1, Math.min(roundSize, room)));
      roundSize = Math.min(roundSize * 2, MAX_FETCH_ROUND);
      next += round.length;
      return { round, failed: completeBlobs(snap, round).then(() => null, (err: unknown) => err) };
    };
    const reader = new BlobReader(snap.dir, opts.timeoutMs);
    let pending: Download | null = download(maxFiles);
    try {
      while (pending && !stopped) {
        const { round, failed } = pending;
        pending = null;
        const err = await failed;
        if (err) throw err;
        const toRead: TreeEntry[] = [];
        let roundBytes = 0;
        for (const e of round) {
          const size = sizes.get(e.oid);
          if (size === undefined) skipped.push({ path: e.path, reason: 'missing_blob' });
          else if (size > maxFileBytes) skipped.push({ path: e.path, reason: 'too_large' });
          else {
            toRead.push(e);
            roundBytes += size;
          }
        }
        // The next round downloads while this one is written, but only when this one cannot reach
        // a cap: the download then stops within a round of what was kept, as it did one at a time.
        if (next < candidates.length && files.length + toRead.length < maxFiles && roundBytes <= bytesLeft) {
          pending = download(maxFiles - files.length - toRead.length);
        }
        for (const batch of batches(toRead, (e) => sizes.get(e.oid)!)) {
          if (stopped) {
            for (const e of batch) skipped.push({ path: e.path, reason: stopped });
            continue;
          }
          const blobs = await reader.read([...new Set(batch.map((e) => e.oid))]).catch((err) => {
            throw gitError(err, 'FETCH_FAILED', 'git cat-file failed', src.url);
          });
          const writes: FileWrite[] = [];
          for (const e of batch) {
            if (stopped) {
              skipped.push({ path: e.path, reason: stopped });
              continue;
            }
            const data = blobs.get(e.oid);
            const reason = data ? skipReason(e.path, data.length, data.subarray(0, BINARY_SNIFF_BYTES), { maxFileBytes, ...ruleContext(snap, e.path) }) : 'missing_blob';
            const dest = resolve(root, ...e.path.split('/'));
            if (reason) skipped.push({ path: e.path, reason });
            else if (!isInside(root, dest)) skipped.push({ path: e.path, reason: 'unsafe_path' });
            else if (files.length >= maxFiles) skipped.push({ path: e.path, reason: (stopped = CAP_REASONS.max_files) });
            else if (data!.length > bytesLeft) skipped.push({ path: e.path, reason: (stopped = CAP_REASONS.max_topic_bytes) });
            else {
              writes.push({ path: e.path, dest, data: data! });
              opts.onFile?.(e.path, data!);
              bytesLeft -= data!.length;
              files.push({ path: e.path, bytes: data!.length });
            }
          }
          const failedWrites = writeFilesSync(writes, opts.keepExisting ?? false);
          if (failedWrites.length > 0) {
            const lost = new Set(failedWrites.map((f) => f.path));
            for (const f of files) if (lost.has(f.path)) bytesLeft += f.bytes;
            const kept = files.filter((f) => !lost.has(f.path));
            files.length = 0;
            appendAll(files, kept);
            appendAll(skipped, failedWrites);
          }
        }
        if (!stopped && files.length >= maxFiles && next < candidates.length) stopped = CAP_REASONS.max_files;
        if (!pending && !stopped && next < candidates.length) pending = download(maxFiles - files.length);
      }
    } finally {
      // Never leave a download running in the snapshot folder that is about to be removed.
      if (pending) await pending.failed;
      await reader.close();
    }
    for (const e of candidates.slice(next)) skipped.push({ path: e.path, reason: stopped ?? CAP_REASONS.max_files });
    if (files.length === 0) throw emptyFetch(src.url, paths, skipped);
    if (opts.packInto && files.length >= (opts.packMinFiles ?? PACK_MIN_FILES)) await packKept(snap, files, opts.packInto);
    const kind = refKind(state.resolved);
    return { commit: snap.commit, ref: state.resolved.ref, ...(kind ? { ref_kind: kind } : {}), files, skipped: withSizes(snap, skipped) };
  });
}

/** One round of candidates whose blobs are downloading; `failed` settles with the error, or null. */
interface Download {
  round: TreeEntry[];
  failed: Promise<unknown>;
}

/**
 * Under this many files the pack is not made: its two git processes (fast-import, pack-objects;
 * ~45 ms of CPU) cost more than what `git add` and `write-tree` then write themselves (the blobs
 * into one pack through git's bulk check-in, a few loose trees). The commit is the same.
 */
const PACK_MIN_FILES = 32;

async function packKept(snap: Snapshot, files: GitFetchResult['files'], dir: string): Promise<void> {
  const kept = files.map((f) => ({ path: f.path, oid: snap.oids.get(f.path)! }));
  await packForRoot(snap.dir, kept, dir, { timeoutMs: snap.opts.timeoutMs }).catch(() => rm(dir, { recursive: true, force: true }));
}
