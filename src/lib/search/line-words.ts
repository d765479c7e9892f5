/**
 * The words of snippet lines, found once per chunk text and kept with it (chunk-cache.ts) between
 * answers: a warm `serve`/`mcp` shows the same chunks again and again, each time for another
 * question. A line's words list only its runs that can match a question at all (a run: the
 * characters a word and the dotted, slashed or `::` chains the tokenizer keeps together are made
 * of), each with its terms as the lexical index makes them; stop words and one-letter words have
 * none and are left out. A question then costs a comparison of small integers per listed run,
 * instead of a regular-expression pass over every character of every line and the tokenising and
 * stemming of what it found.
 */
import { processTerm, tokenize } from '../index/bm25/index.js';

/**
 * One line's words, packed in one array (a few typed arrays per line cost more in headers than
 * they hold): `[n, start × n, end × n, termFrom × (n + 1), term ids…]` for its n listed runs.
 * Run r spans [start, end) of the line; its terms (termIdOf ids, in token order) sit at
 * indexes termFrom[r] to termFrom[r + 1] - 1 of the array itself. n = -1: lowercasing changes
 * the line's length (rare scripts), offsets do not line up, no shortcut.
 */
export type LineWords = Int32Array;

export const SHIFTED = -1;

/** Characters a word (and the dotted, slashed or `::` chains the tokenizer keeps together) is made of. */
const RUN_CHAR = /[\p{L}\p{N}\p{M}_\-./:]/u;

/** One code unit: half an astral letter is no run character (the scan this replaced looked the same way). */
export function isRunChar(line: string, i: number): boolean {
  const c = line.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 45 && c <= 58) || c === 95; // a-z A-Z - . / 0-9 : _
  return RUN_CHAR.test(line[i]!);
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

/**
 * Run text -> its tokens' terms as ids (processTerm, nulls dropped): -1 none, an id, or several
 * in token order. The runs of a corpus recur (most are words): each is tokenised and stemmed once.
 */
const vocabulary = new Map<string, number | readonly number[]>();
/** Term -> a small integer: a question's terms are compared with a run's as numbers. */
const termIds = new Map<string, number>();
/** Past this many runs (or terms) both start again. */
const VOCABULARY_MAX = 200_000;
/** Bumped when the term ids start again: ids (and LineWords) from before are then stale. */
let generation = 0;

export const termGeneration = (): number => generation;

/**
 * Starts the vocabulary again when it is full. Only here, called before a batch of lines, so the
 * ids cannot change meaning while one answer's lines are read.
 */
export function startAgainWhenFull(): void {
  if (vocabulary.size <= VOCABULARY_MAX && termIds.size <= VOCABULARY_MAX) return;
  vocabulary.clear();
  termIds.clear();
  generation++;
}

/** The id of `term` (given one now when it has none). */
export function termIdOf(term: string): number {
  let id = termIds.get(term);
  if (id === undefined) termIds.set(term, (id = termIds.size));
  return id;
}

function termsOfRun(run: string): number | readonly number[] {
  let ids = vocabulary.get(run);
  if (ids === undefined) {
    const out: number[] = [];
    for (const token of plainWord(run) ? [run] : tokenize(run)) {
      const p = processTerm(token);
      if (p) out.push(termIdOf(p));
    }
    ids = out.length === 0 ? -1 : out.length === 1 ? out[0]! : out;
    // A run sliced from a line would keep the whole line (or file) alive.
    vocabulary.set(copy(run), ids);
  }
  return ids;
}

/** A string of its own: a slice keeps the string it was cut from alive (a whole file, for a widened hit). */
const copy = (s: string): string => Buffer.from(s, 'utf16le').toString('utf16le');

/**
 * A line's words, with ids of the current termGeneration (the runs' terms are memoised; the
 * line's array is the caller's to keep).
 */
export function lineWords(line: string): LineWords {
  if (line.toLowerCase().length !== line.length) return Int32Array.of(SHIFTED);
  const starts: number[] = [];
  const ends: number[] = [];
  const runTerms: (number | readonly number[])[] = [];
  let termCount = 0;
  for (let i = 0; i < line.length; ) {
    if (!isRunChar(line, i)) {
      i++;
      continue;
    }
    let b = i + 1;
    while (b < line.length && isRunChar(line, b)) b++;
    const ids = termsOfRun(line.slice(i, b));
    if (ids !== -1) {
      starts.push(i);
      ends.push(b);
      runTerms.push(ids);
      termCount += typeof ids === 'number' ? 1 : ids.length;
    }
    i = b;
  }
  const n = starts.length;
  const w = new Int32Array(1 + 3 * n + 1 + termCount);
  w[0] = n;
  let at = 2 + 3 * n; // where the term ids start
  for (let r = 0; r < n; r++) {
    w[1 + r] = starts[r]!;
    w[1 + n + r] = ends[r]!;
    w[1 + 2 * n + r] = at;
    const ids = runTerms[r]!;
    if (typeof ids === 'number') w[at++] = ids;
    else for (const id of ids) w[at++] = id;
  }
  w[1 + 3 * n] = at;
  return w;
}

