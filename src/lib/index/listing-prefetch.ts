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
import { isUtf8 } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';

import type { FileStat } from './file-table.js';
import { ignoredName, TEMP_NAME_PATTERN } from './walk.js';

/**
 * `find` arguments that list what walkFiles visits: regular files only, no link followed (find's
 * default -P), no `.git` and no temp name at any depth, each as "size seconds.fraction path\0".
 * The glob before the regex passes every temp name and almost nothing else, so find runs its
 * regex on a few names instead of all of them (a third of its time on a 5,000-file topic).
 */
export function findArgs(dir: string): string[] {
  const tempName = ['-name', TEMP_NAME_GLOB, '-regextype', 'posix-extended', '-regex', `.*/[^/]*${TEMP_NAME_PATTERN}`];
  return [dir, '-mindepth', '1', '(', '-name', '.git', '-o', ...tempName, ')', '-prune', '-o', '-type', 'f', '-printf', '%s %T@ %P\\0'];
}

/** A glob every TEMP_NAME_PATTERN name matches (`[0-9]*` is a digit, then anything). */
const TEMP_NAME_GLOB = '*.tmp-[0-9]*-[0-9]*';

/**
 * The numbers before a record's path, read where the record starts (sticky): at most 15 digits
 * each, so they read exactly; a fraction of at least nine digits (nanoseconds).
 */
const RECORD_HEAD = /(\d{1,15}) (\d{1,15})\.(\d{9})\d* /y;

/**
 * find's answer, read record by record while it is compared with the file table: no map of
 * every file is made first (at SciFact scale that map, its regex matches and the split were most
 * of the listing's cost and garbage).
 */
export class FindListing {
  private decoded: string | null = null;
  private pieces: readonly Buffer[] | null = null;

  /**
   * `bytes`: find's answer, whole or in the pieces it came in (joined only when a record is read);
   * `known`: their digest, when it was taken as they came.
   */
  constructor(
    private bytes: Buffer | readonly Buffer[] | null,
    private readonly known?: string,
  ) {
    if (Array.isArray(bytes)) {
      this.pieces = bytes;
      this.bytes = null;
    }
  }

  /** Of the bytes find wrote: equal digests, equal listings (see FileTable.listingDigest). */
  digest(): string {
    if (this.known !== undefined) return this.known;
    const hash = createHash('sha256');
    if (this.pieces) for (const p of this.pieces) hash.update(p);
    else hash.update((this.bytes as Buffer | null) ?? Buffer.from(this.decoded!, 'utf8'));
    return hash.digest('base64');
  }

