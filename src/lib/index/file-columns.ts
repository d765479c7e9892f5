/**
 * A file table's columns as head.json stores them (FileColumns), made a piece at a time from its
 * rows sorted by path: at 692k files, toJSON's arrays (an entry object and a pair per row, a heap
 * number per mtime, the hashes joined, then each column's JSON whole) were the largest thing alive
 * while a create wrote its head. The text is what JSON.stringify of those arrays writes, byte for
 * byte. Also the check of the cold columns read back (coldColumns).
 */
import type { Role } from '../chunking/types.js';
import type { FileColumns, SkipReason } from './file-table.js';
import type { PathList } from './row-index.js';

/** A table's rows in path order, read one field at a time. */
export interface SortedRows {
  readonly length: number;
  path(i: number): string;
  size(i: number): number;
  mtimeMs(i: number): number;
  chunkCount(i: number): number;
  /** 0 when the row has no segment. */
  seg(i: number): number;
  start(i: number): number | undefined;
  role(i: number): Role;
  skipped(i: number): SkipReason | undefined;
  /** The hashes of rows [from, to) as one hex string, 64 zeros for a row whose hash is not 64 hex digits. */
  hex(from: number, to: number): string;
}

/** One column: its JSON text in pieces, or its value (a hot column for head-hot.ts, toJSON). */
export interface Column {
  json(): Iterable<string>;
  value(): unknown;
}

/** Rows per piece of text: ~100-300 KB of it. */
const PIECE = 4096;

/** A number as JSON.stringify writes it in an array. */
const num = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

function* arrayJson(n: number, item: (i: number) => string): Generator<string> {
  if (n === 0) {
    yield '[]';
    return;
  }
  for (let from = 0; from < n; from += PIECE) {
    const to = Math.min(n, from + PIECE);
    let s = from === 0 ? '[' : ',';
    for (let i = from; i < to; i++) s += i === from ? item(i) : `,${item(i)}`;
    yield to === n ? `${s}]` : s;
  }
}

function numbers(n: number, at: (i: number) => number): Column {
  return {
    json: () => arrayJson(n, (i) => num(at(i))),
    value: () => Float64Array.from({ length: n }, (_, i) => at(i)),
  };
}

function strings(n: number, at: (i: number) => string): Column {
  return {
    json: () => arrayJson(n, (i) => JSON.stringify(at(i))),
    value: () => Array.from({ length: n }, (_, i) => at(i)),
  };
}

const whole = (v: unknown): Column => ({ json: () => [JSON.stringify(v)], value: () => v });

/** The columns of `rows` by name; `start` only when every row with chunks has one, `listing` when there is one. */
export function tableColumns(rows: SortedRows, listing: string | null): Partial<Record<keyof FileColumns, Column>> {
  const n = rows.length;
  let everyStart = true;
  // Null prototype: a file named `__proto__` is a key like any other.
  const skipped = Object.create(null) as Record<string, SkipReason>;
  for (let i = 0; i < n; i++) {
    if (everyStart && rows.chunkCount(i) > 0 && rows.start(i) === undefined) everyStart = false;
    const reason = rows.skipped(i);
    if (reason) skipped[rows.path(i)] = reason;
  }
  return {
    path: strings(n, (i) => rows.path(i)),
    size: numbers(n, (i) => rows.size(i)),
    mtimeMs: numbers(n, (i) => rows.mtimeMs(i)),
    sha256: {
      *json() {
        yield '"';
        for (let from = 0; from < n; from += PIECE) yield rows.hex(from, Math.min(n, from + PIECE));
        yield '"';
      },
      value: () => rows.hex(0, n),
    },
    role: strings(n, (i) => rows.role(i)),
    chunkCount: numbers(n, (i) => rows.chunkCount(i)),
    seg: numbers(n, (i) => rows.seg(i)),
    // toJSON's order as before: a whole head written by JSON.stringify keeps its bytes.
    skipped: whole(skipped),
    ...(everyStart ? { start: numbers(n, (i) => rows.start(i) ?? 0) } : {}),
    ...(listing !== null ? { listing: whole(listing) } : {}),
  };
}

const SHA_HEX = 64;
const ZERO_HASH = '0'.repeat(SHA_HEX);
const HEX_RUN = /^[0-9a-f]*$/;

/** A table read from disk (file-table.ts): its rows are sorted already. */
export function sortedColumns(
  c: { path: PathList; chunkCount: ArrayLike<number>; seg: ArrayLike<number>; start?: ArrayLike<number> },
  k: Pick<FileColumns, 'size' | 'mtimeMs' | 'sha256' | 'role' | 'skipped'>,
): SortedRows {
  return {
    length: c.path.length,
    path: (i) => c.path.at(i)!,
    size: (i) => k.size[i]!,
    mtimeMs: (i) => k.mtimeMs[i]!,
    chunkCount: (i) => c.chunkCount[i]!,
    seg: (i) => c.seg[i]!,
    start: (i) => (c.start && c.chunkCount[i]! > 0 ? c.start[i]! : undefined),
    role: (i) => k.role[i]!,
    skipped: (i) => (Object.hasOwn(k.skipped, c.path.at(i)!) ? k.skipped[c.path.at(i)!] : undefined),
    hex(from, to) {
      const run = k.sha256.slice(from * SHA_HEX, to * SHA_HEX);
      if (HEX_RUN.test(run)) return run;
      // A hash of any other shape would shift every row after it: such a row is written blank.
      let out = '';
      for (let i = from; i < to; i++) {
        const h = k.sha256.slice(i * SHA_HEX, (i + 1) * SHA_HEX);
        out += HEX_RUN.test(h) ? h : ZERO_HASH;
      }
      return out;
    },
  };
}

/** The columns a file table read from disk parses only when asked (file-table.ts). */
type Cold = Pick<FileColumns, 'skipped' | 'role' | 'size' | 'mtimeMs' | 'sha256'>;
const ROLES: ReadonlySet<string> = new Set<Role>(['docs', 'example', 'code', 'test']);
const SKIP_REASONS: ReadonlySet<string> = new Set<SkipReason>(['binary', 'too-large', 'unchunkable']);

/** The cold columns of `v`, checked against the table's rows; null when anything is off. */
export function coldColumns(v: unknown, rows: { readonly size: number; get(path: string): number | undefined }): Cold | null {
  if (typeof v !== 'object' || v === null) return null;
  const { size, mtimeMs, sha256, role, skipped } = v as Partial<Record<keyof Cold, unknown>>;
  const n = rows.size;
  if (!Array.isArray(size) || !Array.isArray(mtimeMs) || !Array.isArray(role) || size.length !== n || mtimeMs.length !== n || role.length !== n) return null;
  if (typeof sha256 !== 'string' || sha256.length !== n * SHA_HEX) return null;
  if (typeof skipped !== 'object' || skipped === null || Array.isArray(skipped)) return null;
  for (let i = 0; i < n; i++) {
    if (typeof size[i] !== 'number' || typeof mtimeMs[i] !== 'number' || !ROLES.has(role[i] as string)) return null;
  }
  for (const [p, reason] of Object.entries(skipped)) if (rows.get(p) === undefined || !SKIP_REASONS.has(reason as string)) return null;
  return { size, mtimeMs, sha256, role, skipped } as Cold;
}

/** Rows nothing on disk can match: a size of -1, no mtime, a hash of no content. */
export function unknownColumns(n: number): Cold {
  return { size: new Array<number>(n).fill(-1), mtimeMs: new Array<number>(n).fill(-1), sha256: '0'.repeat(n * SHA_HEX), role: new Array<Role>(n).fill('docs'), skipped: {} };
}
