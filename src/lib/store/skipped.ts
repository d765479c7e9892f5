/**
 * `.tkoma-skipped.jsonl`: every path a topic's sources hold that the fetch left out, with why
 * (binary, generated, too_large, a cap…), the source it came from and its size when known. Written
 * by create and refresh beside the manifest, committed with it, and reserved like it: never
 * indexed, never taken by a fetched file. `get` on a path listed here answers SKIPPED.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { pathRecordsText, readPathRecords } from './path-records.js';

export const SKIPPED_FILE = '.tkoma-skipped.jsonl';

export interface SkippedRecord {
  path: string;
  reason: string;
  /** URL of the source that holds the file. */
  source: string;
  bytes?: number;
  /** A crawled page left out: its URL. */
  url?: string;
}

export function readSkipped(dir: string): Promise<SkippedRecord[]> {
  return readPathRecords<SkippedRecord>(join(dir, SKIPPED_FILE), (rec) => typeof rec.reason === 'string');
}

/** Writes the records sorted by path (temp file + rename); with none, the file is removed. */
export async function writeSkipped(dir: string, records: readonly SkippedRecord[]): Promise<void> {
  const file = join(dir, SKIPPED_FILE);
  if (records.length === 0) {
    await rm(file, { force: true });
    return;
  }
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, pathRecordsText(records, (r) => ({ path: r.path, reason: r.reason, source: r.source, ...(r.bytes !== undefined ? { bytes: r.bytes } : {}) })));
  await rename(tmp, file);
}
