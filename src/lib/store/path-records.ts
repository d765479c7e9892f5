/**
 * The tool's JSON-lines files of per-path records (the manifest, the skipped list): one record a
 * line, sorted by path. A damaged line, or one whose path could leave the topic folder, loses only
 * itself: these paths drive copies and deletes on refresh.
 */
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

/** The file's text: one JSON line a record, sorted by path, newline-terminated ('' for none). */
export function pathRecordsText<T extends { path: string }>(records: readonly T[], toJson: (rec: T) => unknown = (rec) => rec): string {
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sorted.map((r) => JSON.stringify(toJson(r))).join('\n') + (sorted.length ? '\n' : '');
}
