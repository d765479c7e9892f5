/**
 * head-hot.bin: the hot part of head.json (the head's own fields and the columns a search reads:
 * paths, chunk counts, segments, starts, the listing digest, skipped files) in a binary file
 * beside it. The numbers are typed arrays straight from the file and the paths one byte table,
 * a string made only for a row that is asked for: at 300k chunks parsing the 9 MB of hot JSON
 * lines and their 207k path strings was ~0.66 s of an MCP server's first answer.
 *
 * Derived from head.json, which stays the truth: stamped with the identity of the head.json it
 * was made from (inode, size, mtime in ns; every write renames a new file into place), and used
 * only while that file is the one in place. A missing, stale or damaged one is ignored, and
 * written again by the next sync or by the reader that parsed head.json instead. Only heads of
 * MIN_HOT_ROWS files or more have one: a small head parses in a few milliseconds.
 *
 * Layout (little-endian): a 64-byte header (magic, the stamp, rows, flags, the cold columns'
 * offset in head.json, the lengths below), the fields as JSON (padded to 8 bytes), chunk counts,
 * segments and (flag 1) starts as float64 per row, path offsets as uint32 (rows + 1), path bytes.
 */
import { closeSync } from 'node:fs';

import type { FileColumns } from './file-table.js';
import { FileTable } from './file-table.js';
import { type HeadStamp, parseCold, stampOf } from './head-file.js';
import { writeFileAtomic } from './layout.js';
import { closeWhenCollected, openRegular, readFully, readRegularOrNull } from '../regular-file.js';
import type { PathList } from './row-index.js';

/** Heads with fewer files get no binary copy. */
export const MIN_HOT_ROWS = 4000;

const MAGIC = Buffer.from('tkhot\u0000\u0001\n', 'latin1');
const HEADER = 64;
const HAS_START = 1;

/** What the binary file holds: the head's fields as JSON text, and its hot columns. */
export interface HotHead {
  fields: string;
  cols: Partial<FileColumns>;
  /** Where head.json's first cold column's line starts. */
  coldFrom: number;
}

const pad8 = (n: number): number => (n + 7) & ~7;

/** The file's bytes for `hot`, made from the head.json that has `stamp`. */
export function hotHeadBytes(hot: HotHead, stamp: HeadStamp): Buffer {
  return Buffer.concat([...hotHeadPieces(hot, stamp)]);
}

/** Paths per piece of the path bytes. */
const PATHS_PIECE = 4096;

/**
 * hotHeadBytes a piece at a time: the paths joined, then as bytes, then copied into one buffer
 * of the whole file were ~100 MB at once at 692k files, at the end of a create (its peak).
 */
function* hotHeadPieces(hot: HotHead, stamp: HeadStamp): Generator<Uint8Array> {
  const { path, chunkCount, seg, start, listing, skipped } = hot.cols;
  if (!path || !chunkCount || !seg) throw new Error('hot columns missing');
  const n = path.length;
  const json = Buffer.from(JSON.stringify({ fields: hot.fields, listing: listing ?? null, skipped: skipped ?? {} }), 'utf8');
  const offsets = new Uint32Array(n + 1);
  for (let i = 0, at = 0; i < n; i++) offsets[i + 1] = at += Buffer.byteLength(path[i]!, 'utf8');
  const head = Buffer.alloc(HEADER + pad8(json.length));
  MAGIC.copy(head, 0);
  head.writeBigUInt64LE(stamp.ino, 8);
  head.writeBigUInt64LE(stamp.size, 16);
  head.writeBigUInt64LE(stamp.mtimeNs, 24);
  head.writeUInt32LE(n, 32);
  head.writeUInt32LE(start ? HAS_START : 0, 36);
  head.writeDoubleLE(hot.coldFrom, 40);
  head.writeUInt32LE(json.length, 48);
  head.writeUInt32LE(offsets[n]!, 52);
  json.copy(head, HEADER);
  yield head;
  for (const col of start ? [chunkCount, seg, start] : [chunkCount, seg]) {
    const f64 = col instanceof Float64Array ? col : Float64Array.from(col);
    yield new Uint8Array(f64.buffer, f64.byteOffset, f64.byteLength);
  }
  yield new Uint8Array(offsets.buffer);
  for (let from = 0; from < n; from += PATHS_PIECE) yield Buffer.from(path.slice(from, from + PATHS_PIECE).join(''), 'utf8');
}

/** Writes the binary copy of the head.json that has `stamp`; quietly nothing on failure (it is only a copy). */
export async function writeHotHead(file: string, stamp: HeadStamp, hot: HotHead): Promise<void> {
  if ((hot.cols.path?.length ?? 0) < MIN_HOT_ROWS) return;
  try {
    await writeFileAtomic(file, hotHeadPieces(hot, stamp));
  } catch {
    // a read-only or full disk: readers parse head.json as before
  }
}

