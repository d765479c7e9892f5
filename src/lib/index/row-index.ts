/**
 * The rows of a file table read from disk, by path (file-table.ts). Its paths are sorted and
 * distinct (checked when it is read), so a search's few lookups halve over them; a Map of every
 * path (~0.2 s for 207,713 of them under load) is built only for a sync, which looks up every file.
 */
/**
 * A file table's paths by row: an array, or a table of bytes that makes a string only when asked
 * (head-hot.ts).
 */
export interface PathList {
  readonly length: number;
  at(row: number): string | undefined;
}

/** Finds rows by path: by halving over the sorted paths until a sync wants a Map of them all. */
export class RowIndex {
  private map: Map<string, number> | null = null;

  constructor(private readonly paths: PathList) {}

  get size(): number {
    return this.paths.length;
  }

  /** The row of `path`: a map once built (a sync asks for every file), else by halving. */
  get(path: string): number | undefined {
    if (this.map) return this.map.get(path);
    const paths = this.paths;
    let lo = 0;
    let hi = paths.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = paths.at(mid)!;
      if (p === path) return mid;
      if (p < path) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Every row by path, built once: for callers that look up every file. */
  all(): Map<string, number> {
    if (!this.map) {
      this.map = new Map();
      for (let i = 0; i < this.paths.length; i++) this.map.set(this.paths.at(i)!, i);
    }
    return this.map;
  }
}
