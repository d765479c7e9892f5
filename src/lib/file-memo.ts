/**
 * Values derived from small files (a topic's manifest, the root's config) that a warm process
 * would otherwise read and parse for every answer: kept while the file's inode, size and mtime
 * stay the same, so an edit by hand or by another process is seen by the next call. The stat is
 * synchronous: a few microseconds, where a thread-pool round trip cost a warm answer more than
 * the work itself on a busy machine.
 */
import { type Stats, statSync } from 'node:fs';

interface Known<T> {
  ino: number;
  size: number;
  mtimeMs: number;
  value: T;
}

/** The file's stat, or null when it is missing or unreadable. */
export function statOrNull(file: string): Stats | null {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

export class FileMemo<T> {
  private readonly known = new Map<string, Known<T>>();

  /**
   * load()'s value for `file`, reused while the file is unchanged. Stat first, load second: a
   * write in between leaves an older stat beside the newer value, so the next call loads again.
   * A missing file is never remembered (load decides what it means).
   */
  async get(file: string, load: () => Promise<T>): Promise<T> {
    const st = statOrNull(file);
    const k = this.known.get(file);
    if (st && k && k.ino === st.ino && k.size === st.size && k.mtimeMs === st.mtimeMs) return k.value;
    this.known.delete(file);
    const value = await load();
    if (st) this.known.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, value });
    return value;
  }
}