  /**
   * Calls `visit` with each file's path, size and mtime, in find's order, until it answers false
   * (then false). Null when a record is not what findArgs asks for ("size seconds.fraction
   * path\0", the fraction at least nine digits, a time after 1970, the answer not cut off):
   * nothing the listing says can be trusted then. The time is built as Node builds mtimeMs
   * (seconds × 1e3 + nanoseconds / 1e6), so it compares equal with what the index recorded.
   */
  each(visit: (rel: string, size: number, mtimeMs: number) => boolean): boolean | null {
    if (this.decoded === null) {
      if (this.pieces) this.bytes = Buffer.concat(this.pieces);
      this.pieces = null;
      const bytes = this.bytes as Buffer;
      this.decoded = bytes.toString('utf8');
      // The text is the bytes again when they are UTF-8: a sync then holds one copy of the
      // listing to its end, not two (33 MB each at 692k files).
      if (isUtf8(bytes)) this.bytes = null;
    }
    const t = this.decoded;
    // One native match per record, no split: in a cold process a hand-written scanner ran slower.
    for (let at = 0; at < t.length; ) {
      const end = t.indexOf('\0', at);
      if (end < 0) return null; // cut off: every record ends with \0
      RECORD_HEAD.lastIndex = at;
      const m = RECORD_HEAD.exec(t);
      const pathAt = RECORD_HEAD.lastIndex;
      if (!m || pathAt >= end) return null;
      if (!visit(t.slice(pathAt, end), Number(m[1]), Number(m[2]) * 1e3 + Number(m[3]) / 1e6)) return false;
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

/**
 * Lists `dir` with `find` (null when it cannot, see the module comment). `halves`: with two finds
 * at once, one per half of the folder's entries (listingInHalves), for a folder big enough that
 * its lstats are most of the wait.
 */
export async function listingByFind(dir: string, command = 'find', onSpawn?: (child: ChildProcess) => void, halves = false): Promise<FindListing | null> {
  const found = halves ? await listingInHalves(dir, command, onSpawn) : await answer(command, findArgs(dir), onSpawn);
  return found && new FindListing(found.parts, found.hash.digest('base64'));
}

/**
 * A folder's find listing made by two finds at once (the lstat of each file, in C, was ~1.2 s of
 * a cold search's wait at 692k files): a first `find -maxdepth 1` gives the folder's entries in
 * the order find visits them, and each half of them is listed from inside the folder (`%p` of an
 * entry there is `%P` of it from the folder). find lists each starting point in the order given,
 * depth first as it would below the folder, so the two answers one after the other are byte for
 * byte the one find's answer, and its digest the stamped one. A name find would read as an
 * expression, or too many names for one command line: one find, as before.
 */
async function listingInHalves(dir: string, command: string, onSpawn?: (child: ChildProcess) => void): Promise<Answer | null> {
  const top = await output(command, [dir, '-mindepth', '1', '-maxdepth', '1', '-printf', '%P\\0'], onSpawn);
  if (!top) return null;
  const names = top.toString('utf8').split('\0');
  if (names.pop() !== '' || top.length > MAX_HALVES_ARGS_BYTES || !isUtf8(top) || names.some((n) => n === '' || /^[-(),!]/.test(n))) {
    return answer(command, findArgs(dir), onSpawn);
  }
  // Entries find would prune whole (.git, temp names): its regex wants a slash before the name.
  const kept = names.filter((n) => !ignoredName(n));
  const expression = findArgs(dir).slice(3, -1).concat('%s %T@ %p\\0');
  const half = Math.ceil(kept.length / 2);
  const list = (part: string[], hashAsItComes: boolean): Promise<Answer | null> =>
    part.length === 0 ? Promise.resolve({ parts: [], hash: createHash('sha256') }) : answer(command, [...part, ...expression], onSpawn, dir, hashAsItComes);
  const [first, second] = await Promise.all([list(kept.slice(0, half), true), list(kept.slice(half), false)]);
  if (!first || !second) return null;
  // The second half is hashed after the first, in the one find's order.
  for (const p of second.parts) first.hash.update(p);
  return { parts: first.parts.concat(second.parts), hash: first.hash };
}

/**
 * Whether a topic folder is worth two finds: its head-hot.bin (written for heads of 4,000 files
 * or more, ~46 bytes a file) holds at least ~50k files. Below that one find takes tens of
 * milliseconds, and the first find and the second process cost about what halving saves.
 */
export function worthHalves(hotHead: string): boolean {
  try {
    return statSync(hotHead).size >= HALVES_MIN_HOT_BYTES;
  } catch {
    return false;
  }
}

const HALVES_MIN_HOT_BYTES = 2_300_000;

/** Names past this many bytes stay off command lines (Linux takes 2 MiB of arguments in all). */
const MAX_HALVES_ARGS_BYTES = 512 * 1024;

/**
 * listingByFind of each of `dirs`, in one process: a shell runs findArgs of each folder in turn
 * and writes an empty record (a lone \0: find's records never are) after each, so each part is
 * byte for byte what find prints for that folder alone, and its digest the one a sync stamped.
 * Null when any find fails.
 */
export async function listingsByFind(dirs: readonly string[], onSpawn?: (child: ChildProcess) => void): Promise<Map<string, FindListing> | null> {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const script = `for d do find "$d" ${findArgs('').slice(1).map(quote).join(' ')} || exit 1; printf '\\000'; done`;
  const bytes = await output('sh', ['-c', script, 'sh', ...dirs], onSpawn);
  if (!bytes) return null;
  const out = new Map<string, FindListing>();
  let at = 0;
  for (const dir of dirs) {
    // A part is empty, or ends at its last record's \0 followed by the lone one.
    const end = bytes[at] === 0 ? at : bytes.indexOf(TWO_NULS, at) + 1;
    if (end <= 0 || end >= bytes.length) return null;
    out.set(dir, new FindListing(bytes.subarray(at, end)));
    at = end + 1;
  }
  return at === bytes.length ? out : null;
}

const TWO_NULS = Buffer.from([0, 0]);

/** What `command` writes to stdout, joined, or null when it cannot run or exits non-zero. */
async function output(command: string, args: string[], onSpawn?: (child: ChildProcess) => void): Promise<Buffer | null> {
  const found = await answer(command, args, onSpawn, undefined, false);
  return found && Buffer.concat(found.parts);
}

/**
 * A listing's bytes in the pieces they came in, with their hash. Hashed as they come (`hash`
 * updated with every piece, in order), a listing's digest is ready when find exits, and the
 * pieces are joined only if a record is read: at 692k files, joining 32 MB (fresh memory) cost
 * ~0.1–0.25 s and hashing it ~60 ms after find had exited, where a digest equal to the stamp
 * needs neither.
 */
interface Answer {
  parts: Buffer[];
  hash: Hash;
}

/** What `command` writes to stdout, or null when it cannot run or exits non-zero. */
async function answer(command: string, args: string[], onSpawn?: (child: ChildProcess) => void, cwd?: string, hashAsItComes = true): Promise<Answer | null> {
  if (process.platform !== 'linux') return null;
  // Loaded here, not at the top: every search reads this module, few start a listing.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], ...(cwd === undefined ? {} : { cwd }) });
    const found: Answer = { parts: [], hash: createHash('sha256') };
    child.stdout.on('data', (b: Buffer) => {
      found.parts.push(b);
      if (hashAsItComes) found.hash.update(b);
    });
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? found : null));
    onSpawn?.(child);
  });
}

