/**
 * The walk under a topic folder that tells a search whether the files moved: every regular file
 * with its size and mtime. Kept free of other project modules: cold searches load it first.
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';

/**
 * The end of our own temp files' names (layout.ts tempName), as a POSIX extended regular
 * expression: listing-prefetch.ts hands the same pattern to `find`.
 */
export const TEMP_NAME_PATTERN = '\\.tmp-[0-9]+-[0-9]+';
const TEMP_NAME = new RegExp(`${TEMP_NAME_PATTERN}$`);

/** Names never indexed at any depth: version control and our own temp files. */
export function ignoredName(name: string): boolean {
  // The substring test first: a regular expression per name cost the start-up walk more.
  return name === '.git' || (name.includes('.tmp-') && TEMP_NAME.test(name));
}

/**
 * Visits every regular file under `dir` (POSIX path relative to it) with its lstat; false from
 * `visit` stops the walk and is returned. Symlinks (files or folders) are never followed: a link
 * could point anywhere on the machine. A missing folder has no files.
 *
 * Synchronous on purpose: this runs before every search, and thousands of awaited lstat calls
 * cost ~0.1 ms each in promise dispatch, ten times the syscall itself.
 */
export function walkFiles(dir: string, visit: (rel: string, st: Stats) => boolean): boolean {
  const top = lstatOrNull(dir);
  if (!top || !top.isDirectory()) return true;
  const walk = (abs: string, rel: string): boolean => {
    let names: string[];
    try {
      // Names only: every entry is lstat-ed anyway, and that tells its type; typed entries cost
      // an object per file on top (a sixth of the walk's instructions at 5k files).
      names = readdirSync(abs);
    } catch {
      return true; // vanished or unreadable while we walked: the next sync sees it
    }
    for (const name of names) {
      if (ignoredName(name)) continue;
      // Names from readdir hold no separator: plain concatenation, not path.join's normalising.
      const absPath = `${abs}/${name}`;
      const st = lstatOrNull(absPath);
      if (!st || st.isSymbolicLink()) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      if (st.isDirectory()) {
        if (!walk(absPath, relPath)) return false;
      } else if (st.isFile() && !visit(relPath, st)) {
        return false;
      }
    }
    return true;
  };
  return walk(dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir, '');
}

const NO_THROW = { throwIfNoEntry: false } as const;

/** lstat without following a link; null when the path is missing or unreadable. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, NO_THROW) ?? null;
  } catch {
    return null;
  }
}
