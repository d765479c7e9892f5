/**
 * Binary chunk records of one segment (`seg-<g>.rec`). A cold search reads the records of every
 * chunk but needs only the hits' in full: parsing them as JSON (20 MB at 100k chunks) was the
 * largest part of its time. Here they are columns of numbers over one string table plus a table
 * of files (each file's records are one run), so opening costs a file read and work per file, not
 * per record; a record is checked and made an object only when asked for.
 *
 *   header   magic "TKSEGREC", u32 version, count, strings, stringBytes, runs,
 *            f64 generation, f64 text bytes (sum of lengths), 32-byte digest of the ids (digestIds)
 *   f64[count]            text offset
 *   u32[count] x 11       path, ordinal, startLine, endLine, role, title, symbol + 1 (0 = none),
 *                         kind, language, hash (string numbers except ordinal and lines), text length
 *   u32[runs] x 2         per run of one file's records: path string number, record count
 *   u32[strings + 1]      byte offsets into the string bytes
 *   utf8[stringBytes]     every distinct string once
 *
 * Decoding checks the sizes, the runs and that the string table is UTF-8; a record's numbers and
 * string boundaries are checked when it is made. A damaged file is refused (null), or its damaged records are, and
 * nothing is ever read out of range. A search opens the file instead (SegmentRecords.open): the
 * header now, each record it asks for by positional reads, each string checked as it is read.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync } from 'node:fs';

import { closeWhenCollected, readFully } from '../regular-file.js';
import { COL, COLUMNS, type Column, f64s, HEADER, layout, MAGIC, RECORDS_FORMAT, type StoredChunk, u32s } from './segment-records-format.js';

export { digestIds, encodeRecords, RECORDS_FORMAT, type RecordFields, RecordsEncoder, type StoredChunk } from './segment-records-format.js';

type Utf8Slicing = Buffer & { utf8Slice?(start: number, end: number): string };

/**
 * `bytes.toString('utf8', from, to)` for bounds already checked. Buffer's own utf8Slice (what
 * toString calls after normalising its arguments) is 3–6× faster per call in a cold process, and
 * a cold search decodes 5k paths; toString is the fallback should a Node version lack it.
 */
function utf8Of(bytes: Utf8Slicing, from: number, to: number): string {
  return typeof bytes.utf8Slice === 'function' ? bytes.utf8Slice(from, to) : bytes.toString('utf8', from, to);
}

/** A UTF-8 continuation byte (10xxxxxx): no character starts there. Past the end: false. */
const continuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** One file's records: `count` records from `start`, all with path string `path`. */
export interface RecordRun {
  path: string;
  start: number;
  count: number;
}

/**
 * The parts of a records file a reader keeps: the whole file's columns in memory, or (opened for a
 * search) the open file, from which a record's numbers and strings are read when it is asked for.
 */
interface Columns {
  offs: Float64Array;
  cols: Uint32Array[];
  runTable: Uint32Array;
  stringOffsets: Uint32Array;
  stringBytes: Buffer;
}

/** A records file left on disk: positional reads, the file's layout and size as opened. */
interface OnDisk {
  fd: number;
  L: ReturnType<typeof layout>;
  strings: number;
  runs: number;
}

/** `length` bytes at `position` of `fd`, or null when the file ends first or cannot be read. */
function readAt(fd: number, length: number, position: number): Buffer | null {
  const out = Buffer.alloc(length);
  try {
    return readFully(fd, out, position, length, 0) === length ? out : null;
  } catch {
    return null;
  }
}

/** The header's numbers: null when `head` is not a records header of generation `gen` for a file of `size` bytes. */
function readRecordsHeader(head: Buffer, gen: number, size: number): { count: number; strings: number; stringBytes: number; runCount: number; textBytes: number; L: ReturnType<typeof layout> } | null {
  if (head.length < HEADER || head.toString('latin1', 0, 8) !== MAGIC || head.readUInt32LE(8) !== RECORDS_FORMAT) return null;
  const [count, strings, stringBytes, runCount] = [12, 16, 20, 24].map((at) => head.readUInt32LE(at)) as [number, number, number, number];
  const L = layout(count, strings, stringBytes, runCount);
  if (L.total !== size || head.readDoubleLE(32) !== gen) return null;
  const textBytes = head.readDoubleLE(40);
  if (!(textBytes >= 0 && Number.isInteger(textBytes))) return null;
  return { count, strings, stringBytes, runCount, textBytes, L };
}

/** Where each run starts, or null when the runs do not cover the `count` records exactly once. */
function runStartsOf(runTable: Uint32Array, count: number, strings: number): Uint32Array | null {
  const runCount = runTable.length / 2;
  const runStarts = new Uint32Array(runCount);
  let start = 0;
  for (let r = 0; r < runCount; r++) {
    const n = runTable[2 * r + 1]!;
    if (n === 0 || start + n > count || runTable[2 * r]! >= strings) return null;
    runStarts[r] = start;
    start += n;
  }
  return start === count ? runStarts : null;
}

