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
import { tokenize } from '../index/bm25/tokenize.js';
import { processTermUnmemoised } from '../index/bm25/tokenize.js';
import { grown } from '../typed-array.js';

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
 * The vocabulary of runs: run -> its tokens' terms as ids (processTerm, nulls dropped), -1 none,
 * an id, or several in token order. The runs of a corpus recur (most are words): each is
 * tokenised and stemmed once. Runs are looked up by two 32-bit hashes of their characters
 * (and length), computed while the line is scanned, in an open-addressing table of typed arrays:
 * no string is cut or hashed for a run already known, and the table stays small enough for the
 * processor's cache (a Map of strings cost most of a line's reading). Two distinct runs share
 * both hashes with a chance of about 2^-64 per pair (1e-9 for a full vocabulary); the runs' own
 * texts are not compared.
 */
const TABLE_BITS = 18;
const FNV_OFFSET = 2166136261 | 0;
const FNV_PRIME = 16777619;
const SEED = 0x9747b28c | 0;
const MURMUR_M = 0x5bd1e995;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const slotHash1 = new Int32Array(1 << TABLE_BITS);
const slotHash2 = new Int32Array(1 << TABLE_BITS);
/** Run id + 1 per slot (0: empty). */
const slotRun = new Int32Array(1 << TABLE_BITS);
const runTerms: (number | readonly number[])[] = [];
/** Term -> a small integer: a question's terms are compared with a run's as numbers. */
const termIds = new Map<string, number>();
/** Past this many runs (or terms) both start again (the table is then 60% full). */
const VOCABULARY_MAX = 150_000;
/** Bumped when the term ids start again: ids (and LineWords) from before are then stale. */
let generation = 0;

export const termGeneration = (): number => generation;

/**
 * Starts the vocabulary again when it is full. Only here, called before a batch of lines, so the
 * ids cannot change meaning while one answer's lines are read.
 */
export function startAgainWhenFull(): void {
  if (runTerms.length <= VOCABULARY_MAX && termIds.size <= VOCABULARY_MAX) return;
  slotRun.fill(0);
  runTerms.length = 0;
  termIds.clear();
  generation++;
}

/** The id of `term` (given one now when it has none). */
export function termIdOf(term: string): number {
  let id = termIds.get(term);
  if (id === undefined) termIds.set(term, (id = termIds.size));
  return id;
}

/** A new run's terms. The vocabulary asks once per run: processTerm's own memo would only grow. */
function termsOf(run: string): number | readonly number[] {
  const out: number[] = [];
  for (const token of plainWord(run) ? [run] : tokenize(run)) {
    const p = processTermUnmemoised(token);
    if (p) out.push(termIdOf(p));
  }
  return out.length === 0 ? -1 : out.length === 1 ? out[0]! : out;
}

/** The index in runTerms of the run termsOfRun last answered for. */
let runIndex = 0;

/** The terms of the run line[a, b), whose hashes are h1 and h2: from the table, else found and added. */
function termsOfRun(line: string, a: number, b: number, h1: number, h2: number): number | readonly number[] {
  for (let slot = h1 & TABLE_MASK; ; slot = (slot + 1) & TABLE_MASK) {
    const run = slotRun[slot]!;
    if (run === 0) {
      const terms = termsOf(line.slice(a, b));
      runIndex = runTerms.length;
      runTerms.push(terms);
      slotHash1[slot] = h1;
      slotHash2[slot] = h2;
      slotRun[slot] = runTerms.length;
      return terms;
    }
    if (slotHash1[slot] === h1 && slotHash2[slot] === h2) {
      runIndex = run - 1;
      return runTerms[runIndex]!;
    }
  }
}

/**
 * A line's words, with ids of the current termGeneration (the runs' terms are memoised; the
 * line's array is the caller's to keep).
 */
export function lineWords(line: string): LineWords {
  const length = line.length;
  let ascii = true;
  let n = 0;
  let termCount = 0;
  for (let i = 0; i < length; ) {
    if (line.charCodeAt(i) >= 128) ascii = false;
    if (!isRunChar(line, i)) {
      i++;
      continue;
    }
    let h1 = FNV_OFFSET;
    let h2 = SEED;
    let b = i;
    do {
      const c = line.charCodeAt(b);
      if (c >= 128) ascii = false;
      h1 = Math.imul(h1 ^ c, FNV_PRIME);
      h2 = Math.imul(h2 ^ c, MURMUR_M) ^ (h2 >>> 13);
      b++;
    } while (b < length && isRunChar(line, b));
    const terms = termsOfRun(line, i, b, h1, Math.imul(h2 ^ (b - i), MURMUR_M) ^ (h2 >>> 15));
    if (terms !== -1) {
      if (3 * n + 3 > scratch.length) scratch = grown(scratch, new Int32Array(2 * scratch.length));
      scratch[3 * n] = i;
      scratch[3 * n + 1] = b;
      scratch[3 * n + 2] = runIndex;
      n++;
      termCount += typeof terms === 'number' ? 1 : terms.length;
    }
    i = b;
  }
  // Only a line with other than ASCII can lowercase to another length.
  if (!ascii && line.toLowerCase().length !== length) return Int32Array.of(SHIFTED);
  const w = new Int32Array(2 + 3 * n + termCount);
  w[0] = n;
  let at = 2 + 3 * n; // where the term ids start
  for (let r = 0; r < n; r++) {
    w[1 + r] = scratch[3 * r]!;
    w[1 + n + r] = scratch[3 * r + 1]!;
    w[1 + 2 * n + r] = at;
    const terms = runTerms[scratch[3 * r + 2]!]!;
    if (typeof terms === 'number') w[at++] = terms;
    else for (const id of terms) w[at++] = id;
  }
  w[1 + 3 * n] = at;
  return w;
}

/** (start, end, run index) of the listed runs of the line being read. */
let scratch: Int32Array = new Int32Array(3 * 256);


