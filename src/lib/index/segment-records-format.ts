/**
 * The layout of a segment's records file (seg-<g>.rec, described in segment-records.ts) and its
 * writer; the reader is segment-records.ts.
 */
import { createHash, type Hash } from 'node:crypto';

import type { Chunk } from '../chunking/types.js';
import { grown } from '../typed-array.js';

/** Bump on any layout change: an older file is then unusable and the topic is re-chunked. */
export const RECORDS_FORMAT = 2; // 2: the table of runs
export const MAGIC = 'TKSEGREC';
export const HEADER = 96;
export const COLUMNS = ['path', 'ordinal', 'startLine', 'endLine', 'role', 'title', 'symbol', 'kind', 'language', 'hash', 'len'] as const;
export type Column = (typeof COLUMNS)[number];
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A chunk as the index keeps it: no text, but where to read it. */
export interface StoredChunk extends Omit<Chunk, 'text'> {
  /** `<path>#<ordinal in file>`: stable while the file's chunking is unchanged. */
  id: string;
  /** Generation of the segment holding it. */
  seg: number;
  /** Byte offset and length of the text in `seg-<g>.txt`. */
  off: number;
  len: number;
}

export function layout(count: number, strings: number, stringBytes: number, runs: number): { off: number; columns: number; runs: number; stringOffsets: number; stringBytes: number; total: number } {
  const off = HEADER;
  const columns = off + 8 * count;
  const runsAt = columns + 4 * count * COLUMNS.length;
  const stringOffsets = runsAt + 8 * runs;
  const bytesAt = stringOffsets + 4 * (strings + 1);
  return { off, columns, runs: runsAt, stringOffsets, stringBytes: bytesAt, total: bytesAt + stringBytes };
}

/**
 * Digest of a doc-ordered id list given as one text and its UTF-16 offsets (the form the lexical
 * part keeps them in): sha256 of the text's UTF-8, then of the offsets as little-endian u32. The
 * text may be given as its UTF-8 bytes: the same digest.
 */
export function digestIds(text: string | Uint8Array, offsets: Uint32Array): Buffer {
  const le = LITTLE_ENDIAN ? new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength) : Buffer.alloc(offsets.length * 4);
  if (!LITTLE_ENDIAN) offsets.forEach((v, i) => (le as Buffer).writeUInt32LE(v, 4 * i));
  return createHash('sha256').update(text).update(le).digest();
}

/** digestIds finished from a hash that has had the ids' text (a copy: the encoder may encode again). */
function idsDigestOf(textHash: Hash, offsets: Uint32Array): Buffer {
  const le = LITTLE_ENDIAN ? new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength) : Buffer.alloc(offsets.length * 4);
  if (!LITTLE_ENDIAN) offsets.forEach((v, i) => (le as Buffer).writeUInt32LE(v, 4 * i));
  return textHash.copy().update(le).digest();
}

/** Pure: the records (in doc order, all of generation `gen`) as bytes. */
export function encodeRecords(gen: number, records: readonly StoredChunk[]): Uint8Array {
  const out = new RecordsEncoder();
  for (const r of records) out.add(r);
  return out.encode(gen);
}

/** What the encoder takes of a record: everything but its generation (the segment's). */
export type RecordFields = Omit<StoredChunk, 'seg'>;

/**
 * encodeRecords one record at a time: a sync hands each chunk over as it is cut and keeps only
 * these columns and the string table, not a record object per chunk (each one had a hidden class
 * of its own, and they were a fifth of a create's live heap at its peak). Same bytes.
 */
export class RecordsEncoder {
  private readonly strings: string[] = [];
  private readonly numbers = new Map<string, number>();
  /**
   * The ids' digest as it goes (digestIds: their text, then their offsets): a string kept per
   * record until encode() was ~50 MB of a million-chunk create.
   */
  private readonly idHash = createHash('sha256');
  private idEnds = new Uint32Array(1025); // one more than the columns: offsets count + 1
  /** Ids not hashed yet: hashed 4,096 at a time (a hash update per id cost ~1 µs). */
  private idsPending: string[] = [];
  private n = 0;
  private cols = COLUMNS.map(() => new Uint32Array(1024));
  private offs = new Float64Array(1024);
  private textBytes = 0;

  get count(): number {
    return this.n;
  }

  private intern(s: string): number {
    let n = this.numbers.get(s);
    if (n === undefined) {
      n = this.strings.length;
      this.strings.push(s);
      this.numbers.set(s, n);
    }
    return n;
  }

