/**
 * A topic's file table: every reference file with the size and mtime the index saw, its hash,
 * role, chunk count and segment. Every cold search reads it to check that no file moved; stored
 * as one JSON object per file (940 KB at SciFact scale) reading and parsing it took ~15 ms and
 * left 5k objects for the GC to copy. On disk it is columns instead (head.json format 6): one
 * array per field and the hashes as one string, parsed in ~2 ms, and a search looks rows up
 * without making an object per file.
 *
 * A table read from disk is read-only columns; the first set() or delete() turns it into rows a
 * sync edits (file-rows.ts, columns too). Entries handed out or taken in are values: changing one
 * changes no table, set() it.
 */
import type { Role } from '../chunking/types.js';
import { type Column, coldColumns, type SortedRows, sortedColumns, tableColumns, unknownColumns } from './file-columns.js';
import { FileRowStore } from './file-rows.js';
import { type PathList, RowIndex } from './row-index.js';

export interface FileStat {
  size: number;
  mtimeMs: number;
}

export type SkipReason = 'binary' | 'too-large' | 'unchunkable';

/** One row of a topic's file table. */
export interface FileEntry extends FileStat {
  sha256: string;
  role: Role;
  /** Number of chunks; their ids are `<path>#0` … `<path>#<n-1>` (see chunkIdsOf). */
  chunkCount: number;
  /** Why a file holds no chunks although it has content. */
  skipped?: SkipReason;
  /** Generation of the index segment holding this file's chunks (absent when it has none). */
  seg?: number;
  /**
   * The record of that segment its first chunk is (its chunks are one run from there). Absent
   * when it has no chunks, and in tables written before it was kept.
   */
  start?: number;
}

/** The table as head.json stores it: rows sorted by path. */
export interface FileColumns {
  path: string[];
  size: number[];
  mtimeMs: number[];
  /** 64 hex digits per row, concatenated: one string parses far faster than 5k. */
  sha256: string;
  role: Role[];
  chunkCount: number[];
  /** 0 when the file has no chunks in any segment. */
  seg: number[];
  /**
   * FileEntry.start per row (0 when it has no chunks). Written only when every file with chunks
   * has one: a reader then finds each file's run without reading the segments' runs.
   */
  start?: number[];
  /** Only the rows that were skipped, by path. */
  skipped: Record<string, SkipReason>;
  /** See FileTable.listingDigest; absent when there is none. */
  listing?: string;
}

const SHA_HEX = 64;

/** The columns a search never reads: a head stored in lines (head-file.ts) parses them on first use. */
export const COLD_COLUMNS = ['skipped', 'role', 'size', 'mtimeMs', 'sha256'] as const;
type ColdName = (typeof COLD_COLUMNS)[number];
type Cold = Pick<FileColumns, ColdName>;

/** Read from a head in lines, the numbers may be Float64Arrays (head-file.ts wholeNumbers). */
interface Columns extends Omit<FileColumns, ColdName | 'path' | 'chunkCount' | 'seg' | 'start'> {
  path: PathList;
  chunkCount: ArrayLike<number>;
  seg: ArrayLike<number>;
  start?: ArrayLike<number>;
  /** Row of each path (decode checks the paths are sorted and distinct). */
  rows: RowIndex;
  /** The cold columns, or what parses them (once; see decodeSplit). */
  cold: Cold | (() => Cold);
}

/** Rows by number, for readers that keep per-row state (live-chunks.ts); never changed once made. */
export interface FileRows {
  readonly rows: { get(path: string): number | undefined };
  readonly path: PathList;
  readonly chunkCount: ArrayLike<number>;
  /** 0 when the file has no chunks in any segment. */
  readonly seg: ArrayLike<number>;
  /** FileEntry.start by row; null when some file with chunks has none. */
  readonly start: ArrayLike<number> | null;
}

