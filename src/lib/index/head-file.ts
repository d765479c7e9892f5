/**
 * head.json on disk. The value is the same JSON as ever (any JSON reader takes it, and heads
 * written before are read as they are), but it is written with a line break before the file table
 * and between its columns. JSON.stringify never writes a raw line break inside a value, so each
 * break is a column boundary: a reader parses the head's own fields and the hot columns (what a
 * search needs: paths, chunk counts, segments, starts) and keeps the cold ones (sizes, mtimes,
 * hashes, roles, skipped files: two thirds of the bytes) as bytes until a sync or a status asks.
 * At 300k chunks head.json is 28.8 MB and parsing it whole took an MCP server's first answer
 * ~2.6 s on a loaded machine.
 */
import { closeSync, fstatSync } from 'node:fs';

import type { FileColumns } from './file-table.js';
import { COLD_COLUMNS, FileTable } from './file-table.js';
import { closeWhenCollected, openRegular, readFully } from '../regular-file.js';

const FILES_OPEN = ',"files":{';
const NEWLINE = 0x0a;
/**
 * Where a reader stops: the cold columns but `skipped`, the first of them on disk and small (only
 * the skipped files' paths), read with the hot ones: a cold search asks whether any file was
 * skipped, and the answer (usually none) then needs neither sizes nor the rest.
 */
const COLD: ReadonlySet<string> = new Set(COLD_COLUMNS.filter((c) => c !== 'skipped'));
/** Column order on disk: hot first, so the cold ones are one run of bytes at the end. */
const ORDER: readonly (keyof FileColumns)[] = ['path', 'chunkCount', 'seg', 'start', 'listing', ...COLD_COLUMNS];

/** The text of `head` (an object whose last field is `files`, a FileTable) in lines. */
export function headText(head: { files: FileTable } & Record<string, unknown>): string {
  return [...headPieces(head)].map((b) => b.toString('utf8')).join('');
}

/**
 * headText's UTF-8 a line at a time (each column's JSON made when its turn comes): at 690k files
 * the whole text is ~95 MB, held twice while it was joined and once more as bytes.
 */
export function* headPieces(head: { files: FileTable } & Record<string, unknown>, hot?: HotSink): Generator<Buffer> {
  const { files, ...rest } = head;
  const meta = JSON.stringify(rest);
  const cols = files.columns();
  const names = ORDER.filter((k) => cols[k] !== undefined);
  // `{…}` without its closing brace, then the table's members one a line.
  let piece = Buffer.from(`${meta.slice(0, -1)}${meta.length > 2 ? FILES_OPEN : FILES_OPEN.slice(1)}\n`, 'utf8');
  let written = piece.length;
  yield piece;
  if (hot) hot.fields = meta;
  for (let i = 0; i < names.length; i++) {
    const k = names[i]!;
    if (hot && COLD.has(k)) hot.coldFrom ??= written;
    else if (hot) hot.cols[k] = cols[k]!.value() as never;
    // Each column's JSON a piece at a time: at 692k files the hashes alone are 44 MB of text.
    let text = `${JSON.stringify(k)}:`;
    for (const part of cols[k]!.json()) {
      text += part;
      if (text.length < PIECE_CHARS) continue;
      piece = Buffer.from(text, 'utf8');
      written += piece.length;
      yield piece;
      text = '';
    }
    piece = Buffer.from(`${text}${i < names.length - 1 ? ',\n' : ''}`, 'utf8');
    written += piece.length;
    yield piece;
    cols[k] = undefined; // written: garbage now
  }
  yield Buffer.from('\n}}', 'utf8');
}

/** Text gathered before it is handed on as bytes. */
const PIECE_CHARS = 1 << 18;

/**
 * What headPieces hands on for head-hot.ts as it writes: the head's own fields (JSON), the hot
 * columns, and where in the file the first cold column's line starts.
 */
export interface HotSink {
  fields?: string;
  cols: Partial<FileColumns>;
  coldFrom?: number;
}

/** Hot columns of whole numbers, one per row: read by wholeNumbers. */
const NUMBERS: ReadonlySet<string> = new Set(['chunkCount', 'seg', 'start']);

