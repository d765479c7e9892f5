import { attachBareHeadings, type Piece } from './markdown-bare.js';
import { scanProse, type ProseScan } from './markdown-scan.js';
import { textBoundaries } from './markdown-text.js';
import { docLanguageForPath, proseDialect } from './paths.js';
import type { Chunk } from './types.js';
import {
  basename,
  hardSplit,
  LineIndex,
  makeChunk,
  packRuns,
  resolveOptions,
  windowRows,
  type ChunkMeta,
  type ChunkOptions,
  type ResolvedOptions,
} from './util.js';

/** A fence larger than this many times maxChars is split at blank lines inside it. */
const FENCE_HARD_CAP = 4;

interface Section {
  start: number;
  end: number;
  /** Last row of the heading itself; -1 for text before the first heading. */
  headingEnd: number;
  path: string[];
}

function sectionsOf(idx: LineIndex, scan: ProseScan, fallbackTitle: string): Section[] {
  const { headings, bodyStart, frontTitle } = scan;
  // Front matter's title roots the paths only when the document has no top-level heading of its own.
  const root = frontTitle && !headings.some((h) => h.level === 1) ? [frontTitle] : [];
  const out: Section[] = [];
  const firstStart = headings.length ? headings[0].startRow : idx.lineCount;
  if (firstStart > bodyStart) {
    out.push({ start: bodyStart, end: firstStart - 1, headingEnd: -1, path: frontTitle ? [frontTitle] : [fallbackTitle] });
  }
  const stack: Array<{ level: number; text: string }> = [];
  headings.forEach((h, i) => {
    while (stack.length && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push({ level: h.level, text: h.text });
    const end = i + 1 < headings.length ? headings[i + 1].startRow - 1 : idx.lineCount - 1;
    const path = [...root, ...stack.map((s) => s.text).filter((t) => t !== '')];
    out.push({ start: h.startRow, end, headingEnd: h.endRow, path: path.length ? path : [fallbackTitle] });
  });
  return out;
}

/** Title of merged sections: their shared heading path, then the headings below it that they cover. */
export function groupTitle(paths: string[][]): string {
  if (paths.length === 1) return paths[0].join(' > ');
  let n = 0;
  while (paths.every((p) => n < p.length && p[n] === paths[0][n])) n++;
  const prefix = paths[0].slice(0, n);
  const next: string[] = [];
  for (const p of paths) if (p.length > n && !next.includes(p[n])) next.push(p[n]);
  const shown = next.length > 3 ? [...next.slice(0, 3), '…'] : next;
  const parts = shown.length ? [...prefix, shown.join(', ')] : prefix;
  return parts.join(' > ');
}

/** Small sections join their neighbours into groups of about minChars, never over maxChars. */
function mergeSections(idx: LineIndex, sections: Section[], o: ResolvedOptions): Section[][] {
  const span = (i: number, j: number): number => idx.size(sections[i].start, sections[j].end);
  return packRuns(sections.length, span, o.minChars, o.maxChars).map(([i, j]) => sections.slice(i, j + 1));
}

interface Block {
  s: number;
  e: number;
  fence: boolean;
}

/** Paragraph-level blocks of rows a..b: runs of non-blank lines; a fence is one block. */
function blocksOf(idx: LineIndex, scan: ProseScan, a: number, b: number): Block[] {
  const blocks: Block[] = [];
  let r = a;
  while (r <= b) {
    const id = scan.blockOf[r];
    if (id < 0 && idx.isBlank(r)) {
      r++;
      continue;
    }
    let end = r;
    if (id >= 0) {
      while (end + 1 <= b && scan.blockOf[end + 1] === id) end++;
    } else {
      while (end + 1 <= b && scan.blockOf[end + 1] < 0 && !idx.isBlank(end + 1)) end++;
    }
    blocks.push({ s: idx.start(r), e: idx.end(end), fence: id >= 0 });
    r = end + 1;
  }
  return blocks;
}

/** Packs the pieces of an oversized text block: whole lines / sentences up to max, hard cuts below that. */
function splitText(content: string, s: number, e: number, maxChars: number): Array<[number, number]> {
  // Aim for even pieces rather than full ones followed by a scrap.
  const n = Math.ceil((e - s) / maxChars);
  const max = Math.min(maxChars, Math.ceil((1.1 * (e - s)) / n));
  const points = [s, ...textBoundaries(content, s, e), e];
  const out: Array<[number, number]> = [];
  let p = s;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k];
    const b = points[k + 1];
    if (b - p <= max) continue;
    if (a > p) out.push([p, a]);
    p = a;
    if (b - a > max) {
      out.push(...hardSplit(content, a, b, maxChars));
      p = b;
    }
  }
  if (e > p) out.push([p, e]);
  return out;
}

