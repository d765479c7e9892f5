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

function lineHits(line: string, terms: ReadonlySet<string>): number {
  if (terms.size === 0) return 0;
  let n = 0;
  for (const t of tokenize(line)) {
    const p = processTerm(t);
    if (p && terms.has(p)) n++;
  }
  return n;
}

export interface Snippet {
  text: string;
  /** Line offsets inside the chunk (0-based, inclusive) that the snippet shows. */
  fromLine: number;
  toLine: number;
  truncated: boolean;
}

/** Pure. Never longer than maxChars (an ellipsis marks a cut). */
export function makeSnippet(text: string, terms: ReadonlySet<string>, maxChars: number): Snippet {
  const lines = text.split('\n');
  if (text.length <= maxChars) return { text, fromLine: 0, toLine: lines.length - 1, truncated: false };
  const max = Math.max(1, maxChars);
  const hits = lines.map((l) => lineHits(l, terms));
  // Slide a window of whole lines that fits in max chars; keep the one with the most hits
  // (earliest on ties, so a chunk's heading or signature wins when nothing matches).
  let best = { from: 0, to: -1, hits: -1 };
  let from = 0;
  let len = -1; // sum of line lengths + newlines in the window
  let windowHits = 0;
  for (let to = 0; to < lines.length; to++) {
    len += lines[to]!.length + 1;
    windowHits += hits[to]!;
    while (len > max && from < to) {
      len -= lines[from]!.length + 1;
      windowHits -= hits[from]!;
      from++;
    }
    if (len <= max && windowHits > best.hits) best = { from, to, hits: windowHits };
  }
  if (best.to < 0) {
    // Even one line is too long: cut the first line with a hit (or the first) around its hit.
    const i = Math.max(0, hits.findIndex((h) => h > 0));
    const line = lines[i]!;
    return { text: `${line.slice(0, max - 1)}…`, fromLine: i, toLine: i, truncated: true };
  }
  let out = lines.slice(best.from, best.to + 1).join('\n');
  const truncated = best.from > 0 || best.to < lines.length - 1;
  if (best.to < lines.length - 1 && out.length + 2 <= max) out = `${out}\n…`;
  if (out.length > max) out = `${out.slice(0, max - 1)}…`;
  return { text: out, fromLine: best.from, toLine: best.to, truncated };
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
