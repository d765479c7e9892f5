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
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';

import type { FileStat } from './file-table.js';
import { TEMP_NAME_PATTERN } from './walk.js';

/**
 * `find` arguments that list what walkFiles visits: regular files only, no link followed (find's
 * default -P), no `.git` and no temp name at any depth, each as "size seconds.fraction path\0".
 */
export function findArgs(dir: string): string[] {
  return [dir, '-mindepth', '1', '(', '-name', '.git', '-o', '-regextype', 'posix-extended', '-regex', `.*/[^/]*${TEMP_NAME_PATTERN}`, ')', '-prune', '-o', '-type', 'f', '-printf', '%s %T@ %P\\0'];
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** More digits than this may not be read exactly: such a record is left to the walk. */
const MAX_DIGITS = 15;

/**
 * find's answer, read record by record while it is compared with the file table: no map of
 * every file is made first (at SciFact scale that map, its regex matches and the split were most
 * of the listing's cost and garbage).
 */
export class FindListing {
  private decoded: string | null = null;

  constructor(private readonly bytes: Buffer) {}

  /** Of the bytes find wrote: equal digests, equal listings (see FileTable.listingDigest). */
  digest(): string {
    return createHash('sha256').update(this.bytes).digest('base64');
  }

  /**
   * Calls `visit` with each file's path, size and mtime, in find's order, until it answers false
   * (then false). Null when a record is not what findArgs asks for ("size seconds.fraction
   * path\0", the fraction at least nine digits, a time after 1970, the answer not cut off):
   * nothing the listing says can be trusted then. The time is built as Node builds mtimeMs
   * (seconds × 1e3 + nanoseconds / 1e6), so it compares equal with what the index recorded.
   */
  each(visit: (rel: string, size: number, mtimeMs: number) => boolean): boolean | null {
    const t = (this.decoded ??= this.bytes.toString('utf8'));
    let at = 0;
    // Each number is read digit by digit: substrings and Number() per record were the garbage.
    const digits = (from: number, end: number): number => {
      let i = from;
      while (i < end && i - from <= MAX_DIGITS) {
        const c = t.charCodeAt(i);
        if (c < DIGIT_0 || c > DIGIT_9) break;
        i++;
      }
      return i;
    };
    const value = (from: number, to: number): number => {
      let v = 0;
      for (let i = from; i < to; i++) v = v * 10 + (t.charCodeAt(i) - DIGIT_0);
      return v;
    };
    while (at < t.length) {
      const end = t.indexOf('\0', at);
      if (end < 0) return null; // cut off: every record ends with \0
      const sizeEnd = digits(at, end);
      if (sizeEnd === at || sizeEnd - at > MAX_DIGITS || t[sizeEnd] !== ' ') return null;
      const secAt = sizeEnd + 1;
      const secEnd = digits(secAt, end);
      if (secEnd === secAt || secEnd - secAt > MAX_DIGITS || t[secEnd] !== '.') return null;
      const fracAt = secEnd + 1;
      let fracEnd = fracAt;
      while (fracEnd < end && t.charCodeAt(fracEnd) >= DIGIT_0 && t.charCodeAt(fracEnd) <= DIGIT_9) fracEnd++;
      if (fracEnd - fracAt < 9 || t[fracEnd] !== ' ' || fracEnd + 1 >= end) return null;
      const mtimeMs = value(secAt, secEnd) * 1e3 + value(fracAt, fracAt + 9) / 1e6;
      if (!visit(t.slice(fracEnd + 1, end), value(at, sizeEnd), mtimeMs)) return false;
      at = end + 1;
    }
    return true;
  }
}

/** Pure: find's output as a map of every file, or null when any record is unreadable (see each). */
export function parseFindListing(text: string): Map<string, FileStat> | null {
  const out = new Map<string, FileStat>();
  const read = new FindListing(Buffer.from(text, 'utf8')).each((rel, size, mtimeMs) => {
    out.set(rel, { size, mtimeMs });
    return true;
  });
  return read === null ? null : out;
}

/** Lists `dir` with `find` (null when it cannot, see the module comment). */
export async function listingByFind(dir: string, command = 'find', onSpawn?: (child: ChildProcess) => void): Promise<FindListing | null> {
  if (process.platform !== 'linux') return null;
  // Loaded here, not at the top: every search reads this module, few start a listing.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, findArgs(dir), { stdio: ['ignore', 'pipe', 'ignore'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => parts.push(b));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? new FindListing(Buffer.concat(parts)) : null));
    onSpawn?.(child);
  });
}

let started: { dir: string; listing: Promise<FindListing | null>; wanted(): void } | null = null;

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
export function takePrefetchedListing(dir: string): Promise<FindListing | null> | null {
  if (started?.dir !== dir) return null;
  const { listing, wanted } = started;
  started = null;
  wanted();
  return listing;
}
