/**
 * The rows of a file table a sync edits (file-table.ts), in columns: a path's row by a Map, the
 * numbers in Float64Arrays, the hashes as 32 bytes each. A Map of one object per file took ~240
 * bytes a file beside the path (the object, a property array once seg and start were added, the
 * hash as 64 hex characters, a heap number for the mtime): ~165 MB of a 692k-file create's peak.
 *
 * Rows are appended in the order paths are first set; set() on a path in the table writes its row
 * again, delete() leaves a hole. So live rows in row order are the order a Map of entries kept.
 */
import type { Role } from '../chunking/types.js';
import { grown } from '../typed-array.js';
import type { SortedRows } from './file-columns.js';
import type { FileEntry, SkipReason } from './file-table.js';

const SHA_BYTES = 32;
const HEX = /^[0-9a-f]{64}$/;
/** Skip reasons by code; 0 is none. */
const SKIPS: readonly (SkipReason | undefined)[] = [undefined, 'binary', 'too-large', 'unchunkable'];

export class FileRowStore {
  private readonly index = new Map<string, number>();
  /** Rows used so far, holes included. */
  private used = 0;
  private size: Float64Array;
  private mtimeMs: Float64Array;
  private chunkCount: Float64Array;
  /** NaN where the entry has none. */
  private seg: Float64Array;
  private start: Float64Array;
  private sha: Uint8Array;
  /** Codes into `roleNames`; any string a caller sets is kept (tests, older heads). */
  private role: Uint8Array;
  private skip: Uint8Array;
  private readonly roleNames: Role[] = ['docs', 'example', 'code', 'test'];
  /** Hashes that are not 64 lowercase hex digits, kept as given (the row's bytes are zeros). */
  private readonly oddHashes = new Map<number, string>();

  constructor(capacity = 64) {
    this.size = new Float64Array(capacity);
    this.mtimeMs = new Float64Array(capacity);
    this.chunkCount = new Float64Array(capacity);
    this.seg = new Float64Array(capacity);
    this.start = new Float64Array(capacity);
    this.sha = new Uint8Array(capacity * SHA_BYTES);
    this.role = new Uint8Array(capacity);
    this.skip = new Uint8Array(capacity);
  }

  get count(): number {
    return this.index.size;
  }

  rowOf(path: string): number | undefined {
    return this.index.get(path);
  }

  /** Live rows by path, in row order. */
  rows(): IterableIterator<[string, number]> {
    return this.index.entries();
  }

  set(path: string, e: FileEntry): void {
    let row = this.index.get(path);
    if (row === undefined) {
      if (this.used === this.size.length) this.grow();
      row = this.used++;
      this.index.set(path, row);
    }
    this.size[row] = e.size;
    this.mtimeMs[row] = e.mtimeMs;
    this.chunkCount[row] = e.chunkCount;
    this.seg[row] = e.seg ?? NaN;
    this.start[row] = e.start ?? NaN;
    let r = this.roleNames.indexOf(e.role);
    if (r < 0) r = this.roleNames.push(e.role) - 1;
    this.role[row] = r;
    this.skip[row] = e.skipped ? Math.max(0, SKIPS.indexOf(e.skipped)) : 0;
    const sha = Buffer.from(this.sha.buffer, this.sha.byteOffset + row * SHA_BYTES, SHA_BYTES);
    if (HEX.test(e.sha256)) {
      sha.write(e.sha256, 'hex');
      this.oddHashes.delete(row);
    } else {
      sha.fill(0);
      this.oddHashes.set(row, e.sha256);
    }
  }

  delete(path: string): boolean {
    const row = this.index.get(path);
    if (row === undefined) return false;
    this.index.delete(path);
    this.oddHashes.delete(row);
    return true;
  }

