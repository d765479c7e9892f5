/**
 * `.tkoma-skipped.jsonl`: every path a topic's sources hold that the fetch left out, with why
 * (binary, generated, too_large, a cap…), the source it came from and its size when known. Written
 * by create and refresh beside the manifest, committed with it, and reserved like it: never
 * indexed, never taken by a fetched file. `get` on a path listed here answers SKIPPED.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { isSafeRelPath } from '../safety/paths.js';

export const SKIPPED_FILE = '.tkoma-skipped.jsonl';

export interface SkippedRecord {
  path: string;
  reason: string;
  /** URL of the source that holds the file. */
  source: string;
  bytes?: number;
}

export async function readSkipped(dir: string): Promise<SkippedRecord[]> {
  let text: string;
  try {
    text = await readFile(join(dir, SKIPPED_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: SkippedRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as SkippedRecord;
      if (rec && typeof rec.path === 'string' && typeof rec.reason === 'string' && isSafeRelPath(rec.path)) out.push(rec);
    } catch {
      // a hand-damaged line loses only that entry
    }
  }
  return out;
}

/** Writes the records sorted by path (temp file + rename); with none, the file is removed. */
export async function writeSkipped(dir: string, records: readonly SkippedRecord[]): Promise<void> {
  const file = join(dir, SKIPPED_FILE);
  if (records.length === 0) {
    await rm(file, { force: true });
    return;
  }
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, sorted.map((r) => JSON.stringify({ path: r.path, reason: r.reason, source: r.source, ...(r.bytes !== undefined ? { bytes: r.bytes } : {}) })).join('\n') + '\n');
  await rename(tmp, file);
}
