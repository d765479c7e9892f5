/**
 * Binary chunk records of one segment (`seg-<g>.rec`). A cold search reads the records of every
 * chunk but needs only the hits' in full: parsing them as JSON (20 MB at 100k chunks) was the
 * largest part of its time. Here they are columns of numbers over one string table, so opening
 * costs a file read and a few bounds checks, and a record becomes an object only when asked for.
 *
 *   header   magic "TKSEGREC", u32 version, count, strings, stringBytes, 4 reserved bytes,
 *            f64 generation, f64 text bytes (sum of lengths), 32-byte digest of the ids (digestIds)
 *   f64[count]            text offset
 *   u32[count] x 11       path, ordinal, startLine, endLine, role, title, symbol + 1 (0 = none),
 *                         kind, language, hash (string numbers except ordinal and lines), text length
 *   u32[strings + 1]      byte offsets into the string bytes
 *   utf8[stringBytes]     every distinct string once
 *
 * Decoding checks every count, string number and offset, so a damaged file is refused (null),
 * never read out of range.
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';

import type { Chunk } from '../chunking/types.js';

/** Bump on any layout change: an older file is then unusable and the topic is re-chunked. */
export const RECORDS_FORMAT = 1;
const MAGIC = 'TKSEGREC';
const HEADER = 96;
const COLUMNS = ['path', 'ordinal', 'startLine', 'endLine', 'role', 'title', 'symbol', 'kind', 'language', 'hash', 'len'] as const;
type Column = (typeof COLUMNS)[number];
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

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

const align8 = (n: number): number => (n + 7) & ~7;

function layout(count: number, strings: number, stringBytes: number): { off: number; columns: number; stringOffsets: number; stringBytes: number; total: number } {
  const off = HEADER;
  const columns = off + 8 * count;
  const stringOffsets = align8(columns + 4 * count * COLUMNS.length);
  const bytesAt = stringOffsets + 4 * (strings + 1);
  return { off, columns, stringOffsets, stringBytes: bytesAt, total: bytesAt + stringBytes };
}

/**
 * Digest of a doc-ordered id list given as one text and its UTF-16 offsets (the form the lexical
 * part keeps them in): sha256 of the text's UTF-8, then of the offsets as little-endian u32.
 */
export function digestIds(text: string, offsets: Uint32Array): Buffer {
  const le = LITTLE_ENDIAN ? new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength) : Buffer.alloc(offsets.length * 4);
  if (!LITTLE_ENDIAN) offsets.forEach((v, i) => (le as Buffer).writeUInt32LE(v, 4 * i));
  return createHash('sha256').update(text).update(le).digest();
}

function idsDigest(ids: readonly string[]): Buffer {
  const offsets = new Uint32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) offsets[i + 1] = offsets[i]! + ids[i]!.length;
  return digestIds(ids.join(''), offsets);
}

/** Pure: the records (in doc order, all of generation `gen`) as bytes. */
export function encodeRecords(gen: number, records: readonly StoredChunk[]): Uint8Array {
  const strings: string[] = [];
  const numbers = new Map<string, number>();
  const intern = (s: string): number => {
    let n = numbers.get(s);
    if (n === undefined) {
      n = strings.length;
      strings.push(s);
      numbers.set(s, n);
    }
    return n;
  };
  const count = records.length;
  const cols = COLUMNS.map(() => new Uint32Array(count));
  const col = (name: Column): Uint32Array => cols[COLUMNS.indexOf(name)]!;
  const offs = new Float64Array(count);
  let textBytes = 0;
  records.forEach((r, i) => {
    col('path')[i] = intern(r.path);
    col('ordinal')[i] = Number(r.id.slice(r.id.lastIndexOf('#') + 1));
    col('startLine')[i] = r.startLine;
    col('endLine')[i] = r.endLine;
    col('role')[i] = intern(r.role);
    col('title')[i] = intern(r.title);
    col('symbol')[i] = r.symbol === undefined ? 0 : intern(r.symbol) + 1;
    col('kind')[i] = intern(r.kind);
    col('language')[i] = intern(r.language);
    col('hash')[i] = intern(r.hash);
    col('len')[i] = r.len;
    offs[i] = r.off;
    textBytes += r.len;
  });
  const encoded = strings.map((s) => Buffer.from(s, 'utf8'));
  const stringOffsets = new Uint32Array(strings.length + 1);
  encoded.forEach((b, i) => (stringOffsets[i + 1] = stringOffsets[i]! + b.length));
  const L = layout(count, strings.length, stringOffsets[strings.length]!);
  const out = Buffer.alloc(L.total);
  out.write(MAGIC, 0, 'latin1');
  [RECORDS_FORMAT, count, strings.length, stringOffsets[strings.length]!].forEach((v, i) => out.writeUInt32LE(v, 8 + 4 * i));
  out.writeDoubleLE(gen, 32);
  out.writeDoubleLE(textBytes, 40);
  idsDigest(records.map((r) => r.id)).copy(out, 48);
  putLE(out, L.off, offs);
  cols.forEach((c, k) => putLE(out, L.columns + 4 * k * count, c));
  putLE(out, L.stringOffsets, stringOffsets);
  encoded.forEach((b, i) => b.copy(out, L.stringBytes + stringOffsets[i]!));
  return out;
}

function putLE(out: Buffer, at: number, arr: Uint32Array | Float64Array): void {
  if (LITTLE_ENDIAN) out.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), at);
  else if (arr instanceof Float64Array) arr.forEach((v, i) => out.writeDoubleLE(v, at + 8 * i));
  else arr.forEach((v, i) => out.writeUInt32LE(v, at + 4 * i));
}

