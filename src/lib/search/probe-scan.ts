/**
 * The first sight of a line: a pass of the question's probes (the first letters of its terms)
 * over the lowercased line, tokenising only the runs of word characters around an occurrence.
 * Reading a line's words (line-words.ts) costs more than this pass the first time, so a chunk's
 * words are only read once it comes back (chunk-cache.ts): a one-shot search, and a warm process
 * meeting a chunk once, pay no more than this pass. Both ways give the same matches (the
 * generated-lines test in test/search/snippet.test.ts checks each against the scan they replaced).
 */
import { processTerm, tokenize } from '../index/bm25/tokenize.js';
import { isRunChar, plainWord } from './line-words.js';

interface ProbeMemo {
  /** Term -> its index in the question's terms. */
  index: Map<string, number>;
  /** Raw token -> index of its query term (or -1): the hits of one answer share most words. */
  seen: Map<string, number>;
  /** A run of word characters -> the query terms its tokens are (the same words recur across hits). */
  runs: Map<string, readonly number[]>;
  /** Any probe: finds the next occurrence of any of them. */
  probes: RegExp;
}

/** Per question (its terms' Set): the hits of one answer share it. */
const memos = new WeakMap<ReadonlySet<string>, ProbeMemo>();

function memoOf(terms: ReadonlySet<string>, probeList: readonly string[]): ProbeMemo {
  let memo = memos.get(terms);
  if (!memo) {
    // Code units, like indexOf (no `u` flag); an empty probe never matches (no term is empty).
    const alternatives = probeList.map((p) => p.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
    const probes = alternatives.length > 0 ? new RegExp(alternatives.join('|'), 'g') : /(?!)/g;
    memo = { index: new Map([...terms].map((t, i) => [t, i])), seen: new Map(), runs: new Map(), probes };
    memos.set(terms, memo);
  }
  return memo;
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
 * The indexes of the question's terms that `line` holds (with repeats), and where its first
 * matching word starts (-1: none). `probeList`: the terms' probes, distinct and non-empty.
 */
export function probeScanLine(line: string, terms: ReadonlySet<string>, probeList: readonly string[]): { out: number[]; firstAt: number } {
  const { index, seen, runs, probes } = memoOf(terms, probeList);
  const termOf = (token: string): number => {
    let i = seen.get(token);
    if (i === undefined) {
      const p = processTerm(token);
      i = p ? (index.get(p) ?? -1) : -1;
      seen.set(token, i);
    }
    return i;
  };
  const out: number[] = [];
  let firstAt = -1;
  const lower = line.toLowerCase();
  if (lower.length !== line.length) {
    // Lowercasing changed offsets (rare scripts): no shortcut.
    for (const t of tokenize(line)) {
      const i = termOf(t);
      if (i >= 0) out.push(i);
    }
    return { out, firstAt: out.length > 0 ? 0 : -1 };
  }
  // The next occurrence of any probe at or after `from`, in one pass of the regular expression.
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
      // A plain word's only token is the word.
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
    if (found.length > 0 && firstAt < 0) firstAt = a;
    from = b > i ? b : i + 1;
  }
  return { out, firstAt };
}