/** Records of one segment, checked and made objects one at a time on demand (and then kept). */
export class SegmentRecords {
  private readonly made: (StoredChunk | null | undefined)[];
  private readonly texts: (string | null | undefined)[];
  private readonly strings: number;
  /** Null until asked for, on a segment opened from its file (runStartsOf; null again when damaged). */
  private starts: Uint32Array | null | undefined;

  private constructor(
    readonly gen: number,
    readonly count: number,
    /** Sum of the text lengths: the size `seg-<g>.txt` must have. */
    readonly textBytes: number,
    /** digestIds of the records' ids: the lexical part must have the same. */
    readonly digest: Buffer,
    /**
     * In memory: the columns, and the runs of records of one file each, in doc order, covering
     * every record (run r is `runTable[2r+1]` records with path string `runTable[2r]`). Typed
     * arrays, and paths decoded only when asked (runPath): a cold search opens 5k runs at
     * SciFact scale. Null while the file is read on demand (`disk`).
     */
    private columns: Columns | null,
    private readonly disk: OnDisk | null,
    strings: number,
    runStarts?: Uint32Array,
  ) {
    this.strings = strings;
    this.starts = runStarts;
    this.made = new Array<StoredChunk | null | undefined>(count);
    this.texts = new Array<string | null | undefined>(this.strings);
  }

  /** Null when `bytes` is not a whole records file of generation `gen` with consistent runs. */
  static decode(gen: number, bytes: Buffer): SegmentRecords | null {
    const h = readRecordsHeader(bytes, gen, bytes.length);
    if (!h) return null;
    const { count, strings, stringBytes, runCount, L } = h;
    const offs = f64s(bytes, L.off, count);
    const cols = COLUMNS.map((_, k) => u32s(bytes, L.columns + 4 * k * count, count));
    const runTable = u32s(bytes, L.runs, 2 * runCount);
    const stringOffsets = u32s(bytes, L.stringOffsets, strings + 1);
    if (stringOffsets[0] !== 0 || stringOffsets[strings] !== stringBytes) return null;
    // The table as a whole is UTF-8 (one native pass); a string is then whole when it starts and
    // ends on a character boundary, checked as it is read.
    if (!isUtf8(bytes.subarray(L.stringBytes, L.total))) return null;
    const runStarts = runStartsOf(runTable, count, strings);
    if (!runStarts) return null;
    const columns = { offs, cols, runTable, stringOffsets, stringBytes: bytes.subarray(L.stringBytes, L.total) };
    return new SegmentRecords(gen, count, h.textBytes, Buffer.from(bytes.subarray(48, 80)), columns, null, strings, runStarts);
  }

  /**
   * The records of an open file (`fd`, `size` bytes, taken over: closed when the records are
   * garbage collected) without reading them: the header is read and checked now, each record's
   * numbers and strings when it is asked for (a search asks for its candidates and hits, a few
   * hundred of 300k; reading and checking the whole 23 MB file was a fifth of a server's first
   * answer at that size). Segment files are replaced by rename, never rewritten, so the
   * descriptor keeps reading what was opened. The runs are read and checked on first use; all()
   * reads the whole file as decode() does. Null (and the file closed) when the header is wrong.
   */
  static open(gen: number, fd: number, size: number): SegmentRecords | null {
    const head = size >= HEADER ? readAt(fd, HEADER, 0) : null;
    const h = head ? readRecordsHeader(head, gen, size) : null;
    const ends = h ? readAt(fd, 4, h.L.stringOffsets) : null;
    const last = h ? readAt(fd, 4, h.L.stringOffsets + 4 * h.strings) : null;
    if (!h || !ends || !last || ends.readUInt32LE(0) !== 0 || last.readUInt32LE(0) !== h.stringBytes) {
      closeSync(fd);
      return null;
    }
    const records = new SegmentRecords(gen, h.count, h.textBytes, Buffer.from(head!.subarray(48, 80)), null, { fd, L: h.L, strings: h.strings, runs: h.runCount }, h.strings);
    closeWhenCollected(records, fd);
    return records;
  }

  /** True while the records are read from their file on demand (opened by open(), all() not yet called). */
  get onDisk(): boolean {
    return this.columns === null;
  }

  /** The whole file's columns, read now from a file opened by open() (null when it is damaged). */
  private load(): Columns | null {
    if (this.columns || !this.disk) return this.columns;
    const { fd, L } = this.disk;
    const bytes = readAt(fd, L.total, 0);
    const whole = bytes ? SegmentRecords.decode(this.gen, bytes) : null;
    if (!whole) return null;
    this.columns = whole.columns;
    this.starts = whole.starts;
    return this.columns;
  }

  /** Record starts of each run; null when the runs are damaged. */
  private runStartsOrNull(): Uint32Array | null {
    if (this.starts === undefined) {
      const { fd, L, runs, strings } = this.disk!;
      const bytes = readAt(fd, 8 * runs, L.runs);
      this.starts = bytes ? runStartsOf(u32s(bytes, 0, 2 * runs), this.count, strings) : null;
      if (this.starts) this.runTableRead = u32s(bytes!, 0, 2 * runs);
    }
    return this.starts;
  }

  private runTableRead: Uint32Array | null = null;

