/**
 * A large topic.md's parsed front matter (but `files`) and body, kept in
 * `.tkoma/topic-fronts/<id>.json` with the stat of the note they were read from. A topic's front
 * matter lists every file it holds (5 MB at 300k chunks, 17 MB at 1M) and nearly every command
 * reads every topic's note: on this machine reading and decoding the 5 MB text cost ~0.13 s of a
 * cold search and of an MCP server's first answer, for fields that fit in a few KB.
 *
 * Derived and disposable like the rest of `.tkoma/`: a copy whose stat (inode, size, mtime and
 * ctime: ctime moves on every write, and nobody can set it back) is not the note's is ignored and
 * made again; `files` is read from the note itself when a caller asks for it (their count is
 * kept). Small notes (under FRONT_CACHE_FROM) are parsed as before and never copied.
 */
import type { Stats } from 'node:fs';
import { closeSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { openRegular, readFully } from '../regular-file.js';

import { fileCountOf, withLazyFiles } from './frontmatter.js';
import type { TopicFront } from './model.js';
import { stateDir } from './root-path.js';

/** Notes under this size are read whole: parsing 256 KB costs about a millisecond. */
export const FRONT_CACHE_FROM = 256 * 1024;

const FORMAT = 1;

interface Stamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

const stampOf = (st: Stats): Stamp => ({ ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });

const cacheFile = (root: string, id: string): string => join(stateDir(root), 'topic-fronts', `${id}.json`);

/**
 * The front and body kept for `id`'s note when they were read from the note `st` describes; null
 * otherwise (no copy, another stat, damaged). `files` reads the note when first asked for.
 */
export function readCachedFront(root: string, id: string, st: Stats, filesOf: () => readonly string[]): { front: TopicFront; body: string } | null {
  let kept: { format?: unknown; stamp?: Partial<Stamp>; front?: TopicFront; body?: unknown; file_count?: unknown };
  try {
    const text = readKept(cacheFile(root, id));
    if (text === null) return null;
    kept = JSON.parse(text) as typeof kept;
  } catch {
    return null;
  }
  const now = stampOf(st);
  const s = kept.stamp;
  if (kept.format !== FORMAT || !s || s.ino !== now.ino || s.size !== now.size || s.mtimeMs !== now.mtimeMs || s.ctimeMs !== now.ctimeMs) return null;
  const front = kept.front;
  const count = kept.file_count;
  if (!wellShaped(front, id) || typeof kept.body !== 'string' || typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return null;
  return { front: withLazyFiles(front, filesOf, count), body: kept.body };
}

/** The fields every reader uses, of the types the note's parser gives them (a hand-edited copy is not trusted). */
function wellShaped(f: unknown, id: string): f is TopicFront {
  if (typeof f !== 'object' || f === null) return false;
  const x = f as Record<string, unknown>;
  const strings = (v: unknown): boolean => Array.isArray(v) && v.every((t) => typeof t === 'string');
  return (
    x.id === id &&
    ['title', 'type', 'created_at', 'status', 'fetched_at'].every((k) => typeof x[k] === 'string') &&
    typeof x.trust_score === 'number' &&
    typeof x.max_age_days === 'number' &&
    strings(x.tags) &&
    Array.isArray(x.sources) &&
    x.sources.every((src) => typeof src === 'object' && src !== null && typeof (src as { url?: unknown }).url === 'string') &&
    (x.file_status === undefined || Array.isArray(x.file_status)) &&
    (x.created_by === undefined || (typeof x.created_by === 'object' && x.created_by !== null))
  );
}

/** A kept front past this (a note with a body of megabytes) is not kept: its note is parsed instead. */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

/** The kept file's text, read as index files are (regular-file.ts); null when it is bigger than any we keep. */
function readKept(file: string): string | null {
  const { fd, size } = openRegular(file);
  try {
    if (size > MAX_KEPT_BYTES) return null;
    const buf = Buffer.allocUnsafe(size);
    return buf.toString('utf8', 0, readFully(fd, buf, 0, size));
  } finally {
    closeSync(fd);
  }
}

/**
 * Keeps `front` (read from the note `st` describes, before the read) and `body` for the next
 * reader. Best effort: a root on a read-only disk just parses its notes every time.
 */
export function keepFront(root: string, id: string, st: Stats, front: TopicFront, body: string): void {
  const fileCount = fileCountOf(front);
  const file = cacheFile(root, id);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    // `files` stays in its place with no items: the reader puts the note's back there.
    const text = JSON.stringify({ format: FORMAT, stamp: stampOf(st), front: { ...front, files: [] }, body, file_count: fileCount });
    if (Buffer.byteLength(text) > MAX_KEPT_BYTES) return;
    mkdirSync(join(stateDir(root), 'topic-fronts'), { recursive: true });
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}