/** A view of `n` u32 or f64 at `at`, copied when unaligned or on a big-endian host. */
function u32s(buf: Buffer, at: number, n: number): Uint32Array {
  if (LITTLE_ENDIAN && (buf.byteOffset + at) % 4 === 0) return new Uint32Array(buf.buffer, buf.byteOffset + at, n);
  return Uint32Array.from({ length: n }, (_, i) => buf.readUInt32LE(at + 4 * i));
}
function f64s(buf: Buffer, at: number, n: number): Float64Array {
  if (LITTLE_ENDIAN && (buf.byteOffset + at) % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset + at, n);
  return Float64Array.from({ length: n }, (_, i) => buf.readDoubleLE(at + 8 * i));
}

/** Records of one segment, decoded one at a time on demand (and then kept). */
export class SegmentRecords {
  private readonly made: (StoredChunk | undefined)[];
  private readonly texts: (string | undefined)[];

  private constructor(
    readonly gen: number,
    readonly count: number,
    /** Sum of the text lengths: the size `seg-<g>.txt` must have. */
    readonly textBytes: number,
    /** digestIds of the records' ids: the lexical part must have the same. */
    readonly digest: Buffer,
    private readonly offs: Float64Array,
    private readonly cols: Uint32Array[],
    private readonly stringOffsets: Uint32Array,
    private readonly stringBytes: Buffer,
  ) {
    this.made = new Array<StoredChunk | undefined>(count);
    this.texts = new Array<string | undefined>(stringOffsets.length - 1);
  }

  /** Null when `bytes` is not a whole, consistent records file of generation `gen`. */
  static decode(gen: number, bytes: Buffer): SegmentRecords | null {
    if (bytes.length < HEADER || bytes.toString('latin1', 0, 8) !== MAGIC || bytes.readUInt32LE(8) !== RECORDS_FORMAT) return null;
    const [count, strings, stringBytes] = [12, 16, 20].map((at) => bytes.readUInt32LE(at)) as [number, number, number];
    const L = layout(count, strings, stringBytes);
    if (L.total !== bytes.length || bytes.readDoubleLE(32) !== gen) return null;
    const textBytes = bytes.readDoubleLE(40);
    const offs = f64s(bytes, L.off, count);
    const cols = COLUMNS.map((_, k) => u32s(bytes, L.columns + 4 * k * count, count));
    const stringOffsets = u32s(bytes, L.stringOffsets, strings + 1);
    const text = bytes.subarray(L.stringBytes, L.total);
    if (stringOffsets[0] !== 0 || stringOffsets[strings] !== stringBytes) return null;
    for (let i = 0; i < strings; i++) if (stringOffsets[i + 1]! < stringOffsets[i]!) return null;
    // Strings are cut at their offsets, so each must be whole UTF-8 on its own: the table as a
    // whole being UTF-8 is not enough, but each offset must also start a character.
    if (!isUtf8(text)) return null;
    for (let i = 1; i < strings; i++) if ((text[stringOffsets[i]!]! & 0xc0) === 0x80) return null;
    const byName = (name: Column): Uint32Array => cols[COLUMNS.indexOf(name)]!;
    for (const name of ['path', 'role', 'title', 'kind', 'language', 'hash'] as const) {
      const c = byName(name);
      for (let i = 0; i < count; i++) if (c[i]! >= strings) return null;
    }
    const symbol = byName('symbol');
    for (let i = 0; i < count; i++) if (symbol[i]! > strings) return null;
    const len = byName('len');
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const o = offs[i]!;
      if (!(o >= 0 && Number.isInteger(o) && o + len[i]! <= textBytes)) return null;
      sum += len[i]!;
    }
    if (sum !== textBytes) return null;
    return new SegmentRecords(gen, count, textBytes, Buffer.from(bytes.subarray(48, 80)), offs, cols, stringOffsets, text);
  }

  private column(name: Column): Uint32Array {
    return this.cols[COLUMNS.indexOf(name)]!;
  }

  private string(n: number): string {
    let s = this.texts[n];
    if (s === undefined) {
      s = this.stringBytes.toString('utf8', this.stringOffsets[n], this.stringOffsets[n + 1]);
      this.texts[n] = s;
    }
    return s;
  }

  /** Path of record `i`, as its string number (equal numbers, equal paths). */
  pathNumber(i: number): number {
    return this.column('path')[i]!;
  }

  pathAt(i: number): string {
    return this.string(this.pathNumber(i));
  }

  ordinalAt(i: number): number {
    return this.column('ordinal')[i]!;
  }

  /** Record `i` as an object (the same object on every call). */
  record(i: number): StoredChunk {
    const known = this.made[i];
    if (known) return known;
    const path = this.pathAt(i);
    const sym = this.column('symbol')[i]!;
    // One fixed object shape, in the key order the JSON records had (output order follows it).
    const r: StoredChunk = {
      id: path + '#' + this.ordinalAt(i),
      path,
      startLine: this.column('startLine')[i]!,
      endLine: this.column('endLine')[i]!,
      role: this.string(this.column('role')[i]!) as StoredChunk['role'],
      title: this.string(this.column('title')[i]!),
      symbol: sym === 0 ? undefined : this.string(sym - 1),
      kind: this.string(this.column('kind')[i]!),
      language: this.string(this.column('language')[i]!),
      hash: this.string(this.column('hash')[i]!),
      seg: this.gen,
      off: this.offs[i]!,
      len: this.column('len')[i]!,
    };
    this.made[i] = r;
    return r;
  }

  /** Every record, in doc order. */
  all(): StoredChunk[] {
    const out = new Array<StoredChunk>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.record(i);
    return out;
  }
}
