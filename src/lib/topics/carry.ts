/**
 * What changed in a folder while we were not looking: scans of its files (path → size, mtime,
 * inode) compared, and the changed entries carried into another folder. Refresh uses it to keep
 * what an operator wrote into the live topic folder while the refreshed one was being built
 * (see the header of refresh.ts).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { copyFile, link, lstat, mkdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { assertNoLinks } from '../safety/paths.js';

export interface EntryState {
  size: bigint;
  mtimeNs: bigint;
  ino: bigint;
  link: boolean;
}

/** Relative path ('/'-separated) → state, for every file and symlink under a folder. */
export type TreeScan = Map<string, EntryState>;

export function scanTree(dir: string): TreeScan {
  const out: TreeScan = new Map();
  const walk = (abs: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return; // gone meanwhile
    }
    for (const e of entries) {
      const a = join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(a, r);
      else if (e.isFile() || e.isSymbolicLink()) {
        try {
          const st = lstatSync(a, { bigint: true });
          out.set(r, { size: st.size, mtimeNs: st.mtimeNs, ino: st.ino, link: st.isSymbolicLink() });
        } catch {
          // removed between readdir and lstat: absent
        }
      }
    }
  };
  walk(dir, '');
  return out;
}

function same(a: EntryState | undefined, b: EntryState | undefined): boolean {
  return !!a && !!b && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ino === b.ino && a.link === b.link;
}

/** Entries added, edited or replaced (`gone: false`) or deleted (`gone: true`) between two scans. */
export function changedEntries(before: TreeScan, after: TreeScan): { path: string; gone: boolean }[] {
  const out: { path: string; gone: boolean }[] = [];
  for (const [p, st] of after) if (!same(before.get(p), st)) out.push({ path: p, gone: false });
  for (const p of before.keys()) if (!after.has(p)) out.push({ path: p, gone: true });
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The inode at `dir/rel` (not following a link), or null. */
export function inodeAt(dir: string, rel: string): bigint | null {
  try {
    return lstatSync(join(dir, rel), { bigint: true }).ino;
  } catch {
    return null;
  }
}

/**
 * Puts the entry `from/rel` at `to/rel`, replacing what is there: a hard link (a copy where the
 * file system has none), a symlink recreated as such; never through a link in `to`.
 * False when the source entry is gone.
 */
export async function placeEntry(from: string, to: string, rel: string): Promise<boolean> {
  const src = join(from, rel);
  const st = await lstat(src).catch(() => null);
  if (!st || st.isDirectory()) return false;
  if (rel.includes('/')) await assertNoLinks(to, dirname(rel), { allowMissing: true, last: 'dir' });
  const dest = join(to, rel);
  await mkdir(dirname(dest), { recursive: true });
  const tmp = `${dest}.tkoma-carry-${process.pid}`;
  await rm(tmp, { force: true });
  if (st.isSymbolicLink()) await symlink(await readlink(src), tmp);
  else await link(src, tmp).catch(() => copyFile(src, tmp));
  await rename(tmp, dest);
  return true;
}
