/**
 * A segmented BM25F engine for chunk search. A topic's lexical index is a list of immutable
 * segments (a base plus small deltas) and a liveness mask per segment decided by the caller;
 * searchSegments scores them as one corpus: N, the average length and every df are computed over
 * the live docs of all views at query time, so base + deltas with dead docs rank exactly like a
 * fresh build of the live docs. Storage lives in format.ts, building in segment.ts.
 * Defaults were tuned by bench/lexical-quality.ts (see its header for the experiment table).
 */
import { TkomaError } from '../../errors.js';
import { segmentData, type Bm25Segment, type SegmentData } from './segment-data.js';
import { FileSegment, termPostings } from './segment-file.js';
import { releaseScratch, takeScratch, TopK } from './topk.js';
import { processTerm, segmentParts, tokenize, WORD } from './tokenize.js';


export interface Bm25QueryParams {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation: 0 = none, 1 = full. */
  b: number;
}

/**
 * Higher saturation and full length normalisation (Lucene uses 0.9 / 0.4) won on prose and code
 * alike; chunks are size-bounded, so b = 1 cannot bury a long document (bench header).
 */
export const DEFAULT_QUERY: Bm25QueryParams = { k1: 1.5, b: 1 };

/**
 * The field weights a segment was built with (stored in it). Views searched together should
 * share them: compare with DEFAULT_BUILD to find segments to rebuild after the defaults change.
 */
export function segmentFieldWeights(seg: Bm25Segment): number[] {
  return [...segmentData(seg).fieldWeights];
}

/**
 * The ids of a segment as one text and its UTF-16 offsets (doc d: offsets[d]..offsets[d + 1]).
 * The text is given as its UTF-8 bytes when the segment kept them (a file's ASCII ids): hashing
 * those is hashing the text, without making it.
 */
export function segmentIdParts(seg: Bm25Segment): { text: string | Uint8Array; offsets: Uint32Array } {
  const s = segmentData(seg);
  return { text: (s instanceof FileSegment ? s.idUtf8() : undefined) ?? s.idText, offsets: s.idOffsets };
}

export interface SegmentView {
  segment: Bm25Segment;
  /** live[doc] === 1 means live (anything else, or past its end, is dead); absent = all live. */
  live?: Uint8Array;
}

export interface Bm25Hit {
  /** Index into the views passed to searchSegments. */
  view: number;
  /** Doc number inside that view's segment. */
  doc: number;
  id: string;
  score: number;
}

export interface Bm25SearchOptions {
  params?: Bm25QueryParams;
  /** Drops ids before the limit is applied (called only for docs that would make the cut); `view` is the doc's view. */
  accept?: (id: string, view: number) => boolean;
  /** Weight of a query term that only comes from splitting a word (queryTermWeights); 1 (default) = as any term. */
  splitPartWeight?: number;
}

/**
 * Distinct index terms of a query, in first-seen order. A repeated word counts once: queries
 * are questions and identifiers, where repetition is mostly an accident of phrasing (and the
 * identifier splitter already repeats parts: `parse_config` gives parse, config, parseconfig).
 */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of tokenize(query)) {
    const term = processTerm(raw);
    if (term === null || seen.has(term)) continue;
    seen.add(term);
    out.push(term);
  }
  return out;
}

/**
 * queryTerms with a weight each: 1 for a plain word and for a split word joined (`typescript`),
 * `partWeight` for a term that only comes from splitting a word (`type`, `script` of `TypeScript`),
 * unless the query also has it as a word of its own.
 */
export function queryTermWeights(query: string, partWeight: number): { terms: string[]; weights: number[] } {
  const weight = new Map<string, number>();
  const add = (raw: string, w: number): void => {
    const term = processTerm(raw);
    if (term !== null) weight.set(term, Math.max(weight.get(term) ?? 0, w));
  };
  // A fresh regex: matchAll starts at the shared WORD's lastIndex, which the tokenizer moves.
  for (const m of query.matchAll(new RegExp(WORD))) {
    for (const segment of m[0].split(/::|[-./]/)) {
      const parts = segmentParts(segment, true);
      if (parts.length === 1) add(parts[0]!, 1);
      else {
        for (const part of parts) add(part, partWeight);
        add(parts.join(''), 1);
      }
    }
  }
  // queryTerms' order, so scores add up in the same order as an unweighted search.
  const terms = queryTerms(query);
  return { terms, weights: terms.map((t) => weight.get(t) ?? 1) };
}

function checkParams(p: Bm25QueryParams): void {
  if (!(p.k1 >= 0 && Number.isFinite(p.k1) && p.b >= 0 && p.b <= 1)) {
    throw new TkomaError('INTERNAL', 'BM25 needs k1 >= 0 and 0 <= b <= 1.', { k1: p.k1, b: p.b });
  }
}

/** Live docs and their total weighted length over every view, and the live docs of each. */
function corpusStats(segs: readonly SegmentData[], views: readonly SegmentView[]): { n: number; total: number; perView: number[] } {
  let n = 0;
  let total = 0;
  const perView = segs.map((s, v) => {
    const live = views[v]!.live;
    if (!live) {
      n += s.docCount;
      total += s.totalLen;
      return s.docCount;
    }
    let docs = 0;
    for (let d = 0; d < s.docCount; d++) {
      if (live[d] === 1) {
        docs++;
        total += s.docLen[d]!;
      }
    }
    n += docs;
    return docs;
  });
  return { n, total, perView };
}

