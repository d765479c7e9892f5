/**
 * No bare headings (issue 12): a piece of a prose file that holds nothing but headings (`## Foo`
 * straight before `### Bar`, a heading at the end of the file, a heading whose first line of body
 * is longer than a chunk) answers nothing on its own, yet scores high on its few words. The
 * section packing leaves such pieces where a neighbour is too big to take them; this last pass
 * gives every one to the piece after it (or, at the end of the file, the one before it), cutting
 * the result again where it would outgrow maxChars, so that no cut leaves headings alone. Only
 * headings that nearly fill a chunk by themselves, so no text fits beside them, stay as they were.
 * Pure.
 */
import type { ProseScan } from './markdown-scan.js';
import { textBoundaries } from './markdown-text.js';
import { hardSplit, type LineIndex } from './util.js';

export interface Piece {
  s: number;
  e: number;
  /** Heading paths of the sections the piece covers, for its title. */
  paths: string[][];
}

class Rows {
  private readonly heading: Uint8Array;

  constructor(
    private readonly idx: LineIndex,
    private readonly scan: ProseScan,
  ) {
    this.heading = new Uint8Array(idx.lineCount);
    for (const h of scan.headings) for (let r = h.startRow; r <= h.endRow; r++) this.heading[r] = 1;
  }

  /** The rows [s, e) touches. */
  private rows(s: number, e: number): [number, number] {
    return [this.idx.rowOf(s), this.idx.rowOf(Math.max(s, e - 1))];
  }

  /** [s, e) holds text, and all of it is heading lines. */
  headingOnly(s: number, e: number): boolean {
    if (this.idx.content.slice(s, e).trim() === '') return false;
    const [a, b] = this.rows(s, e);
    for (let r = a; r <= b; r++) if (!this.heading[r] && !this.idx.isBlank(r)) return false;
    return true;
  }

  /** [s, e) holds text that is not a heading line. */
  hasBody(s: number, e: number): boolean {
    if (this.idx.content.slice(s, e).trim() === '') return false;
    const [a, b] = this.rows(s, e);
    for (let r = a; r <= b; r++) if (!this.heading[r] && this.idx.content.slice(Math.max(s, this.idx.start(r)), Math.min(e, this.idx.end(r))).trim() !== '') return true;
    return false;
  }

  /** [s, e) touches a code fence or literal block, which the chunker lets outgrow maxChars whole. */
  hasBlock(s: number, e: number): boolean {
    const [a, b] = this.rows(s, e);
    for (let r = a; r <= b; r++) if (this.scan.blockOf[r]! >= 0) return true;
    return false;
  }
}

/** The cut closest to the middle, so neither side is left a scrap. */
function nearest(cuts: number[], mid: number): number | undefined {
  let best: number | undefined;
  for (const c of cuts) if (best === undefined || Math.abs(c - mid) < Math.abs(best - mid)) best = c;
  return best;
}

/**
 * Headings [hs, ne) open the piece [ns, ne) after them: one piece when it fits (or holds a fence,
 * kept whole), else the headings take as much of the text as fits and the rest follows.
 */
function openWith(rows: Rows, content: string, hs: number, ns: number, ne: number, max: number): Array<[number, number]> | null {
  if (ne - hs <= max || rows.hasBlock(ns, ne)) return [[hs, ne]];
  const cuts = textBoundaries(content, ns, ne).filter((c) => c - hs <= max && rows.hasBody(ns, c) && content.slice(c, ne).trim() !== '');
  if (cuts.length === 0) {
    // No line or sentence to cut at (one huge line): even character cuts, the headings in the first.
    const total = ne - hs;
    const even = hardSplit(content, hs, ne, Math.ceil(total / Math.ceil(total / max)));
    return rows.headingOnly(...even[0]!) ? null : even;
  }
  const cut = nearest(cuts.filter((c) => ne - c <= max), (hs + ne) / 2) ?? cuts[cuts.length - 1]!;
  return [[hs, cut], ...hardSplit(content, cut, ne, max)];
}

/** Headings [hs, he) close the piece [ps, hs) before them: the same, from the other end. */
function closeWith(rows: Rows, content: string, ps: number, hs: number, he: number, max: number): Array<[number, number]> | null {
  if (he - ps <= max || rows.hasBlock(ps, hs)) return [[ps, he]];
  const cut = nearest(textBoundaries(content, ps, hs).filter((c) => he - c <= max && c - ps <= max && rows.hasBody(ps, c) && rows.hasBody(c, hs)), (ps + he) / 2);
  if (cut !== undefined) return [[ps, cut], [cut, he]];
  // No line or sentence fits: a cut after any space.
  const spaces: number[] = [];
  for (let c = Math.max(ps + 1, he - max); c < hs; c++) if (/\s/.test(content[c - 1]!) && c - ps <= max && rows.hasBody(ps, c) && rows.hasBody(c, hs)) spaces.push(c);
  const at = nearest(spaces, (ps + he) / 2);
  return at === undefined ? null : [[ps, at], [at, he]];
}

/** The pieces of one prose file with every heading-only piece joined to a neighbour. */
export function attachBareHeadings(idx: LineIndex, scan: ProseScan, pieces: Piece[], maxChars: number): Piece[] {
  if (scan.headings.length === 0 || pieces.length < 2) return pieces;
  const rows = new Rows(idx, scan);
  const out: Piece[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (!rows.headingOnly(p.s, p.e)) {
      out.push(p);
      continue;
    }
    // A run of heading-only pieces travels as one.
    let k = i;
    while (k + 1 < pieces.length && rows.headingOnly(pieces[k + 1]!.s, pieces[k + 1]!.e)) k++;
    const run = pieces.slice(i, k + 1);
    const headPaths = run.flatMap((r) => r.paths);
    const next = pieces[k + 1];
    const prev = out.pop();
    const opened = next ? openWith(rows, idx.content, p.s, next.s, next.e, maxChars) : null;
    const closed = !opened && !next && prev ? closeWith(rows, idx.content, prev.s, p.s, pieces[k]!.e, maxChars) : null;
    if (opened && next) {
      if (prev) out.push(prev);
      opened.forEach(([s, e], n) => out.push({ s, e, paths: n === 0 ? [...headPaths, ...next.paths] : next.paths }));
      i = k + 1;
    } else if (closed && prev) {
      closed.forEach(([s, e], n) => out.push({ s, e, paths: n === closed.length - 1 ? [...prev.paths, ...headPaths] : prev.paths }));
      i = k;
    } else if (next || prev) {
      // Headings too long to share a chunk with any text (near maxChars on their own) stay as they were.
      if (prev) out.push(prev);
      out.push(...run);
      i = k;
    } else {
      // Nothing but headings in the whole file: one piece when it fits, else as they were.
      if (pieces[k]!.e - p.s <= maxChars) out.push({ s: p.s, e: pieces[k]!.e, paths: headPaths });
      else out.push(...run);
      i = k;
    }
  }
  return out;
}
