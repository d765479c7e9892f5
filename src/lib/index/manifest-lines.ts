/**
 * Where each path's record sits in a topic's manifest (`.tkoma-files.jsonl`), so a search reads
 * the ten lines its hits need instead of the whole file: at 300k chunks the manifest is 57 MB,
 * and reading it and scanning it for each hit took an MCP server's first answer ~0.7 s.
 *
 * Derived, in `.tkoma/index/topics/<id>/manifest-lines.bin`, written by a sync whenever the
 * manifest's inode, size or mtime moved since; a reader that finds it stale, missing or damaged
 * reads the manifest as before. Each entry is the line a whole parse keeps for the path (the
 * last valid one), and a reader checks that the line it reads is that path's record.
 *
 * Layout: magic, the manifest's size, mtimeMs and inode (f64), the entry count and this file's
 * length (u32), then per
 * entry the line's offset (f64) and length (u32), the path starts (u32, count + 1) and the paths'
 * UTF-8 bytes, sorted bytewise so a lookup halves over them without decoding any.
 */
import { closeSync, fstatSync, openSync, readSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';

import { statOrNull } from '../file-memo.js';
import { type FileRecord, MANIFEST_FILE, parseManifestLine } from '../store/topic-files.js';
import { topicIndexDir, writeFileAtomic } from './layout.js';
import { closeWhenCollected, openRegular, readFully } from '../regular-file.js';
import { grown } from '../typed-array.js';

const MAGIC = 'TKML0001';
const HEAD = 8 + 3 * 8 + 4 + 4;
const NEWLINE = 0x0a;

export const manifestLinesFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'manifest-lines.bin');

const sameFile = (st: Stats, size: number, mtimeMs: number, ino: number): boolean => st.size === size && st.mtimeMs === mtimeMs && st.ino === ino;

/** The header's manifest stat, or null when the file is not ours or not of its own length. */
function headerOf(bytes: Buffer, length: number): { size: number; mtimeMs: number; ino: number; count: number } | null {
  if (bytes.length < HEAD || bytes.toString('latin1', 0, 8) !== MAGIC || bytes.readUInt32LE(36) !== length) return null;
  const count = bytes.readUInt32LE(32);
  if (length < HEAD + count * 12 + (count + 1) * 4) return null;
  return { size: bytes.readDoubleLE(8), mtimeMs: bytes.readDoubleLE(16), ino: bytes.readDoubleLE(24), count };
}

/** The header of the index at `file` (its first bytes only), or null. */
function readHeader(file: string): ReturnType<typeof headerOf> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const head = Buffer.alloc(HEAD);
    return readSync(fd, head, 0, HEAD, 0) === HEAD ? headerOf(head, st.size) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Below this a manifest is read whole as before (1 MiB is ~4,000 files, read and scanned in about
 * a millisecond): no index is written for it, so small topics' syncs pay nothing.
 */
const MIN_MANIFEST_BYTES = 2 ** 20;

/**
 * Writes the line index of `id`'s manifest when the one on disk is not of the manifest as it is
 * now (a stat and a 40-byte header read when nothing moved). No manifest, or a small one: no index.
 */