function livePostings(s: SegmentData, t: number, live: Uint8Array | undefined): number {
  const start = s.postStart[t]!;
  const end = s.postStart[t + 1]!;
  if (!live) return end - start;
  const { docs } = termPostings(s, t);
  let n = 0;
  for (let p = 0; p < docs.length; p++) if (live[docs[p]!] === 1) n++;
  return n;
}

/**
 * What a query's terms are over the views it searched: collection statistics of each view
 * (topic choice weighs a topic by how often its docs hold the query's words, search/topic-choice.ts).
 */
export interface QueryTermStats {
  /** The query's distinct terms (queryTerms). */
  terms: string[];
  /** Per term: its idf over every view, times its weight, as it scored the hits (0: in no live doc). */
  idf: number[];
  /** Live docs per view. */
  docs: number[];
  /** df[q][v]: live docs of view v holding term q. */
  df: number[][];
}

/**
 * Best `limit` docs for `query` over all views, best first; equal scores are ordered by id, then
 * view. BM25F per doc: sum over distinct query terms of idf * tf (k1 + 1) / (tf + k1 (1 - b +
 * b dl / avgdl)) with Lucene's idf log(1 + (N - df + 0.5) / (df + 0.5)).
 */
export function searchSegments(
  views: readonly SegmentView[],
  query: string,
  limit: number,
  opts: Bm25SearchOptions = {},
): Bm25Hit[] {
  return searchSegmentsWithStats(views, query, limit, opts).hits;
}

/** searchSegments, with the query terms' statistics per view (null when the query has no term or nothing to search). */
export function searchSegmentsWithStats(
  views: readonly SegmentView[],
  query: string,
  limit: number,
  opts: Bm25SearchOptions = {},
): { hits: Bm25Hit[]; stats: QueryTermStats | null } {
  const k = Math.floor(limit);
  if (!(k > 0) || views.length === 0) return { hits: [], stats: null };
  const partWeight = opts.splitPartWeight ?? 1;
  const { terms, weights } = partWeight === 1 ? { terms: queryTerms(query), weights: null } : queryTermWeights(query, partWeight);
  if (terms.length === 0) return { hits: [], stats: null };
  const { k1, b } = opts.params ?? DEFAULT_QUERY;
  checkParams({ k1, b });
  const segs = views.map((v) => segmentData(v.segment));
  const { n, total, perView } = corpusStats(segs, views);
  if (n === 0) return { hits: [], stats: null };
  const avgdl = total / n;

  // Term numbers per view (-1 = absent) and live df per view and overall, before any scoring.
  const found = segs.map((s) => terms.map((t) => s.findTerm(t)));
  const df = terms.map((_, q) => segs.map((s, v) => {
    const t = found[v]![q]!;
    return t >= 0 ? livePostings(s, t, views[v]!.live) : 0;
  }));
  const idf = terms.map((_, q) => {
    const all = df[q]!.reduce((a, x) => a + x, 0);
    // A weighted term scales its idf: its share of every doc's score, as a query-time boost does.
    return all === 0 ? 0 : Math.log(1 + (n - all + 0.5) / (all + 0.5)) * (weights ? weights[q]! : 1);
  });

  const top = new TopK(Math.min(k, n), opts.accept);
  // Per-doc length factor k1 (1 - b + b dl / avgdl) = c0 + c1 dl.
  const c0 = k1 * (1 - b);
  const c1 = avgdl > 0 ? (k1 * b) / avgdl : 0;
  segs.forEach((s, v) => {
    const tnums = found[v]!;
    if (tnums.every((t, q) => t < 0 || idf[q] === 0)) return;
    const acc = takeScratch(s.docCount);
    try {
      accumulate(s, views[v]!.live, tnums, idf, acc, k1, c0, c1);
      // Every stored tf is > 0 and every used idf > 0, so a score of 0 means "not matched".
      for (let d = 0; d < acc.length; d++) {
        const score = acc[d]!;
        if (score > 0) top.offer(score, v, d, s);
      }
    } finally {
      releaseScratch(acc);
    }
  });
  return { hits: top.sorted(), stats: { terms, idf, docs: perView, df } };
}

/**
 * Adds every live posting's BM25 contribution to acc[doc]. Query-term order is the same for every
 * view, so a doc's sum is computed in the same order whichever segment holds it.
 */
function accumulate(
  s: SegmentData,
  live: Uint8Array | undefined,
  tnums: readonly number[],
  idf: readonly number[],
  acc: Float64Array,
  k1: number,
  c0: number,
  c1: number,
): void {
  const { docLen } = s;
  for (let q = 0; q < tnums.length; q++) {
    const t = tnums[q]!;
    const w = idf[q]! * (k1 + 1);
    if (t < 0 || w === 0) continue;
    const { docs, tfs } = termPostings(s, t);
    for (let p = 0; p < docs.length; p++) {
      const d = docs[p]!;
      if (live && live[d] !== 1) continue;
      const tf = tfs[p]!;
      acc[d] += (w * tf) / (tf + c0 + c1 * docLen[d]!);
    }
  }
}
