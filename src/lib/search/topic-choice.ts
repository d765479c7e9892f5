/**
 * Which topic a search without one is about (issue 26), pure. The topic notes name a library,
 * rarely its identifiers (`maxSockets`), so the choice is made on the chunks themselves: every
 * topic is searched as one corpus (comparable scores: index/lexical-search.ts searchLexicalAcross),
 * and each topic's evidence is its hits among the first few, each weighed by its boosted score
 * and discounted by rank as nDCG does, then times the topic's fit to the query's words as a whole
 * (topicFit). The notes' order breaks ties and answers when no chunk matches at all.
 *
 * Measured on bench/cross-topic.ts (10 topics, 94 questions, lexical), share of questions whose
 * topic is chosen right, by evidence depth: the first hit alone 0.894, the first 3 0.904, the
 * first 5 0.915, the first 10 0.904; topic notes alone (the choice before) 0.383. Adding the
 * notes' normalised lexical score on top (0.1–0.75 of the best evidence) changed nothing at depth
 * 5, and collection statistics alone (CORI over each topic's document frequencies) chose 0.766.
 */
export const TOPIC_EVIDENCE_DEPTH = 5;

/**
 * Release history (CHANGELOG, HISTORY, CHANGES, NEWS, RELEASES): a library's history names every
 * feature it ever touched ("TypeScript types", "options", "default value"), so its chunks matched
 * questions aimed at other libraries (minisearch's changelog took zod's and
 * fast-json-stable-stringify's questions). Like tests, which exercise everything, it says what a
 * library did, not what a question is about: neither counts as a topic's evidence.
 * bench/cross-topic.ts, topic choice at depth 5: 0.926 with them, 0.936 without (depth 3: 0.926 /
 * 0.936, depth 6: 0.904 / 0.926).
 */
const HISTORY_FILE = /(?:^|\/)(?:changelog|changes|history|news|releases?)(?:\.(?:md|markdown|mdx|rst|txt|adoc))?$/i;

/**
 * A bundle: a file whose top level, outside any function or class, the chunker had to cut into
 * at least this many windows (`… (top level) (part 7/85)`), i.e. some 40 KB of code with no
 * structure to cut at. Such files are build output that escaped the generated-file rules
 * (web-tree-sitter's emscripten glue, `tree-sitter.js` and its `.cjs` and `debug/` copies), and like
 * release history they restate a whole runtime's strings ("environment variable", "line and
 * column"), so they are no evidence of what a question is about (its own topic's search still
 * ranks them). In bench/cross-topic.ts the largest ordinary top level takes 6 windows (zod's
 * schemas.ts) and the bundles 46–85; a limit from 10 to 70 gives the same choices: held-out 19/23 →
 * 20/23 (oclif-10 went to web-tree-sitter's glue), the first 94 unchanged (89).
 */
export const BUNDLE_WINDOWS = 20;
const TOP_LEVEL_PART = /\(part \d+\/(\d+)\)$/;

/** A window of a bundle's top level (BUNDLE_WINDOWS). */
export function isBundleWindow(kind: string, title: string): boolean {
  if (kind !== 'module') return false;
  const m = TOP_LEVEL_PART.exec(title);
  return m !== null && Number(m[1]) >= BUNDLE_WINDOWS;
}

/** A hit that is no evidence of its topic: a test, a release history file (HISTORY_FILE), a bundle's window (isBundleWindow). */
export function isNotEvidence(path: string, role: string, chunk?: { kind: string; title: string }): boolean {
  return role === 'test' || HISTORY_FILE.test(path) || (chunk !== undefined && isBundleWindow(chunk.kind, chunk.title));
}

export interface ScoredHit {
  topicId: string;
  score: number;
}

/** Each topic's evidence among the first `depth` hits (best first): Σ score / log2(rank + 1). */
export function topicEvidence(hits: readonly ScoredHit[], depth = TOPIC_EVIDENCE_DEPTH): Map<string, number> {
  const out = new Map<string, number>();
  hits.slice(0, depth).forEach((h, i) => out.set(h.topicId, (out.get(h.topicId) ?? 0) + Math.max(0, h.score) / Math.log2(i + 2)));
  return out;
}

/**
 * Chunk evidence says which chunks match best; it cannot tell one strong hit in a small library
 * from middling hits in a big one whose code happens to use the question's words ("order object
 * keys by their values": fast-json-stable-stringify's README against zod's compiler). The topic as
 * a whole can: how much more often than the root at large its chunks hold the question's words.
 * That is resource selection's "big document" view (a language model per collection, Xu & Croft
 * 1999) beside the "small document" view of the chunk hits. Per query term, the share of the
 * topic's live chunks holding it, smoothed towards the root's share by this many chunks
 * (Dirichlet: a 7-file topic is not judged on a few chunks, and a word it lacks is not fatal).
 */
export const TOPIC_SMOOTHING = 20;

/** The query's terms counted per topic (from the across-topic search, rank.ts). */
export interface TopicTermCounts {
  /** Per query term: its idf over every searched topic, weighted as the query scored it. */
  idf: readonly number[];
  /** Per topic: its live chunks and, per query term, how many of them hold it. */
  topics: ReadonlyMap<string, { docs: number; df: readonly number[] }>;
}