export class FileTable {
  /**
   * Digest of a `find` listing of the topic folder (listing-prefetch.ts) that matched this table
   * when the sync that wrote it checked: a search whose listing has the same digest knows that
   * nothing moved without reading a record of it. Null when there is none; any set() or delete()
   * clears it, since the table then says something the listing was not checked against.
   */
  listingDigest: string | null = null;

  /** Known from the hot columns that no file was skipped (decodeSplit); set() clears it. */
  private noneSkipped = false;

  private constructor(
    private cols: Columns | null,
    private map: FileRowStore | null,
  ) {}

  static empty(): FileTable {
    return new FileTable(null, new FileRowStore());
  }

  /** A table of these entries (a format 5 head's object of objects, a test's table). */
  static fromEntries(entries: Iterable<readonly [string, FileEntry]> | Readonly<Record<string, FileEntry>>): FileTable {
    const list = Symbol.iterator in entries ? (entries as Iterable<readonly [string, FileEntry]>) : Object.entries(entries);
    return new FileTable(null, storeOf(list));
  }

  /**
   * The columns head.json stores, checked: null when anything is off (a column of another length
   * or type, a repeated path, a hash string of the wrong size), so the caller treats the head as
   * damaged. Indexed loops: this runs once per process, before the JIT has compiled anything.
   */
  static decode(v: unknown): FileTable | null {
    if (typeof v !== 'object' || v === null) return null;
    const table = FileTable.decodeSplit(v, () => v);
    if (!table) return null;
    // A whole head was parsed anyway: check every column now, as before.
    const cold = coldColumns(v, table.cols!.rows);
    if (!cold) return null;
    table.cols!.cold = cold;
    return table;
  }

  /**
   * The table from its hot columns (paths, chunk counts, segments, starts, the listing digest:
   * all a search reads), checked now; `cold()` gives the object holding the other columns, read
   * the first time a caller needs them. When those turn out damaged, every row reads as unknown
   * (no size, mtime or hash matches), so the next sync re-reads every file: what a damaged head
   * gets, later.
   */
  static decodeSplit(hot: object, cold: () => unknown): FileTable | null {
    const c = hot as Partial<Record<keyof FileColumns, unknown>>;
    const { path, chunkCount, seg, start } = c;
    // The numbers: JSON arrays, or Float64Arrays of whole numbers (head-file.ts wholeNumbers).
    const numbers = (v: unknown): v is ArrayLike<unknown> => Array.isArray(v) || v instanceof Float64Array;
    if (!Array.isArray(path) || !numbers(chunkCount) || !numbers(seg)) return null;
    const n = path.length;
    if (chunkCount.length !== n || seg.length !== n) return null;
    if (start !== undefined && (!numbers(start) || start.length !== n)) return null;
    // Sorted and distinct (as toJSON writes them): rows are then found by halving, and no Map
    // of every path is built before a search (207,713 of them took ~0.2 s at 300k chunks).
    let previous: string | null = null;
    for (let i = 0; i < n; i++) {
      const p: unknown = path[i];
      if (typeof p !== 'string' || typeof chunkCount[i] !== 'number' || typeof seg[i] !== 'number') return null;
      if (start !== undefined && typeof start[i] !== 'number') return null;
      if (previous !== null && !(previous < p)) return null;
      previous = p;
    }
    // Each checked above to hold numbers.
    const [counts, segs, starts] = [chunkCount, seg, start] as [ArrayLike<number>, ArrayLike<number>, ArrayLike<number> | undefined];
    return FileTable.fromHot({ path: path as string[], chunkCount: counts, seg: segs, start: starts, listing: c.listing, skipped: c.skipped }, cold);
  }