export async function refreshManifestLines(root: string, id: string, dir: string, minBytes = MIN_MANIFEST_BYTES): Promise<void> {
  const manifest = join(dir, MANIFEST_FILE);
  const file = manifestLinesFile(root, id);
  // Stat first, read second: a write in between leaves an older stat, which no reader accepts.
  const st = statOrNull(manifest);
  if (!st || st.size < minBytes) {
    rmSync(file, { force: true });
    return;
  }
  const h = readHeader(file);
  if (h && sameFile(st, h.size, h.mtimeMs, h.ino)) return;
  const found = lastLines(manifest);
  if (!found) return;
  const { last, at, len } = found;
  const paths = [...last.keys()];
  // Bytewise order of the UTF-8 keys. Without surrogates UTF-16 order is code point order, which
  // is UTF-8 byte order: no key is encoded to sort (a Buffer a path was ~100 bytes, 70 MB at 692k).
  const keyed = paths.some((p) => SURROGATE.test(p));
  if (keyed) {
    const keys = new Map(paths.map((p) => [p, Buffer.from(p, 'utf8')]));
    paths.sort((a, b) => Buffer.compare(keys.get(a)!, keys.get(b)!));
  } else paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = paths.length;
  let pathBytes = 0;
  for (const p of paths) pathBytes += Buffer.byteLength(p, 'utf8');
  const out = Buffer.alloc(HEAD + n * 12 + (n + 1) * 4 + pathBytes);
  out.write(MAGIC, 0, 'latin1');
  out.writeDoubleLE(st.size, 8);
  out.writeDoubleLE(st.mtimeMs, 16);
  out.writeDoubleLE(st.ino, 24);
  out.writeUInt32LE(n, 32);
  out.writeUInt32LE(out.length, 36);
  const base = HEAD + n * 12 + (n + 1) * 4;
  let p = base;
  paths.forEach((path, i) => {
    const row = last.get(path)!;
    out.writeDoubleLE(at[row]!, HEAD + i * 8);
    out.writeUInt32LE(len[row]!, HEAD + n * 8 + i * 4);
    out.writeUInt32LE(p - base, HEAD + n * 12 + i * 4);
    p += out.write(path, p, 'utf8');
  });
  out.writeUInt32LE(pathBytes, HEAD + n * 12 + n * 4);
  await writeFileAtomic(file, out);
}

/**
 * Lookups read by position before the whole index is read: a cold process (the CLI, an MCP
 * server's first answer) asks for ten paths, and reading a 7 MB index (300k chunks) into fresh
 * memory cost more than ~40 small reads each. A process that keeps asking reads it whole.
 */
const LOOKUPS_BY_POSITION = 64;

const SURROGATE = /[\uD800-\uDFFF]/;

/** Bytes of the manifest read at a time: it is never held whole (190 MB at 692k files). */
const PIECE_BYTES = 1 << 20;

/**
 * The line a whole parse keeps for each path of the manifest (topic-files.ts: the last valid
 * one): path → row of the line's offset and length. Null when the file cannot be read.
 */
function lastLines(manifest: string): { last: Map<string, number>; at: Float64Array; len: Uint32Array } | null {
  let file: { fd: number; size: number };
  try {
    file = openRegular(manifest);
  } catch {
    return null;
  }
  const last = new Map<string, number>();
  let at = new Float64Array(1024);
  let len = new Uint32Array(1024);
  let rows = 0;
  const take = (buf: Buffer, from: number, stop: number, offset: number): void => {
    const rec = parseManifestLine(buf.toString('utf8', from, stop));
    if (!rec) return;
    if (rows === at.length) {
      at = grown(at, new Float64Array(2 * rows));
      len = grown(len, new Uint32Array(2 * rows));
    }
    at[rows] = offset;
    len[rows] = stop - from;
    last.set(rec.path, rows++);
  };
  try {
    let buf = Buffer.alloc(PIECE_BYTES);
    let pos = 0; // the file offset of buf[0]
    let held = 0; // bytes of a line begun in the previous piece, at the start of buf
    for (;;) {
      const got = readFully(file.fd, buf, pos + held, buf.length - held, held);
      const end = held + got;
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE, from); nl !== -1 && nl < end; nl = buf.indexOf(NEWLINE, from)) {
        take(buf, from, nl, pos + from);
        from = nl + 1;
      }
      if (got === 0 || pos + end >= file.size) {
        if (from < end) take(buf, from, end, pos + from); // a last line without its newline
        break;
      }
      buf.copy(buf, 0, from, end);
      pos += from;
      held = end - from;
      if (held === buf.length) buf = Buffer.concat([buf, Buffer.alloc(buf.length)]); // a line longer than a piece
    }
  } catch {
    return null;
  } finally {
    closeSync(file.fd);
  }
  return { last, at, len };
}

