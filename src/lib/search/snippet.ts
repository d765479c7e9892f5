/**
 * Snippets: the part of a chunk worth showing, at most `maxChars`. A chunk that fits is shown
 * whole; a longer one is cut to the window of whole lines holding the most query terms (same
 * tokenisation as the lexical index, so `parseConfig` in a question lights up `parse_config`).
 */
import { processTerm, tokenize } from '../index/bm25/tokenize.js';
import { type LineWords, SHIFTED, startAgainWhenFull, termGeneration, termIdOf } from './line-words.js';
import { probeScanLine } from './probe-scan.js';

export { plainWord } from './line-words.js';

export function queryTerms(query: string): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(query)) {
    const p = processTerm(t);
    if (p) out.add(p);
  }
  return out;
}

/** LineWords of some lines (by position; a gap is found again), with the termGeneration they were made in. */
export interface KnownWords {
  generation: number;
  lines: readonly (LineWords | undefined)[];
}

interface TermMemo {
  /** Term -> its index in the question's terms. */
  index: Map<string, number>;
  /** The terms' probes (probeOf), distinct and non-empty. */
  probeList: string[];
  /** The terms as line-words ids (of `generation`), in the terms' order. */
  ids: Int32Array;
  /** Bit (id mod 1024) set for each of `ids`: most of a line's terms are ruled out by one test. */
  bloom: Uint32Array;
  generation: number;
}

/** Per question (its terms' Set): the hits of one answer share it. */
const termMemo = new WeakMap<ReadonlySet<string>, TermMemo>();

function memoOf(terms: ReadonlySet<string>): TermMemo {
  let memo = termMemo.get(terms);
  if (!memo || memo.generation !== termGeneration()) {
    const list = [...terms];
    const ids = Int32Array.from(list, termIdOf);
    const bloom = new Uint32Array(32);
    for (const id of ids) bloom[(id >>> 5) & 31]! |= 1 << (id & 31);
    memo = {
      index: new Map(list.map((t, i) => [t, i])),
      probeList: [...new Set(list.map(probeOf))].filter((p) => p !== ''),
      ids,
      bloom,
      generation: termGeneration(),
    };
    termMemo.set(terms, memo);
  }
  return memo;
}

/**
 * Letters every word that becomes `term` starts with (lowercased): the stemmer only rewrites a
 * word's end past its first three letters, and shortens or changes the last letter of a short
 * stem (`sky` -> `ski`).
 */
const probeOf = (term: string): string => term.slice(0, Math.min(3, Math.max(1, term.length - 1)));

/**
 * Per line, the indexes of the query terms it holds (with repeats), as tokenising the whole line
 * would find them. Pure. Only the runs of word characters holding an occurrence of some term's
 * first letters count (a run holds whole words, so its tokens are the line's tokens there). A
 * joined identifier whose first letters span a separator (`a_b_c` for `abc`) is the one thing
 * missed.
 */
export function lineMatches(lines: readonly string[], terms: ReadonlySet<string>): number[][] {
  return scanLines(lines, terms).matches;
}

/**
 * lineMatches, plus where in each line its first matching word starts (-1: none). A line without
 * `known` words (of the current term ids) gets the pass of the probes over it (probe-scan.ts);
 * with them, what that pass would find is read off its runs: a run whose terms hold some of the
 * question's counts once when a probe occurs inside it, and once more per probe occurring on the
 * character just after it (half an astral letter, which is no run character: the pass widened
 * such an occurrence to the run before it).
 */