/**
 * The JSON array `[d,d,…]` at bytes [from, to) when it holds exactly `n` whole numbers written
 * as plain digits (what headText writes: counts, starts, generations), as a Float64Array; else
 * null (the caller parses it as JSON). JSON.parse made a heap number of each 13-digit generation
 * and took ~0.25 s per 207k-row column on a loaded machine; this loop a fraction of it, and
 * leaves no garbage.
 */
export function wholeNumbers(bytes: Buffer, from: number, to: number, n: number): Float64Array | null {
  if (bytes[from] !== 0x5b || bytes[to - 1] !== 0x5d) return null;
  const out = new Float64Array(n);
  let k = 0;
  let v = 0;
  let digits = 0;
  for (let i = from + 1; i < to - 1; i++) {
    const c = bytes[i]!;
    if (c >= 0x30 && c <= 0x39) {
      // No leading zeros (JSON has none), and at most 15 digits: exact in a double.
      if ((digits === 1 && v === 0) || ++digits > 15) return null;
      v = v * 10 + (c - 0x30);
    } else if (c === 0x2c && digits > 0 && k < n) {
      out[k++] = v;
      v = 0;
      digits = 0;
    } else return null;
  }
  if (digits > 0 && k < n) out[k++] = v;
  else if (k > 0 || n > 0) return null;
  return k === n ? out : null;
}

/**
 * head.json's bytes as loadHead reads them. `bytes` starts at the file's beginning: for a head in
 * lines, up to the name of its first cold column (readHeadFile reads no further); else the whole
 * file. `rest(from)` is the file's bytes from `from` to its end.
 */
export interface HeadBytes {
  bytes: Buffer;
  /** The file's size when it was opened. */
  size: number;
  /** Its last (up to) 3 bytes, latin1: a head in lines ends with `\n}}`. */
  tail: string;
  rest(from: number): Buffer | null;
  /** The identity of the file read (head-hot.ts), when it was read from one. */
  stamp?: HeadStamp;
}

const wholeBytes = (bytes: Buffer): HeadBytes => ({ bytes, size: bytes.length, tail: bytes.toString('latin1', Math.max(0, bytes.length - 3)), rest: (from) => bytes.subarray(from) });

/** What tells one head.json from any other: every write renames a new file into place. */
export interface HeadStamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

export function stampOf(fd: number): HeadStamp {
  const st = fstatSync(fd, { bigint: true });
  return { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs };
}

/** Read pieces: a search reads head.json up to its cold columns (9 of 28.8 MB at 300k chunks). */
const PIECE = 1 << 20;


/**
 * head.json read up to its cold columns: the rest stays in the file, open, until a caller asks
 * for a cold column (then read and the file closed; or closed when the head is dropped). Files
 * are replaced by rename, so the open file keeps the bytes of the head that was read. A head not
 * in lines is read whole. Throws as openRegular does (missing, a link, not a regular file).
 */
export function readHeadFile(file: string): HeadBytes {
  const { fd, size } = openRegular(file);
  const stamp = stampOf(fd);
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const buf = Buffer.allocUnsafe(size);
    let got = readFully(fd, buf, 0, Math.min(size, PIECE));
    let scanFrom = 0;
    let coldAt = -1;
    for (;;) {
      const nl = buf.subarray(0, got).indexOf(NEWLINE, scanFrom);
      if (nl < 0) {
        scanFrom = got;
        if (got >= size) break;
        const n = readFully(fd, buf, got, Math.min(size - got, PIECE));
        if (n === 0) break;
        got += n;
        continue;
      }
      const at = nl + 1;
      // Enough of the next line to read its name.
      if (got - at < 64 && got < size) got += readFully(fd, buf, got, Math.min(size - got, PIECE));
      const colon = buf[at] === 0x22 ? buf.subarray(0, Math.min(got, at + 64)).indexOf('":', at) : -1;
      if (colon > at && COLD.has(buf.toString('utf8', at + 1, colon))) {
        coldAt = colon + 2;
        break;
      }
      scanFrom = at;
    }
    // Read whole already (a small head, one piece): nothing to keep the file open for.
    if (coldAt < 0 || got === size) {
      close();
      return { ...(coldAt < 0 || got < size ? wholeBytes(buf.subarray(0, got)) : { ...wholeBytes(buf), bytes: buf.subarray(0, coldAt) }), stamp };
    }
    const tailBytes = Buffer.alloc(Math.min(3, size));
    readFully(fd, tailBytes, size - tailBytes.length, tailBytes.length, 0);
    let closeLater = (): void => {};
    const out: HeadBytes = {
      bytes: buf.subarray(0, coldAt),
      size,
      tail: tailBytes.toString('latin1'),
      stamp,
      rest(from: number): Buffer | null {
        if (!open) return null;
        open = false;
        try {
          const b = Buffer.allocUnsafe(size - from);
          return readFully(fd, b, from, b.length, 0) === b.length ? b : null;
        } finally {
          closeLater();
        }
      },
    };
    closeLater = closeWhenCollected(out, fd);
    return out;
  } catch (err) {
    close();
    throw err;
  }
}

