/**
 * Snippets: the part of a chunk worth showing, at most `maxChars`. A chunk that fits is shown
 * whole; a longer one is cut to the window of whole lines holding the most query terms (same
 * tokenisation as the lexical index, so `parseConfig` in a question lights up `parse_config`).
 */
import { processTerm, tokenize } from '../index/bm25/index.js';

export function queryTerms(query: string): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(query)) {
    const p = processTerm(t);
    if (p) out.add(p);
  }
  return out;
}

/**
 * Raw token -> index of its query term (or -1), memoised per query: the hits of one answer share
 * most of their words, and stemming each again was most of a 100-hit answer's snippet time.
 */
const termMemo = new WeakMap<ReadonlySet<string>, TermMemo>();

interface TermMemo {
  index: Map<string, number>;
  seen: Map<string, number>;
  /** A run of word characters -> the query terms its tokens are (the same words recur across hits). */
  runs: Map<string, readonly number[]>;
  /** The terms' probes (probeOf), distinct. */
  probeList: string[];
  /** Any probe: finds the next occurrence of any of them. */
  probes: RegExp;
}

function memoOf(terms: ReadonlySet<string>): TermMemo {
  let memo = termMemo.get(terms);
  if (!memo) {
    const probeList = [...new Set([...terms].map(probeOf))];
    // Code units, like indexOf (no `u` flag); an empty probe never matches (no term is empty).
    const alternatives = probeList.filter((p) => p !== '').map((p) => p.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
    const probes = alternatives.length > 0 ? new RegExp(alternatives.join('|'), 'g') : /(?!)/g;
    memo = { index: new Map([...terms].map((t, i) => [t, i])), seen: new Map(), runs: new Map(), probeList, probes };
    termMemo.set(terms, memo);
  }
  return memo;
}

function termIndexer(terms: ReadonlySet<string>): (token: string) => number {
  const { index, seen } = memoOf(terms);
  return (token) => {
    let i = seen.get(token);
    if (i === undefined) {
      const p = processTerm(token);
      i = p ? (index.get(p) ?? -1) : -1;
      seen.set(token, i);
    }
    return i;
  };
}

/**
 * Letters every word that becomes `term` starts with (lowercased): the stemmer only rewrites a
 * word's end past its first three letters, and shortens or changes the last letter of a short
 * stem (`sky` -> `ski`).
 */
const probeOf = (term: string): string => term.slice(0, Math.min(3, Math.max(1, term.length - 1)));

/** Characters a word (and the dotted, slashed or `::` chains the tokenizer keeps together) is made of. */
const RUN_CHAR = /[\p{L}\p{N}\p{M}_\-./:]/u;

function isRunChar(line: string, i: number): boolean {
  const c = line.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 45 && c <= 58) || c === 95; // a-z A-Z - . / 0-9 : _
  return RUN_CHAR.test(line[i]!);
}

/**
 * Per line, the indexes of the query terms it holds (with repeats), as tokenising the whole line
 * would find them. Pure. Only the runs of word characters around an occurrence of some term's
 * first letters are tokenised (a run holds whole words, so its tokens are the line's tokens
 * there): tokenising every line of every hit was most of a 100-hit answer's time. A joined
 * identifier whose first letters span a separator (`a_b_c` for `abc`) is the one thing missed.
 */
export function lineMatches(lines: readonly string[], terms: ReadonlySet<string>): number[][] {
  return scanLines(lines, terms).matches;
}