let started: { dirs: Map<string, Promise<FindListing | null>>; wanted(): void } | null = null;

/**
 * Starts listing `dir` now, for takePrefetchedListing to collect later in this process. Until it
 * is collected the `find` does not keep this process alive: a search a server answered, or one
 * that failed first, exits without waiting for a listing nobody reads.
 */
export function prefetchListing(dir: string, halves = false): void {
  start((onSpawn) => {
    const one = listingByFind(dir, 'find', onSpawn, halves);
    return new Map([[dir, one]]);
  });
}

/**
 * prefetchListing of several folders at once (a search that names no topic checks them all):
 * one process, whatever their number (listingsByFind).
 */
export function prefetchListings(dirs: readonly string[]): void {
  start((onSpawn) => {
    const all = listingsByFind(dirs, onSpawn);
    return new Map(dirs.map((d) => [d, all.then((m) => m?.get(d) ?? null)]));
  });
}

function start(list: (onSpawn: (child: ChildProcess) => void) => Map<string, Promise<FindListing | null>>): void {
  const children: ChildProcess[] = [];
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
  started = {
    dirs: list((c) => {
      children.push(c);
      hold(c, wanted);
    }),
    wanted: () => {
      wanted = true;
      for (const c of children) hold(c, true);
    },
  };
}

/**
 * The listing prefetchListing (or prefetchListings) started for exactly `dir`, once: a
 * long-running process never reuses an old one. Null when none was started for it.
 */
export function takePrefetchedListing(dir: string): Promise<FindListing | null> | null {
  const listing = started?.dirs.get(dir);
  if (!started || !listing) return null;
  started.dirs.delete(dir);
  started.wanted();
  if (started.dirs.size === 0) started = null;
  return listing;
}