  /**
   * decodeSplit for hot columns already checked (or derived from checked ones: head-hot.ts, whose
   * paths are a byte table read as it was written from a sorted table).
   */
  static fromHot(
    hot: { path: PathList; chunkCount: ArrayLike<number>; seg: ArrayLike<number>; start?: ArrayLike<number> | undefined; listing?: unknown; skipped?: unknown },
    cold: () => unknown,
  ): FileTable {
    const { path, chunkCount, seg, start, listing, skipped } = hot;
    const rows = new RowIndex(path);
    const loadCold = (): Cold => {
      let v: unknown = null;
      try {
        v = cold();
      } catch {
        // damaged: unknown rows below
      }
      return coldColumns(v, rows) ?? unknownColumns(path.length);
    };
    const table = new FileTable({ path, chunkCount, seg, rows, cold: loadCold, ...(start ? { start } : {}) } as Columns, null);
    table.listingDigest = typeof listing === 'string' ? listing : null;
    // Read with the hot columns (head-file.ts): no file skipped needs no cold column to say so.
    table.noneSkipped = typeof skipped === 'object' && skipped !== null && !Array.isArray(skipped) && Object.keys(skipped).length === 0;
    return table;
  }

  get size(): number {
    return this.map ? this.map.count : this.cols!.path.length;
  }

  has(path: string): boolean {
    return this.map ? this.map.rowOf(path) !== undefined : this.cols!.rows.all().has(path);
  }

  get(path: string): FileEntry | undefined {
    if (this.map) {
      const row = this.map.rowOf(path);
      return row === undefined ? undefined : this.map.entryAt(row);
    }
    const row = this.cols!.rows.get(path);
    return row === undefined ? undefined : this.entryAt(row);
  }

  /** True when `path` is in the table with this size and mtime: the check every search makes per file. */
  sameStat(path: string, size: number, mtimeMs: number): boolean {
    if (this.map) {
      const row = this.map.rowOf(path);
      return row !== undefined && this.map.sizeAt(row) === size && this.map.mtimeAt(row) === mtimeMs;
    }
    const row = this.cols!.rows.all().get(path);
    if (row === undefined) return false;
    const c = this.cold();
    return c.size[row] === size && c.mtimeMs[row] === mtimeMs;
  }

  /** The chunk count of `path`'s row (0 when absent): what a hit asks, without the cold columns. */
  chunkCountOf(path: string): number {
    if (this.map) {
      const row = this.map.rowOf(path);
      return row === undefined ? 0 : this.map.chunkCountAt(row);
    }
    const row = this.cols!.rows.get(path);
    return row === undefined ? 0 : this.cols!.chunkCount[row]!;
  }

  /**
   * The table's rows by number: its own columns when read from disk, else a copy of its entries.
   * Either way a later set() or delete() leaves them as they are.
   */

  rowsView(): FileRows {
    if (this.cols) return { rows: this.cols.rows, path: this.cols.path, chunkCount: this.cols.chunkCount, seg: this.cols.seg, start: this.cols.start ?? null };
    const rows = new Map<string, number>();
    const paths: string[] = [];
    const chunkCount: number[] = [];
    const seg: number[] = [];
    const start: number[] = [];
    let starts = true;
    const m = this.map!;
    for (const [path, row] of m.rows()) {
      rows.set(path, paths.length);
      paths.push(path);
      chunkCount.push(m.chunkCountAt(row));
      seg.push(m.segAt(row));
      const s = m.startAt(row);
      start.push(s ?? 0);
      if (m.chunkCountAt(row) > 0 && s === undefined) starts = false;
    }
    return { rows, path: paths, chunkCount, seg, start: starts ? start : null };
  }

