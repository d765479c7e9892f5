/**
 * The cheap half of sync: list a topic's reference files with their size and mtime, and decide
 * which ones need hashing and re-chunking by comparing with the stored file table.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { SKIPPED_FILE } from '../store/skipped.js';
import { MANIFEST_FILE, TOPIC_FILE } from '../store/topic-files.js';
import type { FileStat, FileTable } from './file-table.js';
import type { FindListing } from './listing-prefetch.js';
import { walkFiles } from './walk.js';
import { grown } from '../typed-array.js';

/**
 * Reference files of a topic folder, POSIX paths relative to it (walk.ts walkFiles). topic.md,
 * the manifest and the skipped list at the top are metadata, not references.
 */
export async function listTopicFiles(dir: string): Promise<Map<string, FileStat>> {
  const out = new Map<string, FileStat>();
  walkTopicFiles(dir, (rel, st) => {
    out.set(rel, { size: st.size, mtimeMs: st.mtimeMs });
    return true;
  });
  return out;
}

/**
 * listTopicFiles from `find`'s listing of the folder when it has one (listing-prefetch.ts: the
 * lstat of every file done in another process), else by walking. A sync in a server shares its
 * thread with the answers: walking a 207,713-file topic held it for seconds, the first answer
 * waiting behind it.
 */
export async function listTopicFilesVia(dir: string, listing: Promise<FindListing | null>): Promise<ReadonlyMap<string, FileStat>> {
  const found = await listing;
  if (found) {
    const out = new StatTable();
    const read = found.each((rel, size, mtimeMs) => {
      if (!METADATA.has(rel)) out.add(rel, size, mtimeMs);
      return true;
    });
    if (read !== null) return out;
  }
  return listTopicFiles(dir);
}

/**
 * Path → size and mtime as a map reads them, the numbers kept in two columns: an object per file
 * (and its mtime as a number object of its own) was ~56 bytes of a sync's listing, 39 MB at
 * 692k files. Each get() makes the object its caller reads. Paths are added once each.
 */
export class StatTable implements ReadonlyMap<string, FileStat> {
  private readonly rows = new Map<string, number>();
  private sizes = new Float64Array(1024);
  private mtimes = new Float64Array(1024);

  add(path: string, size: number, mtimeMs: number): void {
    const row = this.rows.get(path) ?? this.rows.size;
    if (row === this.sizes.length) {
      this.sizes = grown(this.sizes, new Float64Array(2 * row));
      this.mtimes = grown(this.mtimes, new Float64Array(2 * row));
    }
    this.rows.set(path, row);
    this.sizes[row] = size;
    this.mtimes[row] = mtimeMs;
  }

  get size(): number {
    return this.rows.size;
  }

  has(path: string): boolean {
    return this.rows.has(path);
  }

  get(path: string): FileStat | undefined {
    const row = this.rows.get(path);
    return row === undefined ? undefined : { size: this.sizes[row]!, mtimeMs: this.mtimes[row]! };
  }

  keys(): MapIterator<string> {
    return this.rows.keys();
  }

  *entries(): MapIterator<[string, FileStat]> {
    for (const [path, row] of this.rows) yield [path, { size: this.sizes[row]!, mtimeMs: this.mtimes[row]! }];
  }

  *values(): MapIterator<FileStat> {
    for (const [, st] of this.entries()) yield st;
  }

  [Symbol.iterator](): MapIterator<[string, FileStat]> {
    return this.entries();
  }

  forEach(fn: (value: FileStat, key: string, map: ReadonlyMap<string, FileStat>) => void, thisArg?: unknown): void {
    for (const [path, st] of this.entries()) fn.call(thisArg, st, path, this);
  }
}

/**
 * Files seen one by one against `table`: `sees` is false at the first one the table lacks or
 * records with another size or mtime; `complete` then says whether the table held no more.
 */
function tableMatch(table: FileTable): { sees(rel: string, size: number, mtimeMs: number): boolean; complete(): boolean } {
  let seen = 0;
  return {
    sees: (rel, size, mtimeMs) => {
      seen++;
      return table.sameStat(rel, size, mtimeMs);
    },
    complete: () => seen === table.size,
  };
}

/**
 * True when the files of the topic folder are exactly those of `table`, each with the size and
 * mtime it records: what diffByStat would call all unchanged, without building the listing (a
 * search checks this first, over every file of the topic). Stops at the first difference.
 */
export function sameFilesByStat(dir: string, table: FileTable): boolean {
  const files = tableMatch(table);
  return walkTopicFiles(dir, (rel, st) => files.sees(rel, st.size, st.mtimeMs)) && files.complete();
}

/**
 * Pure: sameFilesByStat's answer from a listing made elsewhere (listing-prefetch.ts, by `find`);
 * null when the listing turns out unreadable, and the caller walks instead. A listing byte for
 * byte like the one the table was checked against when written says so without a record read.
 */
export function sameFilesByListing(listing: FindListing, table: FileTable): boolean | null {
  if (table.listingDigest !== null && listing.digest() === table.listingDigest) return true;
  const files = tableMatch(table);
  const all = listing.each((rel, size, mtimeMs) => METADATA.has(rel) || files.sees(rel, size, mtimeMs));
  return all === null ? null : all && files.complete();
}

/** Notes on `table` the digest of `listing` when the listing matches it (see FileTable.listingDigest). */
export function stampListing(table: FileTable, listing: FindListing | null): void {
  if (listing && sameFilesByListing(listing, table) === true) table.listingDigest = listing.digest();
}

/** Names at the top of a topic folder that are metadata, not references (a path with a folder never is). */
const METADATA = new Set([TOPIC_FILE, MANIFEST_FILE, SKIPPED_FILE]);

/** Visits every reference file (see listTopicFiles); false from `visit` stops the walk and is returned. */
function walkTopicFiles(dir: string, visit: (rel: string, st: Stats) => boolean): boolean {
  return walkFiles(dir, (rel, st) => METADATA.has(rel) || visit(rel, st));
}

export interface FileDiff {
  /** Not in the table. */
  added: string[];
  /** In the table, but size or mtime differ: must be hashed to know whether content changed. */
  suspect: string[];
  /** In the table, gone from disk. */
  removed: string[];
  unchanged: string[];
}

/** Pure: compares what is on disk with the stored table by size and mtime only. */
export function diffByStat(onDisk: ReadonlyMap<string, FileStat>, table: FileTable): FileDiff {
  const diff: FileDiff = { added: [], suspect: [], removed: [], unchanged: [] };
  for (const [path, st] of onDisk) {
    if (!table.has(path)) diff.added.push(path);
    else if (!table.sameStat(path, st.size, st.mtimeMs)) diff.suspect.push(path);
    else diff.unchanged.push(path);
  }
  for (const path of table.paths()) if (!onDisk.has(path)) diff.removed.push(path);
  for (const list of Object.values(diff) as string[][]) list.sort();
  return diff;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function hashFile(abs: string): Promise<{ sha256: string; bytes: Buffer } | null> {
  try {
    const bytes = await readFile(abs);
    return { sha256: sha256Hex(bytes), bytes };
  } catch {
    return null;
  }
}

/** Heuristic used by git as well: a NUL byte in the first 8 KB means binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Files above this are not chunked (minified bundles, data dumps): they would drown the index. */
export const MAX_INDEXED_BYTES = 1_000_000;

/** Chunk ids of a file of the table: ordinals after the path (ids are never stored per file). */
export function chunkIdsOf(path: string, entry: { chunkCount: number }): string[] {
  return Array.from({ length: entry.chunkCount }, (_, i) => `${path}#${i}`);
}