  entryAt(row: number): FileEntry {
    const e: FileEntry = { size: this.size[row]!, mtimeMs: this.mtimeMs[row]!, sha256: this.oddHashes.get(row) ?? this.hexAt(row), role: this.roleNames[this.role[row]!]!, chunkCount: this.chunkCount[row]! };
    const skipped = SKIPS[this.skip[row]!];
    if (skipped) e.skipped = skipped;
    if (!Number.isNaN(this.seg[row]!)) e.seg = this.seg[row]!;
    if (!Number.isNaN(this.start[row]!)) e.start = this.start[row]!;
    return e;
  }

  sizeAt(row: number): number {
    return this.size[row]!;
  }

  mtimeAt(row: number): number {
    return this.mtimeMs[row]!;
  }

  chunkCountAt(row: number): number {
    return this.chunkCount[row]!;
  }

  /** 0 when the row has no segment (as head.json writes it). */
  segAt(row: number): number {
    const s = this.seg[row]!;
    return Number.isNaN(s) ? 0 : s;
  }

  /** undefined when the row has no start. */
  startAt(row: number): number | undefined {
    const s = this.start[row]!;
    return Number.isNaN(s) ? undefined : s;
  }

  roleAt(row: number): Role {
    return this.roleNames[this.role[row]!]!;
  }

  skippedAt(row: number): SkipReason | undefined {
    return SKIPS[this.skip[row]!];
  }

  /** The row's hash as head.json writes it: 64 hex digits, zeros for a hash of another shape. */
  hexAt(row: number): string {
    return Buffer.from(this.sha.buffer, this.sha.byteOffset + row * SHA_BYTES, SHA_BYTES).toString('hex');
  }

  /** The hashes of `rows` in that order, as hex (zeros for odd ones): a piece of head.json's hash column. */
  hexOf(rows: ArrayLike<number>, from: number, to: number): string {
    const out = Buffer.allocUnsafe((to - from) * SHA_BYTES);
    for (let i = from; i < to; i++) out.set(this.sha.subarray(rows[i]! * SHA_BYTES, (rows[i]! + 1) * SHA_BYTES), (i - from) * SHA_BYTES);
    return out.toString('hex');
  }

  /** The live rows in path order (head.json's columns, file-columns.ts). */
  sorted(): SortedRows {
    const paths = Array.from(this.index.keys());
    let rows = Uint32Array.from(this.index.values());
    // Set in path order (a create's files are): no sort needed.
    let inOrder = true;
    for (let i = 1; i < paths.length && inOrder; i++) inOrder = paths[i - 1]! < paths[i]!;
    if (!inOrder) {
      paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      rows = Uint32Array.from(paths, (p) => this.index.get(p)!);
    }
    return {
      length: paths.length,
      path: (i) => paths[i]!,
      size: (i) => this.sizeAt(rows[i]!),
      mtimeMs: (i) => this.mtimeAt(rows[i]!),
      chunkCount: (i) => this.chunkCountAt(rows[i]!),
      seg: (i) => this.segAt(rows[i]!),
      start: (i) => this.startAt(rows[i]!),
      role: (i) => this.roleAt(rows[i]!),
      skipped: (i) => this.skippedAt(rows[i]!),
      hex: (from, to) => this.hexOf(rows, from, to),
    };
  }

  /** A store of the same live rows, holes left out. */
  clone(): FileRowStore {
    const out = new FileRowStore(Math.max(64, this.index.size));
    for (const [path, row] of this.index) out.set(path, this.entryAt(row));
    return out;
  }

  private grow(): void {
    // By half: doubling left up to half the columns unused (~37 MB at 692k files).
    const n = Math.ceil(this.size.length * 1.5);
    this.size = grown(this.size, new Float64Array(n));
    this.mtimeMs = grown(this.mtimeMs, new Float64Array(n));
    this.chunkCount = grown(this.chunkCount, new Float64Array(n));
    this.seg = grown(this.seg, new Float64Array(n));
    this.start = grown(this.start, new Float64Array(n));
    this.sha = grown(this.sha, new Uint8Array(n * SHA_BYTES));
    this.role = grown(this.role, new Uint8Array(n));
    this.skip = grown(this.skip, new Uint8Array(n));
  }
}
