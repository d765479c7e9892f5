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
import type { FileColumns } from './file-table.js';
import { COLD_COLUMNS, FileTable } from './file-table.js';

const FILES_OPEN = ',"files":{';
const NEWLINE = 0x0a;
const COLD: ReadonlySet<string> = new Set(COLD_COLUMNS);
/** Column order on disk: hot first, so the cold ones are one run of bytes at the end. */
const ORDER: readonly (keyof FileColumns)[] = ['path', 'chunkCount', 'seg', 'start', 'listing', ...COLD_COLUMNS];

/** The text of `head` (an object whose last field is `files`, a FileTable) in lines. */
export function headText(head: { files: FileTable } & Record<string, unknown>): string {
  const { files, ...rest } = head;
  const meta = JSON.stringify(rest);
  const cols = files.toJSON() as unknown as Record<string, unknown>;
  const lines = ORDER.filter((k) => cols[k] !== undefined).map((k) => `${JSON.stringify(k)}:${JSON.stringify(cols[k])}`);
  // `{…}` without its closing brace, then the table's members one a line.
  return `${meta.slice(0, -1)}${meta.length > 2 ? FILES_OPEN : FILES_OPEN.slice(1)}\n${lines.join(',\n')}\n}}`;
}

/**
 * The head's fields with `files` decoded (hot columns now, cold ones on first use), or undefined
 * when the bytes are not in lines (a head written before, or by hand): the caller parses them
 * whole. Null when they are in lines but damaged.
 */
export function parseHeadLines(bytes: Buffer): { fields: Record<string, unknown>; files: FileTable | null } | undefined {
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
  if (bytes.length < 3 || bytes.toString('latin1', bytes.length - 3) !== '\n}}') return { fields: fields as Record<string, unknown>, files: null };
  const hot: Record<string, unknown> = {};
  let coldFrom = -1;
  let at = first + 1;
  try {
    for (;;) {
      const end = bytes.indexOf(NEWLINE, at);
      if (end < 0) {
        // The last line closes the table and the head.
        if (bytes.toString('utf8', at).trim() !== '}}') return { fields: fields as Record<string, unknown>, files: null };
        break;
      }
      const colon = bytes.indexOf('":', at);
      if (bytes[at] !== 0x22 || colon < 0 || colon > end) return { fields: fields as Record<string, unknown>, files: null };
      const name = bytes.toString('utf8', at + 1, colon);
      if (COLD.has(name)) {
        // The cold columns are the rest of the table: kept as bytes, parsed on first use.
        coldFrom = at;
        break;
      }
      const valueEnd = bytes[end - 1] === 0x2c ? end - 1 : end;
      hot[name] = JSON.parse(bytes.toString('utf8', colon + 2, valueEnd));
      at = end + 1;
    }
  } catch {
    return { fields: fields as Record<string, unknown>, files: null };
  }
  // Not copied (20 MB at 300k chunks took ~0.3 s on a loaded machine): the hot part's bytes stay alive with them.
  const cold = coldFrom < 0 ? null : bytes.subarray(coldFrom);
  const files = FileTable.decodeSplit(hot, () => (cold ? (JSON.parse(`{${cold.toString('utf8', 0, cold.lastIndexOf('\n}}'))}}`) as unknown) : null));
  return { fields: fields as Record<string, unknown>, files };
}