/** Cuts one oversized section into pieces at blocks, then sentences; fences stay whole up to the cap. */
function splitSection(idx: LineIndex, scan: ProseScan, sec: Section, o: ResolvedOptions): Array<[number, number]> {
  const blocks = blocksOf(idx, scan, sec.start, sec.end);
  // The heading never stands alone: it travels with the block after it.
  if (sec.headingEnd >= 0 && blocks.length > 1 && blocks[0].e <= idx.end(sec.headingEnd)) {
    blocks[1] = { ...blocks[1], s: blocks[0].s };
    blocks.shift();
  }
  const out: Array<[number, number]> = [];
  let cur: [number, number] | undefined;
  for (const blk of blocks) {
    if (cur && blk.e - cur[0] <= o.maxChars) {
      cur[1] = blk.e;
      continue;
    }
    if (cur) out.push(cur);
    cur = undefined;
    const size = blk.e - blk.s;
    if (size <= o.maxChars) cur = [blk.s, blk.e];
    else if (blk.fence && size <= o.maxChars * FENCE_HARD_CAP) out.push([blk.s, blk.e]);
    else if (blk.fence) {
      out.push(...windowRows(idx, idx.rowOf(blk.s), idx.rowOf(blk.e), o.maxChars).map(([a, b]): [number, number] => [Math.max(a, blk.s), b]));
    } else out.push(...splitText(idx.content, blk.s, blk.e, o.maxChars));
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Chunks markdown, mdx, rst, asciidoc and plain text by headings. Every chunk's title is its
 * heading path ("Guide > Install > Linux"). Small sections merge with neighbours; long ones are
 * cut at paragraphs, then sentences. A code fence is never cut unless it alone exceeds
 * 4 x maxChars; then it is cut at blank lines inside it and the pieces keep the file's exact text
 * (no synthetic fence lines, so every chunk stays a verbatim slice of its lines). Front matter is
 * left out; its `title` names the text before the first heading.
 */
export function chunkMarkdown(path: string, content: string, opts: ChunkOptions = {}): Chunk[] {
  if (content.trim() === '') return [];
  const o = resolveOptions(opts);
  const idx = new LineIndex(content);
  const scan = scanProse(idx, proseDialect(path));
  const meta: ChunkMeta = { path, role: 'docs', language: docLanguageForPath(path) };
  const name = basename(path);
  const pieces: Piece[] = [];
  for (const group of mergeSections(idx, sectionsOf(idx, scan, name), o)) {
    const first = group[0];
    const last = group[group.length - 1];
    const paths = group.map((g) => g.path);
    // Merged groups fit by construction; only a lone section can be oversized.
    if (idx.size(first.start, last.end) <= o.maxChars) pieces.push({ s: idx.start(first.start), e: idx.end(last.end), paths });
    else for (const [s, e] of splitSection(idx, scan, first, o)) pieces.push({ s, e, paths });
  }
  const chunks: Chunk[] = [];
  for (const p of attachBareHeadings(idx, scan, pieces, o.maxChars)) {
    const c = makeChunk(idx, p.s, p.e, meta, { title: groupTitle(p.paths), kind: 'section' });
    if (c) chunks.push(c);
  }
  return chunks;
}