  add(r: RecordFields): void {
    const i = this.n;
    if (i === this.offs.length) {
      this.cols = this.cols.map((c) => grown(c, new Uint32Array(2 * i)));
      this.offs = grown(this.offs, new Float64Array(2 * i));
      this.idEnds = grown(this.idEnds, new Uint32Array(2 * i + 1));
    }
    const c = this.cols;
    // Strings are numbered in this order (path, role, title, symbol, kind, language, hash).
    c[COL.path]![i] = this.intern(r.path);
    c[COL.ordinal]![i] = Number(r.id.slice(r.id.lastIndexOf('#') + 1));
    c[COL.startLine]![i] = r.startLine;
    c[COL.endLine]![i] = r.endLine;
    c[COL.role]![i] = this.intern(r.role);
    c[COL.title]![i] = this.intern(r.title);
    c[COL.symbol]![i] = r.symbol === undefined ? 0 : this.intern(r.symbol) + 1;
    c[COL.kind]![i] = this.intern(r.kind);
    c[COL.language]![i] = this.intern(r.language);
    c[COL.hash]![i] = this.intern(r.hash);
    c[COL.len]![i] = r.len;
    this.offs[i] = r.off;
    this.textBytes += r.len;
    this.idsPending.push(r.id);
    if (this.idsPending.length === 4096) this.hashPending();
    this.idEnds[i + 1] = this.idEnds[i]! + r.id.length;
    this.n++;
  }

  private hashPending(): void {
    this.idHash.update(this.idsPending.join(''));
    this.idsPending = [];
  }

  /** The records added so far as bytes, all of generation `gen`. */
  encode(gen: number): Uint8Array {
    return Buffer.concat([...this.encodePieces(gen)]);
  }

  /**
   * encode()'s bytes a piece at a time, the columns as they are: at a million chunks the whole
   * file (~80 MB) was made in one buffer beside the columns it was copied from, the peak of a
   * create's index.
   */
  *encodePieces(gen: number): Generator<Uint8Array> {
    this.hashPending();
    const { strings, count } = this;
    const cols = this.cols.map((c) => c.subarray(0, count));
    const paths = cols[COL.path]!;
    let runCount = 0;
    for (let i = 0; i < count; i++) if (i === 0 || paths[i] !== paths[i - 1]) runCount++;
    const runs = new Uint32Array(2 * runCount);
    for (let i = 0, r = -2; i < count; i++) {
      if (i > 0 && paths[i] === paths[i - 1]) runs[r + 1]!++;
      else {
        r += 2;
        runs[r] = paths[i]!;
        runs[r + 1] = 1;
      }
    }
    // Measured, then written in place: a Buffer per string (a path each, at least) was ~100 bytes
    // of garbage a string, at the end of a million-chunk create's index.
    const stringOffsets = new Uint32Array(strings.length + 1);
    strings.forEach((s, i) => (stringOffsets[i + 1] = stringOffsets[i]! + Buffer.byteLength(s, 'utf8')));
    const head = Buffer.alloc(HEADER);
    head.write(MAGIC, 0, 'latin1');
    [RECORDS_FORMAT, count, strings.length, stringOffsets[strings.length]!, runCount].forEach((v, i) => head.writeUInt32LE(v, 8 + 4 * i));
    head.writeDoubleLE(gen, 32);
    head.writeDoubleLE(this.textBytes, 40);
    idsDigestOf(this.idHash, this.idEnds.subarray(0, count + 1)).copy(head, 48);
    yield head;
    yield bytesLE(this.offs.subarray(0, count));
    for (const c of cols) yield bytesLE(c);
    yield bytesLE(runs);
    yield bytesLE(stringOffsets);
    let piece = Buffer.allocUnsafe(STRINGS_PIECE);
    let used = 0;
    for (let i = 0; i < strings.length; i++) {
      const n = stringOffsets[i + 1]! - stringOffsets[i]!;
      if (used + n > STRINGS_PIECE && used > 0) {
        yield piece.subarray(0, used);
        piece = Buffer.allocUnsafe(Math.max(STRINGS_PIECE, n));
        used = 0;
      } else if (n > piece.length - used) piece = Buffer.allocUnsafe(n);
      used += piece.write(strings[i]!, used, 'utf8');
    }
    if (used > 0) yield piece.subarray(0, used);
  }
}

/** Bytes of the string table per piece. */
const STRINGS_PIECE = 1 << 20;

/** `arr`'s bytes little-endian: a view of it on a little-endian host. */
function bytesLE(arr: Uint32Array | Float64Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  const out = Buffer.alloc(arr.byteLength);
  if (arr instanceof Float64Array) arr.forEach((v, i) => out.writeDoubleLE(v, 8 * i));
  else arr.forEach((v, i) => out.writeUInt32LE(v, 4 * i));
  return out;
}

export const COL = Object.fromEntries(COLUMNS.map((name, k) => [name, k])) as Record<Column, number>;

/** A view of `n` u32 or f64 at `at`, copied when unaligned or on a big-endian host. */
export function u32s(buf: Buffer, at: number, n: number): Uint32Array {
  if (LITTLE_ENDIAN && (buf.byteOffset + at) % 4 === 0) return new Uint32Array(buf.buffer, buf.byteOffset + at, n);
  return Uint32Array.from({ length: n }, (_, i) => buf.readUInt32LE(at + 4 * i));
}
export function f64s(buf: Buffer, at: number, n: number): Float64Array {
  if (LITTLE_ENDIAN && (buf.byteOffset + at) % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset + at, n);
  return Float64Array.from({ length: n }, (_, i) => buf.readDoubleLE(at + 8 * i));
}

