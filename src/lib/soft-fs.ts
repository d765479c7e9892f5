/**
 * Reads that answer "nothing" instead of throwing, for files and folders that may be missing.
 * Synchronous on purpose: the callers wait for the answer anyway, and an awaited read costs
 * thread-pool round trips (open, stat, one per 512 KB read, close) that took a create of 10k
 * files seconds and a cold search more than the reads themselves, most of all on a busy machine.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Names in `dir`; none when it is missing or unreadable. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A whole file, or null when it cannot be read. */
export function readOrNull(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}
