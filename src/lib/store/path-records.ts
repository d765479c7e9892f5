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
  eachRecordOf(text, (rec) => out.push(rec), valid);
  return out;
}

/** `take` for each usable record among the lines of `text`. */
function eachRecordOf<T extends { path: string }>(text: string, take: (rec: T) => void, valid?: (rec: T) => boolean): void {
  for (const line of text.split('\n')) {
    const rec = parsePathRecord(line, valid);
    if (rec) take(rec);
  }
}

/**
 * readPathRecords one record at a time, the file read in pieces: a caller that keeps a field or
 * two of each record never holds the whole text (190 MB at 690k files) nor every record.
 */
export async function eachPathRecord<T extends { path: string }>(file: string, take: (rec: T) => void, valid?: (rec: T) => boolean): Promise<void> {
  let rest = '';
  try {
    for await (const piece of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string>) {
      const text = rest + piece;
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(end + 1);
      eachRecordOf(text.slice(0, end), take, valid);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // none when it is missing
    throw err;
  }
  eachRecordOf(rest, take, valid);
}

/**
 * pathRecordsText's bytes in pieces of a few thousand lines: a large manifest is written without
 * its whole text (and every line of it) in memory at once.
 */
export function* pathRecordsPieces<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown = (rec) => rec): Generator<Buffer> {
  for (const text of recordLines(records, toJson, 4096)) yield Buffer.from(text, 'utf8');
}

/** The records sorted by path as JSON lines, `per` lines (each newline-terminated) a piece. */
function* recordLines<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown, per: number): Generator<string> {
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 0; i < sorted.length; i += per) yield sorted.slice(i, i + per).map((r) => JSON.stringify(toJson(r))).join('\n') + '\n';
}

/** The file's text: one JSON line a record, sorted by path, newline-terminated ('' for none). */
export function pathRecordsText<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown = (rec) => rec): string {
  return [...recordLines(records, toJson, records.length)].join('');
}