  private get runTable(): Uint32Array {
    if (this.columns) return this.columns.runTable;
    return this.runStartsOrNull() ? this.runTableRead! : new Uint32Array(0);
  }

  /** Where each run starts; empty when the runs of a file opened by open() are damaged (then runCount is 0). */
  get runStarts(): Uint32Array {
    return this.runStartsOrNull() ?? new Uint32Array(0);
  }

  get runCount(): number {
    return this.runStarts.length;
  }

  /** False when the runs of a file opened by open() are damaged (read on first use). */
  runsReadable(): boolean {
    return this.runStartsOrNull() !== null;
  }

  /** Records in run `r`. */
  runLength(r: number): number {
    return this.runTable[2 * r + 1]!;
  }

  /** Path of run `r`; null when its string is damaged. */
  runPath(r: number): string | null {
    return this.string(this.runTable[2 * r]!);
  }

  /** Every run as an object, in doc order; null when a path is damaged. */
  runs(): RecordRun[] | null {
    if (!this.runsReadable()) return null;
    const out: RecordRun[] = [];
    for (let r = 0; r < this.runCount; r++) {
      const path = this.runPath(r);
      if (path === null) return null;
      out.push({ path, start: this.runStarts[r]!, count: this.runLength(r) });
    }
    return out;
  }

  /** Column `k`'s number of record `i` (k < COLUMNS.length), or null when unreadable. */
  private num(k: number, i: number): number | null {
    if (this.columns) return this.columns.cols[k]![i]!;
    const b = readAt(this.disk!.fd, 4, this.disk!.L.columns + 4 * (k * this.count + i));
    return b ? b.readUInt32LE(0) : null;
  }

  private textOffset(i: number): number | null {
    if (this.columns) return this.columns.offs[i]!;
    const b = readAt(this.disk!.fd, 8, this.disk!.L.off + 8 * i);
    return b ? b.readDoubleLE(0) : null;
  }

  /** String `n`, or null when out of range or not whole UTF-8 (a damaged file). */
  private string(n: number): string | null {
    let s = this.texts[n];
    if (s === undefined) {
      s = n < this.strings ? (this.columns ? this.stringInMemory(n) : this.stringOnDisk(n)) : null;
      this.texts[n] = s;
    }
    return s;
  }

  private stringInMemory(n: number): string | null {
    const { stringOffsets, stringBytes: bytes } = this.columns!;
    const from = stringOffsets[n];
    const to = stringOffsets[n + 1];
    const ok = from !== undefined && to !== undefined && from <= to && to <= bytes.length;
    return ok && !continuation(bytes[from]) && !continuation(bytes[to]) ? utf8Of(bytes, from, to) : null;
  }

  /** Read alone, a string must be whole UTF-8 by itself (what the table check and the boundaries assure in memory). */
  private stringOnDisk(n: number): string | null {
    const { fd, L } = this.disk!;
    const ends = readAt(fd, 8, L.stringOffsets + 4 * n);
    if (!ends) return null;
    const from = ends.readUInt32LE(0);
    const to = ends.readUInt32LE(4);
    if (from > to || L.stringBytes + to > L.total) return null;
    const bytes = to > from ? readAt(fd, to - from, L.stringBytes + from) : Buffer.alloc(0);
    return bytes && isUtf8(bytes) ? utf8Of(bytes, 0, bytes.length) : null;
  }

  /** Record `i` as an object (the same object on every call); null when it is damaged. */
  record(i: number): StoredChunk | null {
    const known = this.made[i];
    if (known !== undefined) return known;
    if (!(i >= 0 && i < this.count)) return null;
    const col = (name: Column): number | null => this.num(COL[name], i);
    const str = (name: Column): string | null => {
      const k = col(name);
      return k === null ? null : this.string(k);
    };
    const path = str('path');
    const sym = col('symbol');
    const symbol = sym === null ? null : sym === 0 ? undefined : this.string(sym - 1);
    const [role, title, kind, language, hash] = [str('role'), str('title'), str('kind'), str('language'), str('hash')];
    const off = this.textOffset(i);
    const [ordinal, startLine, endLine, len] = [col('ordinal'), col('startLine'), col('endLine'), col('len')];
    let r: StoredChunk | null = null;
    if (
      path !== null && symbol !== null && role !== null && title !== null && kind !== null && language !== null && hash !== null &&
      ordinal !== null && startLine !== null && endLine !== null && len !== null && off !== null &&
      off >= 0 && Number.isInteger(off) && off + len <= this.textBytes
    ) {
      // One fixed object shape, in the key order the JSON records had (output order follows it).
      r = { id: path + '#' + ordinal, path, startLine, endLine, role: role as StoredChunk['role'], title, symbol, kind, language, hash, seg: this.gen, off, len };
    }
    this.made[i] = r;
    return r;
  }

  /** Every record, in doc order; null when any is damaged (a file opened by open() is read whole first). */
  all(): StoredChunk[] | null {
    if (!this.load()) return null;
    const out = new Array<StoredChunk>(this.count);
    for (let i = 0; i < this.count; i++) {
      const r = this.record(i);
      if (!r) return null;
      out[i] = r;
    }
    return out;
  }
}