/**
 * The head's fields with `files` decoded (hot columns now, cold ones on first use), or undefined
 * when the bytes are not in lines (a head written before, or by hand): the caller parses them
 * whole. Null when they are in lines but damaged.
 */
export function parseHeadLines(read: Buffer | HeadBytes): { fields: Record<string, unknown>; files: FileTable | null; hot?: Partial<FileColumns>; coldFrom?: number } | undefined {
  const h = Buffer.isBuffer(read) ? wholeBytes(read) : read;
  const { bytes } = h;
  const first = bytes.indexOf(NEWLINE);
  if (first < 0) return undefined;
  const line0 = bytes.toString('utf8', 0, first);
  if (!line0.endsWith('"files":{')) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(`${line0}}}`);
  } catch {
    return undefined;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
  // A head cut short is damaged now, not when its cold columns are first read.
  if (h.size < 3 || h.tail !== '\n}}') return { fields: fields as Record<string, unknown>, files: null };
  const hot: Record<string, unknown> = {};
  let coldFrom = -1;
  let at = first + 1;
  try {
    for (;;) {
      const end = bytes.indexOf(NEWLINE, at);
      const colon = bytes[at] === 0x22 ? bytes.indexOf('":', at) : -1;
      if (colon >= 0 && (end < 0 || colon < end) && COLD.has(bytes.toString('utf8', at + 1, colon))) {
        // The cold columns are the rest of the table: kept in the file (or as bytes), parsed on first use.
        coldFrom = at;
        break;
      }
      if (end < 0) {
        // The last line closes the table and the head.
        if (bytes.toString('utf8', at).trim() !== '}}') return { fields: fields as Record<string, unknown>, files: null };
        break;
      }
      if (colon < 0 || colon > end) return { fields: fields as Record<string, unknown>, files: null };
      const name = bytes.toString('utf8', at + 1, colon);
      const valueEnd = bytes[end - 1] === 0x2c ? end - 1 : end;
      const rows = Array.isArray(hot.path) ? hot.path.length : -1;
      hot[name] = (NUMBERS.has(name) && rows >= 0 ? wholeNumbers(bytes, colon + 2, valueEnd, rows) : null) ?? JSON.parse(bytes.toString('utf8', colon + 2, valueEnd));
      at = end + 1;
    }
  } catch {
    return { fields: fields as Record<string, unknown>, files: null };
  }
  const files = FileTable.decodeSplit(hot, () => parseCold(coldFrom < 0 ? null : h.rest(coldFrom), hot));
  return { fields: fields as Record<string, unknown>, files, hot, coldFrom };
}

/**
 * The cold columns from head.json's bytes from the first cold column's line to the file's end
 * (null: unreadable), with the `skipped` read among the hot ones. Throws when they do not parse.
 */
export function parseCold(cold: Buffer | null, hot: { skipped?: unknown }): unknown {
  const v = cold ? (JSON.parse(`{${cold.toString('utf8', 0, cold.lastIndexOf('\n}}'))}}`) as unknown) : null;
  return v !== null && typeof v === 'object' && !('skipped' in v) && 'skipped' in hot ? { ...v, skipped: hot.skipped } : v;
}
