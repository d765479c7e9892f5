/**
 * Index files are read only as what the index wrote: regular files, never through a link. A
 * segment replaced by a link to /dev/zero was read without bound, and a FIFO would block the
 * open; here the open refuses a link (O_NOFOLLOW) without blocking (O_NONBLOCK), the open file is
 * checked to be a regular file, and reads are bounded by its own size.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

import { TkomaError } from '../errors.js';

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

/** The whole of a regular file, read up to the size it had when opened. */
export function readRegular(file: string): Buffer {
  const { fd, size } = openRegular(file);
  try {
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
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