/**
 * Each topic's fit to the query's words: Σ_q w_q · ln(p_tq / p_q), with p_q the share of all
 * live chunks holding term q, p_tq = (df_tq + μ·p_q) / (docs_t + μ) the topic's smoothed share,
 * and w_q the term's share of the query's idf (a rare word says more than `value`). 0 is a topic
 * that holds the words as often as the root does; each unit is a factor e.
 */
export function topicFit(counts: TopicTermCounts, mu = TOPIC_SMOOTHING): Map<string, number> {
  const topics = [...counts.topics];
  const all = topics.reduce((n, [, t]) => n + t.docs, 0);
  const df = counts.idf.map((_, q) => topics.reduce((n, [, t]) => n + (t.df[q] ?? 0), 0));
  const used = counts.idf.map((w, q) => (w > 0 && df[q]! > 0 ? w : 0));
  const idfMass = used.reduce((a, w) => a + w, 0);
  const out = new Map<string, number>();
  for (const [id, t] of topics) {
    let fit = 0;
    if (idfMass > 0 && all > 0) {
      used.forEach((w, q) => {
        if (w === 0) return;
        const share = df[q]! / all;
        fit += (w / idfMass) * Math.log((t.df[q]! + mu * share) / (t.docs + mu) / share);
      });
    }
    out.set(id, fit);
  }
  return out;
}

/** topicEvidence, each topic's times e^fit (topicFit) when the fit is known. */
export function fittedEvidence(hits: readonly ScoredHit[], depth = TOPIC_EVIDENCE_DEPTH, fit?: ReadonlyMap<string, number>): Map<string, number> {
  const evidence = topicEvidence(hits, depth);
  if (fit) for (const [id, e] of evidence) evidence.set(id, e * Math.exp(fit.get(id) ?? 0));
  return evidence;
}

/**
 * The topic with the most evidence, each topic's evidence times e^fit (topicFit) when the word
 * counts are known; equal scores go to the topic whose note ranks first, then to the smaller id.
 * No evidence: the notes' first topic, or null.
 *
 * bench/cross-topic.ts (lexical), topic choice on the first 94 / the 23 held-out, before → with
 * the fit (μ 20): 89 → 91 / 19 → 21, none lost; across μ 3–200 and the fit's weight 0.5–1.5 (as
 * a power of e^fit) every setting scores 90–91 / 19–21.
 */
export function chooseTopic(
  hits: readonly ScoredHit[],
  noteOrder: readonly string[],
  depth = TOPIC_EVIDENCE_DEPTH,
  fit?: ReadonlyMap<string, number>,
): string | null {
  const evidence = fittedEvidence(hits, depth, fit);
  const noteRank = (id: string): number => {
    const i = noteOrder.indexOf(id);
    return i < 0 ? Infinity : i;
  };
  let best: string | null = null;
  let bestScore = 0;
  for (const [id, s] of evidence) {
    if (s <= 0) continue;
    if (best === null || s > bestScore || (s === bestScore && (noteRank(id) < noteRank(best) || (noteRank(id) === noteRank(best) && id < best)))) {
      best = id;
      bestScore = s;
    }
  }
  return best ?? noteOrder[0] ?? null;
}

/**
 * `--all` ranks hits of several topics together; a hit keeps TOPIC_FLOOR of its score plus the
 * rest in proportion to its topic's evidence against the best topic's, so the list leans to the
 * topic the question is about without hiding the others' strong hits (results merging in
 * federated search, as CORI does with collection scores). bench/cross-topic.ts, nDCG@10 of
 * `--all` (`--topic` 0.802): floor 1 (no weighting) 0.748, 0.85 0.760, 0.7 0.764, 0.6 0.765,
 * 0.5 0.768, 0.4 0.769, 0.3 0.770. The plateau is flat from 0.3 to 0.6: 0.5 keeps a strong hit of
 * another topic in the list. The evidence is the choice's (fittedEvidence): with the fit, `--all`
 * nDCG@10 over all 117 questions 0.763 → 0.776 (held-out 23: 0.632 → 0.691).
 */
export const TOPIC_FLOOR = 0.5;

export function weighByTopic<T extends ScoredHit & { explain: { boosts: { topic?: number }; boosted: number } }>(
  hits: readonly T[],
  floor = TOPIC_FLOOR,
  depth = TOPIC_EVIDENCE_DEPTH,
  /** The hits that count as evidence (isNotEvidence left out); all of them by default. */
  evidenceHits: readonly ScoredHit[] = hits,
  fit?: ReadonlyMap<string, number>,
): T[] {
  if (floor >= 1) return [...hits];
  const evidence = fittedEvidence(evidenceHits, depth, fit);
  const top = Math.max(0, ...evidence.values());
  if (top <= 0) return [...hits];
  const out = hits.map((h) => {
    const f = floor + (1 - floor) * ((evidence.get(h.topicId) ?? 0) / top);
    return { ...h, score: h.score * f, explain: { ...h.explain, boosts: { ...h.explain.boosts, topic: f }, boosted: h.explain.boosted * f } };
  });
  return out.sort((a, b) => b.score - a.score);
}