  /** Files that have chunks. */
  filesWithChunks(): number {
    let n = 0;
    if (this.map) {
      for (const [, row] of this.map.rows()) if (this.map.chunkCountAt(row) > 0) n++;
    } else {
      const counts = this.cols!.chunkCount;
      for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) n++;
    }
    return n;
  }

  /** Chunks of every file. */
  chunkTotal(): number {
    let n = 0;
    if (this.map) {
      for (const [, row] of this.map.rows()) n += this.map.chunkCountAt(row);
    } else {
      const counts = this.cols!.chunkCount;
      for (let i = 0; i < counts.length; i++) n += counts[i]!;
    }
    return n;
  }

  /** The files left without chunks although they have content, in table order. */
  skippedFiles(): { path: string; reason: SkipReason; size: number }[] {
    if (this.map) {
      const out: { path: string; reason: SkipReason; size: number }[] = [];
      for (const [path, row] of this.map.rows()) {
        const reason = this.map.skippedAt(row);
        if (reason) out.push({ path, reason, size: this.map.sizeAt(row) });
      }
      return out;
    }
    if (this.noneSkipped) return [];
    const rows = this.cols!.rows.all();
    const c = this.cold();
    return Object.entries(c.skipped)
      .map(([path, reason]) => ({ path, reason, size: c.size[rows.get(path)!]! }))
      .sort((a, b) => rows.get(a.path)! - rows.get(b.path)!);
  }

  *entries(): IterableIterator<[string, FileEntry]> {
    if (this.map) {
      for (const [path, row] of this.map.rows()) yield [path, this.map.entryAt(row)];
      return;
    }
    const paths = this.cols!.path;
    for (let i = 0; i < paths.length; i++) yield [paths.at(i)!, this.entryAt(i)];
  }

  *paths(): IterableIterator<string> {
    if (this.map) {
      for (const [path] of this.map.rows()) yield path;
      return;
    }
    const paths = this.cols!.path;
    for (let i = 0; i < paths.length; i++) yield paths.at(i)!;
  }

  *values(): IterableIterator<FileEntry> {
    for (const [, e] of this.entries()) yield e;
  }

  /** A table of the same entries (and no listing digest) that this one's set() and delete() leave alone. */
  clone(): FileTable {
    return new FileTable(null, this.map ? this.map.clone() : storeOf(this.entries()));
  }

  set(path: string, entry: FileEntry): void {
    this.editable().set(path, entry);
  }

  delete(path: string): boolean {
    return this.editable().delete(path);
  }

  /** What JSON.stringify writes into head.json: the columns, rows sorted by path. */
  toJSON(): FileColumns {
    const out: Record<string, unknown> = {};
    for (const [name, col] of Object.entries(this.columns())) {
      const v = col.value();
      out[name] = v instanceof Float64Array ? Array.from(v) : v;
    }
    return out as unknown as FileColumns;
  }

  /** toJSON's columns, each made (as text or value) only when asked: head-file.ts writes them a piece at a time. */
  columns(): Partial<Record<keyof FileColumns, Column>> {
    return tableColumns(this.sorted(), this.listingDigest);
  }

  /** The cold columns, parsed on first use. */
  private cold(): Cold {
    const c = this.cols!;
    if (typeof c.cold === 'function') c.cold = c.cold();
    return c.cold;
  }

  private entryAt(row: number): FileEntry {
    const c = this.cols!;
    const k = this.cold();
    const e: FileEntry = { size: k.size[row]!, mtimeMs: k.mtimeMs[row]!, sha256: k.sha256.slice(row * SHA_HEX, (row + 1) * SHA_HEX), role: k.role[row]!, chunkCount: c.chunkCount[row]! };
    const path = c.path.at(row)!;
    const reason = Object.hasOwn(k.skipped, path) ? k.skipped[path] : undefined;
    if (reason) e.skipped = reason;
    if (c.seg[row] !== 0) e.seg = c.seg[row]!;
    if (c.start && c.chunkCount[row]! > 0) e.start = c.start[row]!;
    return e;
  }

  private editable(): FileRowStore {
    this.listingDigest = null;
    if (!this.map) {
      this.map = storeOf(this.entries());
      this.cols = null;
    }
    return this.map;
  }

  /** The rows in path order, whichever way the table holds them. */
  private sorted(): SortedRows {
    return this.cols ? sortedColumns(this.cols, this.cold()) : this.map!.sorted();
  }
}

function storeOf(entries: Iterable<readonly [string, FileEntry]>): FileRowStore {
  const store = new FileRowStore();
  for (const [path, e] of entries) store.set(path, e);
  return store;
}