/** lineMatches, plus where in each line its first matching word starts (-1: none). */
export function scanLines(lines: readonly string[], terms: ReadonlySet<string>): { matches: number[][]; firstAt: number[] } {
  const firstAt = lines.map(() => -1);
  if (terms.size === 0) return { matches: lines.map(() => []), firstAt };
  const termOf = termIndexer(terms);
  const { runs, probes, probeList } = memoOf(terms);
  const count = (text: string, out: number[]): void => {
    for (const t of tokenize(text)) {
      const i = termOf(t);
      if (i >= 0) out.push(i);
    }
  };
  const matches = lines.map((line, n) => {
    const out: number[] = [];
    const lower = line.toLowerCase();
    if (lower.length !== line.length) {
      count(line, out); // lowercasing changed offsets (rare scripts): no shortcut
      if (out.length > 0) firstAt[n] = 0;
      return out;
    }
    // The next occurrence of any probe at or after `from`, in one pass of the regular expression:
    // what sorting every probe's occurrences and skipping those inside a counted run came to.
    for (let from = 0; from <= line.length; ) {
      probes.lastIndex = from;
      const m = probes.exec(lower);
      if (!m) break;
      const i = m.index;
      let a = i;
      while (a > 0 && isRunChar(line, a - 1)) a--;
      let b = i;
      while (b < line.length && isRunChar(line, b)) b++;
      const run = line.slice(a, b);
      let found = runs.get(run);
      if (!found) {
        const got: number[] = [];
        // A plain word's only token is the word; other runs' tokens are remembered across answers.
        for (const token of plainWord(run) ? [run] : tokensOf(run)) {
          const t = termOf(token);
          if (t >= 0) got.push(t);
        }
        runs.set(run, (found = got));
      }
      // No run at i (a character outside words that lowercases into a probe's first one): every
      // probe occurring there counted it, the way the occurrence-by-occurrence scan did.
      const times = b > i ? 1 : probesAt(probeList, lower, i);
      for (let k = 0; k < times; k++) for (const t of found) out.push(t);
      if (found.length > 0 && firstAt[n]! < 0) firstAt[n] = a;
      from = b > i ? b : i + 1;
    }
    return out;
  });
  return { matches, firstAt };
}

/** tokenize(run) for runs that are not plain words (`cells.`, `IL-6`, `p53`), whatever the query. */
const runTokens = new Map<string, readonly string[]>();
const RUN_TOKENS_MAX = 100_000;

function tokensOf(run: string): readonly string[] {
  let tokens = runTokens.get(run);
  if (!tokens) {
    if (runTokens.size >= RUN_TOKENS_MAX) runTokens.clear();
    runTokens.set(run, (tokens = tokenize(run)));
  }
  return tokens;
}

/** How many of the probes occur at `i` in `text`. */
function probesAt(probes: readonly string[], text: string, i: number): number {
  let n = 0;
  for (const p of probes) if (text.startsWith(p, i)) n++;
  return n;
}

/**
 * ASCII letters all lowercase, capitalised or all uppercase, or ASCII digits: the words the
 * tokenizer returns as they are (one token, the word), so they need no tokenising.
 */
export function plainWord(run: string): boolean {
  const n = run.length;
  if (n === 0) return false;
  const first = run.charCodeAt(0);
  if (first >= 48 && first <= 57) {
    for (let i = 1; i < n; i++) {
      const c = run.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }
  const upperFirst = first >= 65 && first <= 90;
  if (!upperFirst && !(first >= 97 && first <= 122)) return false;
  if (n === 1) return true;
  const second = run.charCodeAt(1);
  const lo = upperFirst && second >= 65 && second <= 90 ? 65 : 97;
  for (let i = 1; i < n; i++) {
    const c = run.charCodeAt(i);
    if (c < lo || c > lo + 25) return false;
  }
  return true;
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
  const lines = text.split('\n');
  if (text.length <= maxChars) return { text, fromLine: 0, toLine: lines.length - 1, truncated: false };
  const max = Math.max(1, maxChars);
  const { matches, firstAt } = scanLines(lines, terms);
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
  const long = bestLongLine(lines, matches, max);
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
function bestLongLine(lines: readonly string[], matches: readonly number[][], max: number): { line: number; distinct: number; hits: number } | null {
  let best: { line: number; distinct: number; hits: number } | null = null;
  lines.forEach((l, i) => {
    if (l.length <= max || matches[i]!.length === 0) return;
    const distinct = new Set(matches[i]).size;
    if (!best || distinct > best.distinct || (distinct === best.distinct && matches[i]!.length > best.hits)) best = { line: i, distinct, hits: matches[i]!.length };
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
