/**
 * The walk under a topic folder that tells a search whether the files moved: every regular file
 * with its size and mtime. Kept free of other project modules: cold searches load it first.
 */
import { type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';

/** Names never indexed at any depth: version control and our own temp files. */
export function ignoredName(name: string): boolean {
  return name === '.git' || /\.tmp-\d+-\d+$/.test(name);
}

/**
 * Visits every regular file under `dir` (POSIX path relative to it) with its lstat; false from
 * `visit` stops the walk and is returned. Symlinks (files or folders) are never followed: a link
 * could point anywhere on the machine. A missing folder has no files.
 *
 * Synchronous on purpose: this runs before every search, and thousands of awaited lstat calls
 * cost ~0.1 ms each in promise dispatch, ten times the syscall itself.
 */
export function walkFiles(dir: string, visit: (rel: string, st: Stats, name: string) => boolean): boolean {
  const top = lstatOrNull(dir);
  if (!top || !top.isDirectory()) return true;
  const walk = (abs: string, rel: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return true; // vanished or unreadable while we walked: the next sync sees it
    }
    for (const e of entries) {
      if (ignoredName(e.name)) continue;
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      // Names from readdir hold no separator: plain concatenation, not path.join's normalising.
      const absPath = `${abs}/${e.name}`;
      if (e.isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (!walk(absPath, relPath)) return false;
      } else if (e.isFile()) {
        const st = lstatOrNull(absPath);
        if (st?.isFile() && !visit(relPath, st, e.name)) return false;
      }
    }
    return true;
  };
  return walk(dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir, '');
}

/** lstat without following a link; null when the path is missing or unreadable. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
