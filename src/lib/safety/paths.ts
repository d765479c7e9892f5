/**
 * Paths that come from outside (repository trees, manifests, requests) and the file system
 * operations that must never leave a topic folder. The pure checks refuse names that could
 * escape, alias another file or mislead a reader; the fs helpers refuse to go through a
 * symbolic link anywhere on the way, so even a link planted in a topic folder by hand never
 * leads a read or a removal outside it.
 */
import { constants } from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

import { TkomaError } from '../errors.js';

/** File systems refuse longer names; git trees do not. */
const MAX_COMPONENT_BYTES = 255;
const MAX_PATH_BYTES = 4096;
/** Control characters, and characters that hide or reorder text (zero-width, bidi controls). */
const MISLEADING = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * Why a repository-relative path (POSIX separators) must not be written into a topic, or null
 * when it is fine. Refused: empty, absolute, `.`/`..`/empty components, backslashes, control and
 * invisible characters, names longer than file systems allow.
 */
export function unsafePathReason(path: string): string | null {
  if (typeof path !== 'string' || path.length === 0) return 'empty';
  if (path.startsWith('/')) return 'absolute';
  if (path.includes('\\')) return 'backslash';
  if (MISLEADING.test(path)) return 'control or invisible characters';
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return 'too long';
  for (const part of path.split('/')) {
    if (part === '' || part === '.' || part === '..') return 'empty, "." or ".." component';
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) return 'name too long';
  }
  return null;
}

export function isSafeRelPath(path: string): boolean {
  return unsafePathReason(path) === null;
}

/** abs (resolved) lies strictly inside dir (resolved). Pure string check, no file system. */
export function isInside(dir: string, abs: string): boolean {
  const base = resolve(dir);
  const target = resolve(abs);
  return target !== base && target.startsWith(base.endsWith(sep) ? base : base + sep);
}

function outside(rel: string, why: string): TkomaError {
  return new TkomaError('INVALID_PATH', `invalid path "${rel}": ${why}`, { path: rel });
}

/**
 * lstat of every component from `dir` down to `rel`: folders on the way must be real folders,
 * the last component a regular file (or a real folder when `last` is 'dir'). Throws
 * INVALID_PATH when a symbolic link or anything else sits on the way, FILE_NOT_FOUND when a
 * component is missing (or returns false with `allowMissing`). Returns whether the target exists.
 */
export async function assertNoLinks(dir: string, rel: string, opts: { allowMissing?: boolean; last?: 'file' | 'dir' } = {}): Promise<boolean> {
  const reason = unsafePathReason(rel);
  if (reason) throw outside(rel, reason);
  const parts = rel.split('/');
  let cur = resolve(dir);
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    const wantDir = i < parts.length - 1 || opts.last === 'dir';
    const st = await lstat(cur).catch(() => null);
    if (st === null) {
      if (opts.allowMissing) return false;
      throw new TkomaError('FILE_NOT_FOUND', `no file "${rel}"`, { path: rel });
    }
    if (st.isSymbolicLink()) throw outside(rel, 'goes through a symbolic link');
    if (wantDir && !st.isDirectory()) throw outside(rel, `"${parts.slice(0, i + 1).join('/')}" is not a folder`);
    if (!wantDir && !st.isFile()) throw outside(rel, 'not a regular file');
  }
  return true;
}

/** Removes the file (or link) `rel` inside `dir`; does nothing when a folder on the way is missing or is a link. */
export async function removeInside(dir: string, rel: string): Promise<void> {
  const reason = unsafePathReason(rel);
  if (reason) throw outside(rel, reason);
  const parts = rel.split('/');
  if (parts.length > 1) {
    const ok = await assertNoLinks(dir, parts.slice(0, -1).join('/'), { allowMissing: true, last: 'dir' }).catch(() => false);
    if (!ok) return;
  }
  const abs = resolve(dir, ...parts);
  const st = await lstat(abs).catch(() => null);
  if (st && (st.isFile() || st.isSymbolicLink())) await unlink(abs);
}

/** Reads a file inside dir without following links anywhere on the way (O_NOFOLLOW on the file itself). */
export async function readInside(dir: string, rel: string): Promise<Buffer> {
  await assertNoLinks(dir, rel);
  const handle = await open(resolve(dir, ...rel.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