/** A topic's manifest read line by line through its index; see the module comment. */
export class ManifestLines {
  private bytes: Buffer | null = null;
  private lookups = 0;
  private readonly close: () => void;

  private constructor(
    private readonly fd: number,
    private readonly length: number,
    private readonly manifest: string,
    private readonly h: { size: number; mtimeMs: number; ino: number; count: number },
  ) {
    this.close = closeWhenCollected(this, fd);
  }

  /** The index of `id`'s manifest, or null when there is none that is well formed. */
  static open(root: string, id: string, dir: string): ManifestLines | null {
    let opened: { fd: number; size: number };
    try {
      opened = openRegular(manifestLinesFile(root, id));
    } catch {
      return null;
    }
    const head = Buffer.alloc(HEAD);
    let h: ReturnType<typeof headerOf>;
    try {
      h = readFully(opened.fd, head, 0, HEAD, 0) === HEAD ? headerOf(head, opened.size) : null;
    } catch {
      h = null;
    }
    if (!h) {
      closeSync(opened.fd);
      return null;
    }
    return new ManifestLines(opened.fd, opened.size, join(dir, MANIFEST_FILE), h);
  }

  /** `n` bytes at `pos`: from the whole index once it is read, else by position; null past its end. */
  private at(pos: number, n: number): Buffer | null {
    if (pos < 0 || n < 0 || pos + n > this.length) return null;
    if (this.bytes) return this.bytes.subarray(pos, pos + n);
    const out = Buffer.allocUnsafe(n);
    return readFully(this.fd, out, pos, n, 0) === n ? out : null;
  }

  /** The index of `path` in the sorted paths, -1 when absent, null when the index is damaged. */
  private find(key: Buffer): number | null {
    const n = this.h.count;
    const starts = HEAD + n * 12;
    const paths = starts + (n + 1) * 4;
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const bounds = this.at(starts + mid * 4, 8);
      if (!bounds) return null;
      const from = bounds.readUInt32LE(0);
      const to = bounds.readUInt32LE(4);
      const name = to >= from ? this.at(paths + from, to - from) : null;
      if (!name) return null;
      const c = Buffer.compare(name, key);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * The record a whole parse of the manifest gives `path` (undefined: it has none), or null when
   * this index cannot tell: the manifest moved since it was written, the index is damaged, or its
   * line does not read as that path's record. The caller then reads the manifest.
   */
  get(path: string): FileRecord | undefined | null {
    const { h } = this;
    const n = h.count;
    try {
      if (!this.bytes && ++this.lookups > LOOKUPS_BY_POSITION) {
        const whole = Buffer.allocUnsafe(this.length);
        if (readFully(this.fd, whole, 0, this.length, 0) !== this.length) return null;
        this.bytes = whole;
        this.close();
      }
    } catch {
      return null;
    }
    let found: number | null;
    let place: Buffer | null = null;
    let size: Buffer | null = null;
    try {
      found = this.find(Buffer.from(path, 'utf8'));
      if (found !== null && found >= 0) {
        place = this.at(HEAD + found * 8, 8);
        size = this.at(HEAD + n * 8 + found * 4, 4);
      }
    } catch {
      return null;
    }
    if (found === null || (found >= 0 && (!place || !size))) return null;
    let fd: number;
    try {
      fd = openSync(this.manifest, 'r');
    } catch {
      return null;
    }
    try {
      // The inode read is the one the index was made from, or nothing it says holds.
      if (!sameFile(fstatSync(fd), h.size, h.mtimeMs, h.ino)) return null;
      if (found < 0) return undefined;
      const length = size!.readUInt32LE(0);
      const line = Buffer.alloc(length);
      if (readSync(fd, line, 0, length, place!.readDoubleLE(0)) !== length) return null;
      const rec = parseManifestLine(line.toString('utf8'));
      return rec?.path === path ? rec : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}
