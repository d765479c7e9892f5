/**
 * Index files are read only as what the index wrote: regular files, never through a link. A
 * segment replaced by a link to /dev/zero was read without bound, and a FIFO would block the
 * open; here the open refuses a link (O_NOFOLLOW) without blocking (O_NONBLOCK), the open file is
 * checked to be a regular file, and reads are bounded by its own size.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';

import { TkomaError } from './errors.js';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An open regular file and its size; throws (ENOENT, ELOOP for a link, DAMAGED_STATE for the rest). */
export function openRegular(file: string): { fd: number; size: number } {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TkomaError('DAMAGED_STATE', `${file} is not a regular file`, { path: file });
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * `n` bytes of `fd` from `pos` into `buf` at `at` (default: at `pos` too); returns how many were
 * read, fewer when the file ends first. Throws what readSync throws.
 */
export function readFully(fd: number, buf: Uint8Array, pos: number, n: number, at = pos): number {
  let got = 0;
  while (got < n) {
    const k = readSync(fd, buf, at + got, n - got, pos + got);
    if (k === 0) break;
    got += k;
  }
  return got;
}

/** All of `bytes` to `fd` at `position` (null: at the file's current offset), however many writes it takes. */
export function writeFully(fd: number, bytes: Uint8Array, position: number | null): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, position === null ? null : position + at);
}

const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed by its owner
  }
});

/**
 * Closes `fd` once `owner` is garbage: index files a search reads by position stay open while
 * their reader lives (a later rename over the path does not change what it reads). The function
 * returned closes it now, once, and forgets it: a descriptor closed early must not be closed
 * again when its number belongs to another file.
 */
export function closeWhenCollected(owner: object, fd: number): () => void {
  const token = {};
  closer.register(owner, fd, token);
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    closer.unregister(token);
    closeSync(fd);
  };
}

/** The whole of a regular file, read up to the size it had when opened. */
export function readRegular(file: string): Buffer {
  const { fd, size } = openRegular(file);
  try {
    const buf = Buffer.allocUnsafe(size);
    const got = readFully(fd, buf, 0, size);
    return got === size ? buf : buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** readRegular, or null when the file is missing, a link, or not a regular file. */
export function readRegularOrNull(file: string): Buffer | null {
  try {
    return readRegular(file);
  } catch {
    return null;
  }
}