/** Paths as one byte table: a row's string is made when it is asked for. */
class PathTable implements PathList {
  constructor(
    private readonly bytes: Buffer,
    private readonly offsets: Uint32Array,
  ) {}

  get length(): number {
    return this.offsets.length - 1;
  }

  at(row: number): string | undefined {
    return row >= 0 && row < this.offsets.length - 1 ? this.bytes.toString('utf8', this.offsets[row], this.offsets[row + 1]) : undefined;
  }
}

/**
 * The head (its fields, and the file table with its hot columns from `file`) when `file` was
 * made from the head.json now at `headFile`; null when it is missing, stale or damaged. The cold
 * columns are read from the head.json opened here, when first asked (it stays open until then).
 */
export function readHotHead(file: string, headFile: string): { fields: Record<string, unknown>; files: FileTable } | null {
  // The copy first: most heads (under MIN_HOT_ROWS) have none, and then head.json is not opened twice.
  const bytes = readRegularOrNull(file);
  if (!bytes) return null;
  let head: { fd: number; size: number };
  try {
    head = openRegular(headFile);
  } catch {
    return null;
  }
  let keep = false;
  try {
    const got = decodeHot(bytes, stampOf(head.fd));
    if (!got) return null;
    const { fd, size } = head;
    let closeNow = (): void => {};
    const files = FileTable.fromHot(got.cols, () => {
      try {
        const rest = Buffer.allocUnsafe(Math.max(0, size - got.coldFrom));
        return parseCold(readFully(fd, rest, got.coldFrom, rest.length, 0) === rest.length ? rest : null, got.cols);
      } finally {
        closeNow();
      }
    });
    closeNow = closeWhenCollected(files, fd);
    keep = true;
    return { fields: got.fields, files };
  } finally {
    if (!keep) closeSync(head.fd);
  }
}

/** The file's contents, checked: null unless it is whole, of this layout and made from `stamp`'s head. */
function decodeHot(
  b: Buffer,
  stamp: HeadStamp,
): { fields: Record<string, unknown>; coldFrom: number; cols: { path: PathList; chunkCount: Float64Array; seg: Float64Array; start?: Float64Array; listing: unknown; skipped: unknown } } | null {
  if (b.length < HEADER || !b.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  if (b.readBigUInt64LE(8) !== stamp.ino || b.readBigUInt64LE(16) !== stamp.size || b.readBigUInt64LE(24) !== stamp.mtimeNs) return null;
  const n = b.readUInt32LE(32);
  const numbers = b.readUInt32LE(36) & HAS_START ? 3 : 2;
  const coldFrom = b.readDoubleLE(40);
  const jsonLength = b.readUInt32LE(48);
  const pathLength = b.readUInt32LE(52);
  const offsetsAt = HEADER + pad8(jsonLength) + 8 * n * numbers;
  if (b.length !== offsetsAt + 4 * (n + 1) + pathLength || !Number.isSafeInteger(coldFrom) || coldFrom < 0) return null;
  // Typed arrays need aligned offsets: a file read into a pooled buffer is copied first.
  const a = b.byteOffset % 8 === 0 ? b : Buffer.from(b);
  let meta: unknown;
  try {
    meta = JSON.parse(a.toString('utf8', HEADER, HEADER + jsonLength));
  } catch {
    return null;
  }
  if (typeof meta !== 'object' || meta === null || typeof (meta as { fields?: unknown }).fields !== 'string') return null;
  const { fields: fieldsText, listing, skipped } = meta as { fields: string; listing: unknown; skipped: unknown };
  let fields: unknown;
  try {
    fields = JSON.parse(fieldsText);
  } catch {
    return null;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return null;
  const column = (i: number): Float64Array => new Float64Array(a.buffer, a.byteOffset + HEADER + pad8(jsonLength) + 8 * n * i, n);
  const offsets = new Uint32Array(a.buffer, a.byteOffset + offsetsAt, n + 1);
  const pathBytes = a.subarray(offsetsAt + 4 * (n + 1));
  // Every path non-empty and within the table. Not checked as UTF-8 (7.6 MB at 300k chunks): a
  // damaged byte decodes to U+FFFD, which no lookup asks for, and a chunk found is still checked
  // to be the one its id names (live-chunks.ts).
  if (offsets[0] !== 0 || offsets[n] !== pathLength) return null;
  for (let i = 0; i < n; i++) if (offsets[i + 1]! <= offsets[i]!) return null;
  return {
    fields: fields as Record<string, unknown>,
    coldFrom,
    cols: { path: new PathTable(pathBytes, offsets), chunkCount: column(0), seg: column(1), ...(numbers === 3 ? { start: column(2) } : {}), listing: listing ?? undefined, skipped },
  };
}
