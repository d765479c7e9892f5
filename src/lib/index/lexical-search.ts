/**
 * BM25 queries over loaded topic indexes: one topic, or several scored as one corpus. A posting
 * found damaged as a query reads it reloads the index with every posting checked, once.
 */
import { TkomaError } from '../errors.js';
import type { QueryTermStats } from './bm25/query.js';
import { reloadCheckingPostings, type TopicIndex } from './topic-index.js';

/**
 * Best `limit` live chunk ids for `query` by BM25 over every segment, best first. Postings left in
 * their files are checked as a query reads them; when one fails, the topic's segments are loaded
 * again with every posting checked (a damaged lexical part rebuilt from its texts, in memory, for
 * the next verifying sync to write back) and the query runs again.
 */
export async function searchLexical(
  index: TopicIndex,
  query: string,
  limit: number,
  accept?: (id: string) => boolean,
): Promise<{ id: string; score: number }[]> {
  const { searchSegments } = await import('./bm25/query.js');
  const run = (): { id: string; score: number }[] => {
    const views = index.segments.map((s) => (s.allLive ? { segment: s.segment.lex } : { segment: s.segment.lex, live: s.live }));
    return searchSegments(views, query, limit, accept ? { accept } : {}).map((h) => ({ id: h.id, score: h.score }));
  };
  try {
    return run();
  } catch (err) {
    if (!(err instanceof TkomaError && err.code === 'DAMAGED_STATE') || !(await reloadCheckingPostings(index))) throw err;
    return run();
  }
}

/**
 * Across topics, a query term that only comes from splitting a word counts half: `TypeScript`
 * gives typescript, type and script, and any library's page naming TypeScript matched "the
 * TypeScript type of the options" three times over (fast-json-stable-stringify's question went to
 * @oclif/core's README). Inside one topic the parts stay whole: there they find the identifier's
 * relatives (`parseConfig` → `config`), and at half weight SciFact fell to 0.7011 and CoSQA to
 * 0.4095. bench/cross-topic.ts topic choice: 1 (before) 0.936, 0.75 / 0.5 / 0.25 / 0 all 0.947;
 * `--all` / `--topic` 0.957 → 0.960 at 0.5.
 */
export const ACROSS_SPLIT_PART_WEIGHT = 0.5;

/**
 * The query's terms over the topics searched together: QueryTermStats with its views summed per
 * topic, so `docs[i]` and `df[q][i]` are index i's (position in `indexes`).
 */
export type AcrossTermStats = QueryTermStats;

/**
 * One BM25 query over several topics scored as one corpus: N, the average length and every df
 * are taken over the live docs of all of them, so a score means the same in every topic. (Per
 * topic, a word rare in a one-file topic gets almost no idf there, and a split-token match in a
 * big topic outranks the exact identifier.) Hits name their index by position in `indexes`;
 * `stats` are the query terms' counts per topic (null for a query without terms).
 */
export async function searchLexicalAcross(
  indexes: readonly TopicIndex[],
  query: string,
  limit: number,
  accept?: (index: number, id: string) => boolean,
): Promise<{ hits: { index: number; id: string; score: number }[]; stats: AcrossTermStats | null }> {
  const { searchSegmentsWithStats } = await import('./bm25/query.js');
  const run = (): { hits: { index: number; id: string; score: number }[]; stats: AcrossTermStats | null } => {
    const owner: number[] = [];
    const views = indexes.flatMap((index, i) =>
      index.segments.map((s) => {
        owner.push(i);
        return s.allLive ? { segment: s.segment.lex } : { segment: s.segment.lex, live: s.live };
      }),
    );
    const opts = { splitPartWeight: ACROSS_SPLIT_PART_WEIGHT, ...(accept ? { accept: (id: string, view: number) => accept(owner[view]!, id) } : {}) };
    const { hits, stats } = searchSegmentsWithStats(views, query, limit, opts);
    // A topic's segments summed: its counts.
    const perIndex = (perView: readonly number[]): number[] => {
      const out = indexes.map(() => 0);
      perView.forEach((x, v) => (out[owner[v]!]! += x));
      return out;
    };
    return {
      hits: hits.map((h) => ({ index: owner[h.view]!, id: h.id, score: h.score })),
      stats: stats ? { terms: stats.terms, idf: stats.idf, docs: perIndex(stats.docs), df: stats.df.map(perIndex) } : null,
    };
  };
  try {
    return run();
  } catch (err) {
    if (!(err instanceof TkomaError && err.code === 'DAMAGED_STATE')) throw err;
    for (const index of indexes) if (!(await reloadCheckingPostings(index))) throw err;
    return run();
  }
}