export function scanLines(lines: readonly string[], terms: ReadonlySet<string>, known?: KnownWords): { matches: number[][]; firstAt: number[] } {
  const firstAt = lines.map(() => -1);
  if (terms.size === 0) return { matches: lines.map(() => []), firstAt };
  startAgainWhenFull();
  const current = known?.generation === termGeneration();
  const { index, probeList, ids: qIds, bloom } = memoOf(terms);
  const matches = lines.map((line, li) => {
    const w = current ? known.lines[li] : undefined;
    if (!w) {
      const first = probeScanLine(line, terms, probeList);
      firstAt[li] = first.firstAt;
      return first.out;
    }
    const out: number[] = [];
    const n = w[0]!;
    if (n === SHIFTED) {
      // Lowercasing changed offsets (rare scripts): tokenise the line.
      for (const t of tokenize(line)) {
        const p = processTerm(t);
        const i = p ? index.get(p) : undefined;
        if (i !== undefined) out.push(i);
      }
      if (out.length > 0) firstAt[li] = 0;
      return out;
    }
    // The runs' term ids lie one after another (run r's from termFrom[r], at w[from + r]): one
    // pass over them with the bloom test, and only a run with an id that passes is looked at.
    scanned = line;
    scannedLower = undefined;
    const from = 1 + 2 * n;
    const idsEnd = w[from + n]!;
    let r = 0;
    for (let j = w[from]!; j < idsEnd; j++) {
      const id = w[j]!;
      if ((bloom[(id >>> 5) & 31]! & (1 << (id & 31))) === 0) continue;
      while (w[from + r + 1]! <= j) r++;
      // The run's ids before j failed the bloom test: none is a question term.
      const runEnd = w[from + r + 1]!;
      let found: number[] | undefined;
      for (let k = j; k < runEnd; k++) {
        const x = w[k]!;
        for (let q = 0; q < qIds.length; q++) if (qIds[q] === x) (found ??= []).push(q);
      }
      j = runEnd - 1;
      if (!found) continue;
      const a = w[1 + r]!;
      const b = w[1 + n + r]!;
      const times = (probeWithin(probeList, a, b) ? 1 : 0) + probesAtScanned(probeList, b);
      for (let k = 0; k < times; k++) for (const t of found) out.push(t);
      if (times > 0 && firstAt[li]! < 0) firstAt[li] = a;
    }
    return out;
  });
  return { matches, firstAt };
}

/**
 * The line whose runs are being counted, and its lowercased copy once a character other than
 * ASCII needed it. Lowercasing whole lines to test a few positions was a quarter of a snippet's
 * time; an ASCII character lowercases alone, and a line reaching here lowercases to the same
 * length (else its words are SHIFTED), so no position moves.
 */
let scanned = '';
let scannedLower: string | undefined;

/** The code unit at i of the scanned line, lowercased. */
function lowerAt(i: number): number {
  const c = scanned.charCodeAt(i);
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  return (scannedLower ??= scanned.toLowerCase()).charCodeAt(i);
}

/** Whether the lowercased scanned line holds `probe` at i, whose lowercased unit is `first` (its startsWith). */
function probeAt(probe: string, i: number, first: number): boolean {
  if (probe.charCodeAt(0) !== first || i + probe.length > scanned.length) return false;
  for (let k = 1; k < probe.length; k++) if (lowerAt(i + k) !== probe.charCodeAt(k)) return false;
  return true;
}

/** Whether some probe occurs in the lowercased scanned line starting at a position in [a, b). */
function probeWithin(probes: readonly string[], a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const first = lowerAt(i);
    for (let k = 0; k < probes.length; k++) if (probeAt(probes[k]!, i, first)) return true;
  }
  return false;
}

/** How many of the probes occur at i in the lowercased scanned line (probesAt). */
function probesAtScanned(probes: readonly string[], i: number): number {
  if (i >= scanned.length) return 0;
  const first = lowerAt(i);
  let n = 0;
  for (let k = 0; k < probes.length; k++) if (probeAt(probes[k]!, i, first)) n++;
  return n;
}

export interface Snippet {
  text: string;
  /** Line offsets inside the text (0-based, inclusive) that the snippet shows. */
  fromLine: number;
  toLine: number;
  truncated: boolean;
}

/** Lines of context kept above the first matching line, when they fit (a heading, a signature). */
export const LEAD_LINES = 2;

/**
 * Pure. The best window of whole lines that fits in maxChars: the most distinct query terms, then
 * the most matches (earliest on ties, so a chunk's heading or signature wins when nothing
 * matches). The window is then re-cut around its matching lines: LEAD_LINES above the first, then
 * as far down as fits, then up with what is left, so the matches are not pushed to its bottom
 * edge. A text that fits is shown whole. Never longer than maxChars (an ellipsis marks a cut).
 */
export function makeSnippet(text: string, terms: ReadonlySet<string>, maxChars: number): Snippet {
  return snippetOfLines(text.split('\n'), terms, maxChars);
}

