/**
 * Git sources: a cheap probe for the approval step (what would be fetched, how big, which
 * languages) and the fetch itself. Both work from a shallow, blob-less snapshot in a temporary
 * bare repository; the fetch then downloads only the wanted blobs (one request) and writes them
 * straight from the object store, so no working tree (and no symlink) is ever created.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { BINARY_SNIFF_BYTES, DEFAULT_MAX_FILE_BYTES, languageOf, skipReason } from './git-filter.js';
import {
  githubMetadata,
  remoteState,
  validateSource,
  type GitCallOptions,
  type GitSourceSpec,
  type GithubMeta,
  type GithubMetaOptions,
} from './git-remote.js';
import { gitError } from './git-run.js';
import { batches, completeBlobs, countReasons, emptyFetch, withSnapshot, type Skipped, type Snapshot } from './git-snapshot.js';
import { readBlobs, type TreeEntry } from './git-tree.js';
import { githubRepo, normalizePaths, repoDisplayName } from './git-url.js';

export { remoteCommit } from './git-remote.js';
export type { GitSourceSpec } from './git-remote.js';

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
  languages: { name: string; files: number; bytes: number | null }[];
  skipped: Record<string, number>;
  description?: string;
  /** Requested paths that match nothing in the tree. */
  missing_paths?: string[];
}

export interface ProbeOptions extends GitCallOptions {
  maxFileBytes?: number;
  /** GitHub metadata lookup for github.com URLs; false turns it off. */
  github?: GithubMetaOptions | false;
}

export interface FetchOptions extends GitCallOptions {
  maxFileBytes?: number;
  maxFiles?: number;
}

export interface GitFetchResult {
  commit: string;
  ref: string;
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
    let kept: { path: string; bytes: number | null }[];
    if (exact) {
      const small: TreeEntry[] = [];
      for (const e of candidates) {
        const reason = skipReason(e.path, sizes.get(e.oid)!, undefined, { maxFileBytes });
        if (reason) skipped.push({ path: e.path, reason });
        else small.push(e);
      }
      kept = [];
      for (const batch of batches(small, (e) => Math.min(sizes.get(e.oid)!, BINARY_SNIFF_BYTES))) {
        const heads = await readHeads(snap, batch);
        for (const e of batch) {
          const reason = skipReason(e.path, sizes.get(e.oid)!, heads.get(e.oid), { maxFileBytes });
          if (reason) skipped.push({ path: e.path, reason });
          else kept.push({ path: e.path, bytes: sizes.get(e.oid)! });
        }
      }
    } else {
      kept = candidates.map((e) => ({ path: e.path, bytes: null }));
    }
    if (kept.length === 0) throw emptyFetch(src.url, paths, skipped);

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
    };
    if (meta?.description) probe.description = meta.description;
    if (missing.length > 0) probe.missing_paths = missing;
    return probe;
  });
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
  const state = await remoteState(src, opts);

  return withSnapshot(src.url, state.resolved.fetchTarget, paths, opts, async (snap) => {
    const { candidates, skipped, missing, sizes } = snap;
    for (const m of missing) skipped.push({ path: m, reason: 'not_found' });
    if (candidates.length === 0) throw emptyFetch(src.url, paths, skipped);
    await completeBlobs(snap);

    const files: GitFetchResult['files'] = [];
    const toRead: TreeEntry[] = [];
    // Candidates are in path order, which decides what maxFiles keeps.
    for (const e of candidates) {
      const size = sizes.get(e.oid);
      if (size === undefined) skipped.push({ path: e.path, reason: 'missing_blob' });
      else if (size > maxFileBytes) skipped.push({ path: e.path, reason: 'too_large' });
      else toRead.push(e);
    }
    for (const batch of batches(toRead, (e) => sizes.get(e.oid)!)) {
      const blobs = await readBlobs(snap.dir, [...new Set(batch.map((e) => e.oid))], { timeoutMs: opts.timeoutMs }).catch((err) => {
        throw gitError(err, 'FETCH_FAILED', 'git cat-file failed', src.url);
      });
      const writes: { dest: string; data: Buffer }[] = [];
      for (const e of batch) {
        const data = blobs.get(e.oid);
        const reason = data ? skipReason(e.path, data.length, data.subarray(0, BINARY_SNIFF_BYTES), { maxFileBytes }) : 'missing_blob';
        const dest = resolve(root, ...e.path.split('/'));
        if (reason) skipped.push({ path: e.path, reason });
        else if (files.length >= maxFiles) skipped.push({ path: e.path, reason: 'max_files' });
        else if (!dest.startsWith(root + sep)) skipped.push({ path: e.path, reason: 'unsafe_path' });
        else {
          writes.push({ dest, data: data! });
          files.push({ path: e.path, bytes: data!.length });
        }
      }
      await writeAll(writes);
    }
    if (files.length === 0) throw emptyFetch(src.url, paths, skipped);
    return { commit: snap.commit, ref: state.resolved.ref, files, skipped };
  });
}

/** Writes files a few at a time: creating files is the slow part on most disks. */
async function writeAll(writes: { dest: string; data: Buffer }[], parallel = 16): Promise<void> {
  await Promise.all([...new Set(writes.map((w) => dirname(w.dest)))].map((d) => mkdir(d, { recursive: true })));
  for (let i = 0; i < writes.length; i += parallel) {
    await Promise.all(writes.slice(i, i + parallel).map((w) => writeFile(w.dest, w.data)));
  }
}
