/**
 * Issue 4's targets and the published baselines (from /work/shared/bench/README.md), and the pure
 * checks that put ✓/✗ next to measured figures. Baselines are third-party numbers, quoted; every
 * figure of ours comes from a record.
 */
import { type BenchRecord, metric } from './records.js';

export interface Baseline {
  system: string;
  ndcg10: number;
  recall10?: number;
}

export const BASELINES: Record<string, Baseline[]> = {
  scifact: [
    { system: 'Lucene-style BM25 (k1=0.9, b=0.4, Porter), this copy', ndcg10: 0.677 },
    { system: 'BM25, Anserini (title+text as one field)', ndcg10: 0.679 },
    { system: 'BM25, title and text as separate fields', ndcg10: 0.665 },
    { system: 'all-MiniLM-L6-v2 (dense)', ndcg10: 0.645, recall10: 0.783 },
    { system: 'contriever-base-msmarco (dense)', ndcg10: 0.655 },
    { system: 'BGE-base-en-v1.5 (dense)', ndcg10: 0.741 },
  ],
  cosqa: [{ system: 'Lucene-style BM25 (k1=0.9, b=0.4, Porter), this split', ndcg10: 0.356, recall10: 0.528 }],
};

/** The BM25 figure the lexical target is measured against. */
export function luceneBm25(dataset: string): number | undefined {
  return BASELINES[dataset]?.[0]?.ndcg10;
}

export const TARGETS = {
  lexicalWithin: 0.02,
  hybridEmbedder: 'use-lite',
  warmP50Ms: 50,
  warmP95Ms: 150,
  coldP50Ms: 500,
  syncMs: 1000,
  lexicalChunksPerS: 2000,
} as const;

export interface Verdict {
  /** What is required, e.g. "≥ 0.663". */
  goal: string;
  ok: boolean;
}

export const mark = (v: Verdict | null): string => (v ? `${v.goal} ${v.ok ? '✓' : '✗'}` : '');

const pct = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;

/** Quality targets: lexical within 2% of Lucene BM25; hybrid (use-lite) above both halves. */
export function qualityVerdict(r: BenchRecord, all: readonly BenchRecord[]): Verdict | null {
  const ndcg = metric(r, 'ndcg10');
  if (ndcg === undefined) return null;
  if (r.mode === 'lexical') {
    const base = luceneBm25(r.dataset);
    if (base === undefined) return null;
    const floor = base * (1 - TARGETS.lexicalWithin);
    return { goal: `≥ ${floor.toFixed(3)} (BM25 ${base} −2%; ours ${pct(ndcg / base - 1)})`, ok: ndcg >= floor - 1e-9 };
  }
  if (r.mode === 'hybrid' && r.embedder === TARGETS.hybridEmbedder) {
    const sibling = (mode: string): number | undefined =>
      metric(
        all.find((x) => x.bench === 'quality' && x.dataset === r.dataset && x.embedder === r.embedder && x.mode === mode),
        'ndcg10',
      );
    const lex = sibling('lexical');
    const vec = sibling('vector');
    if (lex === undefined || vec === undefined) return null;
    return { goal: `> lexical ${lex.toFixed(3)} and > vector ${vec.toFixed(3)}`, ok: ndcg > lex && ndcg > vec };
  }
  return null;
}

/** Topic size class from the dataset label ("10k chunks"). */
export function sizeClass(dataset: string): string | null {
  const m = /^(\d+k)\b/.exec(dataset);
  return m ? m[1]! : null;
}

export function latencyVerdict(r: BenchRecord): Verdict | null {
  const p50 = metric(r, 'p50_ms');
  const p95 = metric(r, 'p95_ms');
  if (p50 === undefined || p95 === undefined) return null;
  const size = sizeClass(r.dataset);
  // The warm target is the query, not process start-up: a CLI process answered by the server pays
  // Node + oclif start-up on top, which the cold target covers.
  if (r.mode.startsWith('warm') && !r.mode.includes('CLI') && size === '100k') {
    return { goal: `p50 ≤ ${TARGETS.warmP50Ms} ms, p95 ≤ ${TARGETS.warmP95Ms} ms`, ok: p50 <= TARGETS.warmP50Ms && p95 <= TARGETS.warmP95Ms };
  }
  if (r.mode === 'cold' && size === '10k') {
    return { goal: `p50 ≤ ${TARGETS.coldP50Ms} ms`, ok: p50 <= TARGETS.coldP50Ms };
  }
  return null;
}

export function throughputVerdict(r: BenchRecord): Verdict | null {
  if (r.mode === 'lexical') {
    const rate = metric(r, 'chunks_per_s');
    return rate === undefined ? null : { goal: `≥ ${TARGETS.lexicalChunksPerS.toLocaleString('en-US')} chunks/s`, ok: rate >= TARGETS.lexicalChunksPerS };
  }
  if (r.mode === 'embed') {
    const again = metric(r, 'reembedded_on_rerun');
    return again === undefined ? null : { goal: `unchanged text re-embedded: ${again}`, ok: again === 0 };
  }
  return null;
}

/** Every run must be searchable within the target, so the slowest run decides. */
export function syncVerdict(r: BenchRecord): Verdict | null {
  const max = metric(r, 'max_ms');
  return max === undefined ? null : { goal: `every run ≤ ${TARGETS.syncMs.toLocaleString('en-US')} ms`, ok: max <= TARGETS.syncMs };
}

/**
 * Issue 15's head-to-head targets: topic create ≤ 0.8× qmd's index, cold search ≤ 0.9× qmd's,
 * both in the same run; warm with 100 hits ≤ 10 ms at SciFact scale (ours alone).
 */
export const PEER_TARGETS = { indexRatio: 0.8, coldRatio: 0.9, warm100Ms: 10 } as const;

export function peersVerdict(r: BenchRecord): Verdict | null {
  const ratio = metric(r, 'ratio');
  if (r.mode.startsWith('index') && ratio !== undefined) return { goal: `≤ ${PEER_TARGETS.indexRatio}×`, ok: ratio <= PEER_TARGETS.indexRatio };
  if (r.mode.startsWith('cold') && ratio !== undefined) return { goal: `≤ ${PEER_TARGETS.coldRatio}×`, ok: ratio <= PEER_TARGETS.coldRatio };
  const ours = metric(r, 'ours_p50_ms');
  if (r.mode.startsWith('warm') && r.mode.includes('100 hits') && ours !== undefined) {
    return { goal: `ours ≤ ${PEER_TARGETS.warm100Ms} ms`, ok: ours <= PEER_TARGETS.warm100Ms };
  }
  return null;
}