/** makeSnippet of `lines.join('\n')`, with the lines' words when the caller holds them. */
export function snippetOfLines(lines: readonly string[], terms: ReadonlySet<string>, maxChars: number, known?: KnownWords): Snippet {
  let length = lines.length - 1;
  for (const l of lines) length += l.length;
  if (length <= maxChars) return { text: lines.join('\n'), fromLine: 0, toLine: lines.length - 1, truncated: false };
  const max = Math.max(1, maxChars);
  const { matches, firstAt } = scanLines(lines, terms, known);
  const counts = new Array<number>(terms.size).fill(0);
  let distinct = 0;
  let hits = 0;
  let best = { from: 0, to: -1, score: -1 };
  let from = 0;
  let len = -1; // sum of line lengths + newlines in the window
  const add = (i: number, d: 1 | -1): void => {
    for (const t of matches[i]!) {
      if (d > 0 && counts[t]++ === 0) distinct++;
      if (d < 0 && --counts[t]! === 0) distinct--;
    }
    hits += d * matches[i]!.length;
  };
  for (let to = 0; to < lines.length; to++) {
    len += lines[to]!.length + 1;
    add(to, 1);
    while (len > max && from < to) {
      len -= lines[from]!.length + 1;
      add(from, -1);
      from++;
    }
    const score = distinct * 1e6 + hits;
    if (len <= max && score > best.score) best = { from, to, score };
  }
  // A line too long to fit that holds more of the question than any window (a prose paragraph
  // on one line) is cut around its first match instead.
  const long = bestLongLine(lines, matches, max, terms.size);
  if (best.to < 0 || (long && long.distinct * 1e6 + long.hits > best.score)) {
    const i = long?.line ?? 0;
    return { text: cutLine(lines[i]!, Math.max(0, firstAt[i]!), max), fromLine: i, toLine: i, truncated: true };
  }
  const window = best.score > 0 ? recentre(lines, matches, best.from, best.to, max) : best;
  let out = lines.slice(window.from, window.to + 1).join('\n');
  const truncated = window.from > 0 || window.to < lines.length - 1;
  if (window.to < lines.length - 1 && out.length + 2 <= max) out = `${out}\n…`;
  if (out.length > max) out = `${out.slice(0, max - 1)}…`;
  return { text: out, fromLine: window.from, toLine: window.to, truncated };
}

/** The line longer than max with the most distinct terms, then matches (earliest on ties). */
function bestLongLine(lines: readonly string[], matches: readonly number[][], max: number, termCount: number): { line: number; distinct: number; hits: number } | null {
  let best: { line: number; distinct: number; hits: number } | null = null;
  let seen: Uint8Array | undefined;
  lines.forEach((l, i) => {
    const m = matches[i]!;
    if (l.length <= max || m.length === 0) return;
    // Distinct terms of the line: marked in a list as long as the question's terms, then unmarked.
    seen ??= new Uint8Array(termCount);
    let distinct = 0;
    for (const t of m) {
      if (seen[t] === 0) {
        seen[t] = 1;
        distinct++;
      }
    }
    for (const t of m) seen[t] = 0;
    if (!best || distinct > best.distinct || (distinct === best.distinct && m.length > best.hits)) best = { line: i, distinct, hits: m.length };
  });
  return best;
}

/** Pure. At most max chars of a long line, starting a little before `at` (on a word boundary), ellipses at the cuts. */
export function cutLine(line: string, at: number, max: number): string {
  if (line.length <= max) return line;
  let start = Math.max(0, at - Math.floor(max / 4));
  if (start > 0) {
    const space = line.indexOf(' ', start);
    start = space >= 0 && space < at ? space + 1 : start;
  }
  const head = start > 0 ? '…' : '';
  const room = max - head.length;
  const body = line.slice(start, start + room);
  return start + room >= line.length ? `${head}${body}` : `${head}${body.slice(0, room - 1)}…`;
}

/** The window's matching lines, LEAD_LINES above them, then down, then up, within max chars. */
function recentre(lines: readonly string[], matches: readonly number[][], from: number, to: number, max: number): { from: number; to: number } {
  let first = from;
  while (matches[first]!.length === 0) first++;
  let last = to;
  while (matches[last]!.length === 0) last--;
  let a = first;
  let b = last;
  let len = -1;
  for (let i = a; i <= b; i++) len += lines[i]!.length + 1;
  const fits = (i: number): boolean => len + lines[i]!.length + 1 <= max;
  for (let n = 0; n < LEAD_LINES && a > 0 && fits(a - 1); n++) len += lines[--a]!.length + 1;
  while (b < lines.length - 1 && fits(b + 1)) len += lines[++b]!.length + 1;
  while (a > 0 && fits(a - 1)) len += lines[--a]!.length + 1;
  return { from: a, to: b };
}

/** First paragraph of a topic body (headings and warning lines skipped), at most maxChars. */
export function bodySnippet(body: string, maxChars = 200): string {
  const paras = body
    .split(/\n\s*\n/)
    .map((p) =>
      p
        .split('\n')
        .filter((l) => !/^\s*#/.test(l) && !l.startsWith('> **Warning:**'))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
  const first = paras[0] ?? '';
  if (first.length <= maxChars) return first;
  const cut = first.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
}
