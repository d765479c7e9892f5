/**
 * A cold search's "did any file move" listing, made by GNU `find` in its own process while this
 * one is still loading its modules. The walk in walk.ts costs a cold SciFact search ~20–30 ms of
 * its ~140 (one lstat and one Stats object with four Dates per file under Node 20); `find` does
 * the same lstats in C on the other core and this process only parses its answer.
 *
 * Anything unusual makes the listing null and the caller walks as before: another platform, no
 * `find` or one without -printf (BusyBox, BSD), an unreadable folder or a file that vanished
 * (find exits non-zero), a name or time this parser does not read exactly as Node would.
 */
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

import type { FileStat } from './file-table.js';
import { TEMP_NAME_PATTERN } from './walk.js';

/** Regular files by POSIX path relative to the listed folder, with what lstat would say of them. */
export type Listing = Map<string, FileStat>;

/**
 * `find` arguments that list what walkFiles visits: regular files only, no link followed (find's
 * default -P), no `.git` and no temp name at any depth, each as "size seconds.fraction path\0".
 */
export function findArgs(dir: string): string[] {
  return [dir, '-mindepth', '1', '(', '-name', '.git', '-o', '-regextype', 'posix-extended', '-regex', `.*/[^/]*${TEMP_NAME_PATTERN}`, ')', '-prune', '-o', '-type', 'f', '-printf', '%s %T@ %P\\0'];
}

/**
 * Pure: find's output as a listing, or null when any record is not what findArgs asks for. The
 * time is rebuilt as Node builds mtimeMs (seconds × 1e3 + nanoseconds / 1e6), so the numbers
 * compare equal with the ones the index recorded from lstat.
 */
export function parseFindListing(text: string): Listing | null {
  const listing: Listing = new Map();
  const records = text.split('\0');
  if (records.pop() !== '') return null; // every record ends with \0: a cut-off answer does not
  for (const record of records) {
    const m = /^(\d+) (\d+)\.(\d{9})\d* (.+)$/s.exec(record);
    if (!m) return null; // a time before 1970, say: let the walk decide
    listing.set(m[4]!, { size: Number(m[1]), mtimeMs: Number(m[2]) * 1e3 + Number(m[3]) / 1e6 });
  }
  return listing;
}

/** Lists `dir` with `find` (null when it cannot, see the module comment). */
export async function listingByFind(dir: string, command = 'find', onSpawn?: (child: ChildProcess) => void): Promise<Listing | null> {
  if (process.platform !== 'linux') return null;
  // Loaded here, not at the top: every search reads this module, few start a listing.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, findArgs(dir), { stdio: ['ignore', 'pipe', 'ignore'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => parts.push(b));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? parseFindListing(Buffer.concat(parts).toString('utf8')) : null));
    onSpawn?.(child);
  });
}

let started: { dir: string; listing: Promise<Listing | null>; wanted(): void } | null = null;

/**
 * Starts listing `dir` now, for takePrefetchedListing to collect later in this process. Until it
 * is collected the `find` does not keep this process alive: a search a server answered, or one
 * that failed first, exits without waiting for a listing nobody reads.
 */
export function prefetchListing(dir: string): void {
  let child: ChildProcess | null = null;
  let wanted = false;
  const hold = (c: ChildProcess, on: boolean): void => {
    const out = c.stdout as Socket | null;
    if (on) {
      c.ref();
      out?.ref();
    } else {
      c.unref();
      out?.unref();
    }
  };
  const listing = listingByFind(dir, 'find', (c) => {
    child = c;
    hold(c, wanted);
  });
  started = {
    dir,
    listing,
    wanted: () => {
      wanted = true;
      if (child) hold(child, true);
    },
  };
}

/**
 * The listing prefetchListing started for exactly `dir`, once: a long-running process never
 * reuses an old one. Null when none was started for it.
 */
export function takePrefetchedListing(dir: string): Promise<Listing | null> | null {
  if (started?.dir !== dir) return null;
  const { listing, wanted } = started;
  started = null;
  wanted();
  return listing;
}
