/**
 * Retrieval metrics with trec_eval conventions (the ones BEIR reports):
 * nDCG@10 with gain = judged score and discount log2(rank + 1), Recall@10 and MRR@10.
 * A document counts as relevant when its judged score is > 0.
 */

/** query id -> (doc id -> judged score) */
export type Qrels = Map<string, Map<string, number>>;
/** query id -> doc ids, best first */
export type Run = Map<string, string[]>;

export interface QueryScores {
  ndcg10: number;
  recall10: number;
  mrr10: number;
}

export interface Evaluation extends QueryScores {
  /** Number of queries averaged over (queries in qrels with at least one relevant document). */
  queries: number;
  perQuery: Map<string, QueryScores>;
}

const CUTOFF = 10;

/** First occurrence wins: a document keeps its best rank, as when mapping chunks back to documents. */
function topUnique(ranked: readonly string[], cutoff: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    if (out.length === cutoff) break;
  }
  return out;
}

function relevantCount(judged: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const score of judged.values()) if (score > 0) n++;
  return n;
}

export function ndcgAt10(ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const top = topUnique(ranked, CUTOFF);
  let dcg = 0;
  top.forEach((id, i) => {
    const gain = judged.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, CUTOFF);
  let idcg = 0;
  ideal.forEach((gain, i) => {
    idcg += gain / Math.log2(i + 2);
  });
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt10(ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const total = relevantCount(judged);
  if (total === 0) return 0;
  const hits = topUnique(ranked, CUTOFF).filter((id) => (judged.get(id) ?? 0) > 0).length;
  return hits / total;
}

export function mrrAt10(ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const top = topUnique(ranked, CUTOFF);
  const index = top.findIndex((id) => (judged.get(id) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/**
 * Averages over every query in qrels that has a relevant document; a query missing from the run
 * scores 0 (trec_eval -c), so an engine cannot gain by answering nothing.
 */
export function evaluate(run: Run, qrels: Qrels): Evaluation {
  const perQuery = new Map<string, QueryScores>();
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const [qid, judged] of qrels) {
    if (relevantCount(judged) === 0) continue;
    const ranked = run.get(qid) ?? [];
    const scores = {
      ndcg10: ndcgAt10(ranked, judged),
      recall10: recallAt10(ranked, judged),
      mrr10: mrrAt10(ranked, judged),
    };
    perQuery.set(qid, scores);
    ndcg += scores.ndcg10;
    recall += scores.recall10;
    mrr += scores.mrr10;
  }
  const n = perQuery.size;
  return {
    queries: n,
    ndcg10: n ? ndcg / n : 0,
    recall10: n ? recall / n : 0,
    mrr10: n ? mrr / n : 0,
    perQuery,
  };
}
