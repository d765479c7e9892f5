/**
 * A sync's side of include resolution (chunking/includes.ts): which targets a page's directives
 * read, read from the topic folder only, and which pages to re-chunk when a target changes.
 */
import { join } from 'node:path';

import { expandIncludes, type Expansion, findIncludes } from '../chunking/includes.js';
import { readOrNull } from '../soft-fs.js';
import { looksBinary } from './scan.js';

export interface PageIncludes {
  /** Every target the page names inside the topic, found or not (a later file may fill it). */
  targets: string[];
  expansions: Expansion[];
}

/**
 * Where a directive's path points when it is not next to the page: books built by a tool of their
 * own resolve from another folder (the Dioxus docsite's pages write `../docs-router/src/…` from
 * `docs-src/0.3/en/async/`, meaning `packages/docs-router/src/…`). The one topic file whose path
 * ends with the path's own part (its leading `./` and `../` dropped), else none.
 */
export class SuffixLookup {
  private byName: Map<string, string[]> | null = null;
  constructor(private readonly paths: Iterable<string>) {}

  find(ref: string): string | null {
    const tail = ref.replace(/^(\.\.?\/)+/, '');
    if (tail === '' || tail.startsWith('/')) return null;
    if (!this.byName) {
      this.byName = new Map();
      for (const p of this.paths) {
        const name = p.slice(p.lastIndexOf('/') + 1);
        const list = this.byName.get(name);
        if (list) list.push(p);
        else this.byName.set(name, [p]);
      }
    }
    const name = tail.slice(tail.lastIndexOf('/') + 1);
    const found = (this.byName.get(name) ?? []).filter((p) => p === tail || p.endsWith(`/${tail}`));
    return found.length === 1 ? found[0]! : null;
  }
}

/**
 * The page's includes resolved against the topic's files: only files of the listing (`onDisk`),
 * text, within the size cap. Null for a page without directives.
 */
export function resolvePageIncludes(dir: string, path: string, text: string, onDisk: ReadonlyMap<string, { size: number }>, cap: number, elsewhere?: SuffixLookup): PageIncludes | null {
  const refs = findIncludes(path, text);
  if (refs.length === 0) return null;
  for (const r of refs) if (r.target === null || !onDisk.has(r.target)) r.target = elsewhere?.find(r.ref) ?? r.target;
  const targets = [...new Set(refs.map((r) => r.target).filter((t): t is string => t !== null && t !== path))];
  const read = (target: string): string | null => {
    const st = onDisk.get(target);
    if (!st || st.size > cap || target === path) return null;
    const bytes = readOrNull(join(dir, target));
    return bytes && !looksBinary(bytes) ? bytes.toString('utf8') : null;
  };
  return { targets, expansions: expandIncludes(refs, read) };
}

/** Pages (still on disk, not already listed) whose includes name one of `touched`. */
export function pagesIncluding(includes: Readonly<Record<string, string[]>> | undefined, touched: ReadonlySet<string>, onDisk: ReadonlyMap<string, unknown>): string[] {
  if (!includes || touched.size === 0) return [];
  return Object.entries(includes)
    .filter(([page, targets]) => !touched.has(page) && onDisk.has(page) && targets.some((t) => touched.has(t)))
    .map(([page]) => page);
}
