/**
 * The tool's JSON-lines files of per-path records (the manifest, the skipped list): one record a
 * line, sorted by path. A damaged line, or one whose path could leave the topic folder, loses only
 * itself: these paths drive copies and deletes on refresh.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { isSafeRelPath } from '../safety/paths.js';

/** One line as a record, or null for a blank, damaged or unsafe line, or one `valid` refuses. */
export function parsePathRecord<T extends { path: string }>(line: string, valid: (rec: T) => boolean = () => true): T | null {
  if (!line.trim()) return null;
  try {
    const rec = JSON.parse(line) as T;
    if (rec && typeof rec === 'object' && typeof rec.path === 'string' && isSafeRelPath(rec.path) && valid(rec)) return rec;
  } catch {
    // A hand-damaged line loses only that record.
  }
  return null;
}

/** Every usable record of `file`; none when it is missing. */
export async function readPathRecords<T extends { path: string }>(file: string, valid?: (rec: T) => boolean): Promise<T[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const out: T[] = [];
  for (const line of text.split('\n')) {
    const rec = parsePathRecord(line, valid);
    if (rec) out.push(rec);
  }
  return out;
}

/**
 * readPathRecords one record at a time, the file read in pieces: a caller that keeps a field or
 * two of each record never holds the whole text (190 MB at 690k files) nor every record.
 */
export async function eachPathRecord<T extends { path: string }>(file: string, take: (rec: T) => void, valid?: (rec: T) => boolean): Promise<void> {
  let rest = '';
  const lines = (text: string): void => {
    for (const line of text.split('\n')) {
      const rec = parsePathRecord(line, valid);
      if (rec) take(rec);
    }
  };
  try {
    for await (const piece of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string>) {
      const text = rest + piece;
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(end + 1);
      lines(text.slice(0, end));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // none when it is missing
    throw err;
  }
  lines(rest);
}

/**
 * pathRecordsText's bytes in pieces of a few thousand lines: a large manifest is written without
 * its whole text (and every line of it) in memory at once.
 */
export function* pathRecordsPieces<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown = (rec) => rec): Generator<Buffer> {
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 0; i < sorted.length; i += 4096) {
    yield Buffer.from(sorted.slice(i, i + 4096).map((r) => JSON.stringify(toJson(r))).join('\n') + '\n', 'utf8');
  }
}

/** The file's text: one JSON line a record, sorted by path, newline-terminated ('' for none). */
export function pathRecordsText<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown = (rec) => rec): string {
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sorted.map((r) => JSON.stringify(toJson(r))).join('\n') + (sorted.length ? '\n' : '');
}
