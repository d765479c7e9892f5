import * as crypto from 'node:crypto';
import type { Chunk, Role } from './types.js';

/** Size limits for chunkers. Sizes are in characters (UTF-16 code units) of chunk text. */
export interface ChunkOptions {
  /** Upper bound for a chunk; only a code fence up to 4x this size may exceed it. Default 1600. */
  maxChars?: number;
  /** Pieces smaller than this are merged with a neighbour when the result fits. Default 300. */
  minChars?: number;
  /** Lines per window for the line-window fallback. Default 60. */
  windowLines?: number;
  /** Lines shared by consecutive windows of the line-window fallback. Default 5. */
  overlapLines?: number;
}

export type ResolvedOptions = Required<ChunkOptions>;

export function resolveOptions(opts: ChunkOptions = {}): ResolvedOptions {
  const maxChars = Math.max(80, Math.floor(opts.maxChars ?? 1600));
  const minChars = Math.min(maxChars, Math.max(0, Math.floor(opts.minChars ?? 300)));
  const windowLines = Math.max(1, Math.floor(opts.windowLines ?? 60));
  const overlapLines = Math.min(windowLines - 1, Math.max(0, Math.floor(opts.overlapLines ?? 5)));
  return { maxChars, minChars, windowLines, overlapLines };
}

/** Metadata every chunk of one file shares. */
export interface ChunkMeta {
  path: string;
  role: Role;
  language: string;
}

/** Offsets of line starts, so chunkers can work in offsets and report 1-based lines. */
export class LineIndex {
  readonly starts: number[];
  constructor(readonly content: string) {
    this.starts = [0];
    for (let i = content.indexOf('\n'); i !== -1; i = content.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  get lineCount(): number {
    return this.starts.length;
  }
  /** Offset of the first character of 0-based row `row`. */
  start(row: number): number {
    return this.starts[row];
  }
  /** Offset just past the last character of row `row` (before its '\n'). */
  end(row: number): number {
    return row + 1 < this.starts.length ? this.starts[row + 1] - 1 : this.content.length;
  }
  /** 0-based row holding offset `off`. */
  rowOf(off: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  line(row: number): string {
    return this.content.slice(this.start(row), this.end(row));
  }
  isBlank(row: number): boolean {
    return this.line(row).trim() === '';
  }
  /** Characters spanned by rows a..b inclusive. */
  size(a: number, b: number): number {
    return this.end(b) - this.start(a);
  }
}

/** crypto.hash where Node has it (20.12+): one call instead of a Hash object per chunk. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function sha256(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * Builds a chunk from the offset range [s, e): drops blank lines at the start (keeping the first
 * line's indentation, which matters for code) and whitespace at the end. Returns undefined when
 * nothing but whitespace is left.
 */
export function makeChunk(
  idx: LineIndex,
  s: number,
  e: number,
  meta: ChunkMeta,
  fields: { title: string; kind: string; symbol?: string },
): Chunk | undefined {
  const c = idx.content;
  let start = s;
  let i = s;
  while (i < e && /\s/.test(c[i])) {
    if (c[i] === '\n') start = i + 1;
    i++;
  }
  if (i >= e) return undefined;
  let end = e;
  while (end > start && /\s/.test(c[end - 1])) end--;
  const text = c.slice(start, end);
  const chunk: Chunk = {
    path: meta.path,
    startLine: idx.rowOf(start) + 1,
    endLine: idx.rowOf(end - 1) + 1,
    role: meta.role,
    title: fields.title,
    kind: fields.kind,
    language: meta.language,
    text,
    hash: sha256(text),
  };
  if (fields.symbol !== undefined) chunk.symbol = fields.symbol;
  return chunk;
}

/** Cuts [s, e) into pieces of at most max chars, preferring whitespace, never inside a surrogate pair. */
export function hardSplit(content: string, s: number, e: number, max: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let a = s;
  while (e - a > max) {
    let cut = a + max;
    const ws = content.lastIndexOf(' ', cut);
    if (ws > a + max / 2) cut = ws + 1;
    else {
      const code = content.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut--;
    }
    out.push([a, cut]);
    a = cut;
  }
  if (e > a) out.push([a, e]);
  return out;
}

/**
 * Splits rows a..b into consecutive windows of at most `max` chars (and `maxLines` lines),
 * ending a window at a blank line when one sits in its second half. Windows share `overlap`
 * lines. A single line longer than `max` is cut into pieces of that line. Without overlap,
 * windows aim at even sizes so a split does not end in a scrap. Returns offset ranges.
 */
export function windowRows(
  idx: LineIndex,
  a: number,
  b: number,
  maxChars: number,
  maxLines = Number.POSITIVE_INFINITY,
  overlap = 0,
): Array<[number, number]> {
  const total = idx.size(a, b);
  const pieces = Math.ceil(total / maxChars);
  const max = overlap === 0 && pieces > 1 ? Math.min(maxChars, Math.ceil(total / pieces + maxChars / 10)) : maxChars;
  const out: Array<[number, number]> = [];
  let row = a;
  while (row <= b) {
    if (idx.end(row) - idx.start(row) > max) {
      out.push(...hardSplit(idx.content, idx.start(row), idx.end(row), maxChars));
      row++;
      continue;
    }
    let last = row;
    while (last + 1 <= b && last + 1 - row < maxLines && idx.size(row, last + 1) <= max) last++;
    if (last < b && last > row) {
      // Prefer ending on a blank line so windows break between paragraphs / statements.
      for (let r = last; r > row + (last - row) / 2; r--) {
        if (idx.isBlank(r)) {
          last = r;
          break;
        }
      }
    }
    out.push([idx.start(row), idx.end(last)]);
    if (last >= b) break;
    // Shrink the overlap until the next window can still reach a new line, so windows never repeat.
    let k = Math.min(overlap, last - row);
    while (k > 0 && (idx.size(last + 1 - k, last + 1) > max || k + 1 > maxLines)) k--;
    row = last + 1 - k;
  }
  return out;
}

export function basename(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? path : path.slice(i + 1);
}

/**
 * Groups consecutive items 0..n-1: a group takes the next item while the group is still under
 * `min` and the result fits `max`; a group left under `min` joins the group before it when that
 * fits. `span(i, j)` is the size of items i..j together. Returns inclusive index ranges.
 */
export function packRuns(n: number, span: (i: number, j: number) => number, min: number, max: number): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && span(i, j) < min && span(i, j + 1) <= max) j++;
    const prev = groups[groups.length - 1];
    if (prev && span(i, j) < min && span(prev[0], j) <= max) prev[1] = j;
    else groups.push([i, j]);
    i = j + 1;
  }
  return groups;
}
