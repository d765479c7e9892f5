/**
 * Hybrid ranking, pure: the lexical (BM25) and vector (cosine) lists combined into one relevance
 * order, then the boosts (docs over code, topic trust, problematic files down) BEFORE the final
 * sort, then overlapping or adjacent chunks of one file merged into a single hit. Every hit keeps
 * an `explain` record of how its score came about, for `search --explain`.
 *
 * Default: a convex combination of normalised scores (Bruch et al. 2022 find it beats RRF), with a
 * small vector weight. Measured offline on SciFact and CoSQA with the offline use-lite embedder
 * (bench/fusion-sweep.ts): RRF with equal weights lost 37% and 60% of BM25's nDCG@10 there, as
 * that embedder is weak (vector-only nDCG@10 0.20 / 0.05 against BM25 0.68 / 0.38); a convex
 * combination lets its signal break close lexical calls without burying BM25, and still lets a
 * stronger vector list move results further. Reciprocal rank fusion stays available.
 *
 * The boosts (docs over code, trust, problematic down) multiply the fused relevance score, so
 * they decide close calls by relevance: a docs chunk wins against code scoring up to ~10% higher,
 * never against a hit it trails by far. (Multiplying a rank-based score instead let a weak
 * vector-only docs hit that matched no query word outrank the exact lexical match.) RRF mode keeps
 * its rank-based scores and applies the same boosts to them.
 */
import type { Role } from '../chunking/types.js';
import type { FileStatus } from '../store/model.js';

export type FusionMethod = 'convex' | 'rrf';

export const RRF_K = 60;

/**
 * Share of the vector list in the convex combination. The sweep found 0.05–0.15 best with
 * use-lite on both sets (higher buries BM25 under a weak embedder's noise: 0.3 loses 0.02–0.03)
 * and 0.15–0.2 best for a better vector list; 0.1 is inside both ranges.
 */
export const VECTOR_WEIGHT = 0.1;

/**
 * The offline use-lite model is weak (vector-only nDCG@10 0.07 on CoSQA, 0.2 on SciFact): through
 * the real path with its whitespace-collapsed vectors, CoSQA hybrid measured 0.4111 at 0.05,
 * 0.4095 at 0.1 and 0.3986 at 0.2 against lexical 0.4098 (npm run bench:quality). It gets half
 * the default say; models we cannot measure here keep VECTOR_WEIGHT.
 */
export const USE_LITE_VECTOR_WEIGHT = 0.05;

/** The vector list's share for an embedder (by its key, `provider:model:dimension`). */
export function vectorWeightFor(embedderKey: string | null | undefined): number {
  return embedderKey?.startsWith('use-lite:') ? USE_LITE_VECTOR_WEIGHT : VECTOR_WEIGHT;
}

/**
 * Cosine similarities are normalised between the best one (1) and the one at this rank (0).
 * Cosine has no usable fixed floor: unrelated texts score ~0.6–0.7 with use-lite and ~0 with other
 * models, so the list supplies its own. A fixed rank, not the list's end, keeps scores (and the
 * top of the ranking) independent of how deep the caller fetched; 50 is the smallest pool search
 * uses, so the anchor is always inside the list.
 */
export const VECTOR_ANCHOR_RANK = 50;

/**
 * Boost sizes, applied to 1/(k + rank) of the fused order, which is flat (rank 1 vs rank 10
 * differ by only ×1.15), so a multiplier buys many ranks: ×1.2 would put a docs chunk ranked 13th
 * above the code chunk ranked 1st. ×1.1 lets docs win close calls (about six ranks at the top)
 * without burying the code that defines what was asked about; trust spans ×0.9–×1.0 for the same
 * reason. Problematic files are meant to sink: ×0.5 moves the best of them to about rank 60.
 */
export const DOCS_BOOST = 1.1;
export const PROBLEMATIC_FACTOR = 0.5;

/**
 * Role priors (issue 12), multiplying the fused score like the docs boost: docs win close calls
 * against code, tests lose them, examples (measured below) get no prior. Chosen on bench/repo-qa (55 natural-language
 * questions about minisearch, qs, web-tree-sitter, express and zod; lexical; test files cut by
 * test block), `npm run bench:repo-qa -- --reuse --no-save --role-boosts docs=…,example=…,test=…`:
 *
 *   docs  example  test   useful file in top 3   nDCG@10
 *   1.0   1.0      1.0    0.727                  0.671   (no priors: one focused chunk per test wins on BM25)
 *   1.1   1.1      1.0    0.745                  0.701
 *   1.1   1.1      0.9    0.818                  0.739
 *   1.1   1.1      0.8    0.873                  0.766
 *   1.1   1.1      0.7    0.909                  0.778
 *   1.1   1.1      0.6    0.909                  0.788   ← chosen
 *   1.1   1.1      0.5    0.909                  0.792
 *   1.2   1.2      0.7    0.909                  0.783
 *   1.3   1.3      0.7    0.909                  0.779
 *   1.05  1.05     0.7    0.909                  0.776
 *
 * Tests: ×0.6 takes nearly all of the gain; ×0.5 adds 0.004 and would hide tests even when a
 * question matches one far better. Docs: 1.1 to 1.3 are within 0.005 at equal test weight, so the
 * measured 1.1 stays (SciFact/CoSQA are all one role and cannot tell).
 *
 * Examples: measured on two more repositories that have an example/ folder (retry, 12 questions;
 * fast-json-stable-stringify, 7), written from their READMEs before any run; 74 questions in all,
 * docs 1.1, test 0.6, `--role-boosts example=…`:
 *
 *   example   retry nDCG@10   fast-json-stable-stringify   zod     all 74: nDCG@10 (top 3 useful)
 *   0.6       0.936           0.822                        0.535   0.823 (0.959)
 *   0.8       0.943           0.833                        0.535   0.826 (0.959)
 *   0.9       0.943           0.846                        0.535   0.827 (0.959)
 *   1.0       0.940           0.850                        0.535   0.827 (0.959)   ← chosen
 *   1.1       0.930           0.856                        0.527   0.824 (0.959)   (the docs weight, before)
 *   1.4       0.924           0.859                        0.527   0.824 (0.959)
 *   1.6       0.919           0.859                        0.527   0.823 (0.959)
 *
 * The two pull opposite ways: in retry the README already holds each example and the example file
 * takes a README section's place; in fast-json-stable-stringify an example file is the answer
 * (key_cmp.js, nested.js) and climbs with the weight. Zod's change is one test file whose name
 * says "examples" (codec-examples.test.ts), taken for an example. The peak is flat (0.9–1.0, a
 * few ranks on 19 questions) and top 3 never moves, so examples take the neutral weight: no
 * prior, ranked on their text like code.
 */
export const ROLE_BOOSTS: Readonly<Record<Role, number>> = { docs: DOCS_BOOST, example: 1, code: 1, test: 0.6 };

/** Translated copies of docs (translations/, i18n/, docs/<lang>/ beside an English copy) sink below the original. */
export const TRANSLATION_FACTOR = 0.7;

export interface FusionCandidate {
  /** Unique across the whole search (topic + chunk id). */
  key: string;
  topicId: string;
  path: string;
  startLine: number;
  endLine: number;
  role: Role;
  /** Topic trust score, 0–10. */
  trust: number;
  fileStatus: FileStatus;
  /** A translated copy of a document whose original is in the topic. */
  translated?: boolean;
  /**
   * The chunk has no vector yet (being built in the background): convex fusion scores it by its
   * lexical part alone, scaled to the full range, so it is neither penalised nor favoured.
   */
  noVector?: boolean;
}

export interface RankedItem {
  key: string;
  /** BM25 score for the lexical list, cosine similarity for the vector list. */
  score: number;
}

export interface FusionOptions {
  /** 'convex' (default) or 'rrf' (reciprocal rank fusion, equal weights). */
  method?: FusionMethod;
  /** Convex only: the vector list's share, 0–1 (default VECTOR_WEIGHT). */
  vectorWeight?: number;
  /** Convex only: the rank whose similarity normalises to 0 (default VECTOR_ANCHOR_RANK). */
  anchorRank?: number;
  /** The rank offset of 1/(k + rank), for RRF and for the boosts (default RRF_K). */
  k?: number;
  docsBoost?: number;
  /** Per-role multipliers (default ROLE_BOOSTS; `docsBoost` overrides the docs entry). */
  roleBoosts?: Partial<Record<Role, number>>;
  problematicFactor?: number;
  /** Merge overlapping/adjacent chunks of one file (default true). */
  merge?: boolean;
}

export interface Boosts {
  role: number;
  trust: number;
  status: number;
  /** `--all`: the weight of the hit's topic by its evidence among the first hits (topic-choice.ts). */
  topic?: number;
}

export interface Explain {
  method: FusionMethod;
  /** `part`: this list's share of `fused`. */
  lexical: { rank: number; score: number; part: number } | null;
  vector: { rank: number; similarity: number; part: number } | null;
  /** Relevance before boosts, the sum of the parts, 0–1: rank 1 in every available list scores 1. */
  fused: number;
  /** Convex: 1/(k + rank of the hit in the fused order). RRF: the sum of 1/(k + rank) over lists. */
  rrf: number;
  boosts: Boosts;
  /** Convex: fused × every boost. RRF: rrf, normalised so rank 1 in every list is 1, × every boost. */
  boosted: number;
  /** Other chunks folded into this hit (their own line ranges and boosted scores). */
  merged?: { key: string; start_line: number; end_line: number; boosted: number }[];
}

export interface FusedHit {
  /** The best chunk of the hit: its snippet and title represent the hit. */
  key: string;
  topicId: string;
  path: string;
  startLine: number;
  endLine: number;
  /** `boosted`: at most 1 unboosted (rank 1 in every list), 1.1 with the docs boost. */
  score: number;
  explain: Explain;
}

export function rrf(rank: number, k = RRF_K): number {
  return 1 / (k + rank);
}

/** BM25 over the list's best: BM25's floor is 0 (no matching term), so that is the natural zero. */
export function lexicalNormalizer(scores: readonly number[]): (score: number) => number {
  const top = Math.max(0, ...scores);
  return (s) => (top > 0 ? Math.max(0, s) / top : 1);
}

/**
 * Cosine between the list's best (1) and its value at `anchorRank` (0, clamped). A list shorter
 * than that holds every candidate above search's similarity cut, so there is no empirical floor
 * and cosine's own zero serves; `anchorRank` 0 always uses it (order kept all the way down, for
 * a list that is not fused with another).
 */
export function vectorNormalizer(sims: readonly number[], anchorRank = VECTOR_ANCHOR_RANK): (sim: number) => number {
  if (sims.length === 0) return () => 0;
  const top = Math.max(...sims);
  const floor = Math.min(top, anchorRank > 0 && sims.length >= anchorRank ? sims[anchorRank - 1]! : 0);
  if (top <= floor) return () => (top > 0 ? 1 : 0); // no spread: no reordering, unrelated if ≤ 0
  return (s) => Math.min(1, Math.max(0, (s - floor) / (top - floor)));
}

/** Trust 0–10 maps to ×0.9–×1.0: a trusted source wins close calls, never buries relevance. */
export function trustFactor(trust: number): number {
  const t = Number.isFinite(trust) ? Math.min(10, Math.max(0, trust)) : 5;
  return 0.9 + t / 100;
}

export function roleBoost(role: Role, opts: FusionOptions = {}): number {
  if (role === 'docs' && opts.docsBoost !== undefined) return opts.docsBoost;
  return opts.roleBoosts?.[role] ?? ROLE_BOOSTS[role] ?? 1;
}

export function boostsFor(c: Pick<FusionCandidate, 'role' | 'trust' | 'fileStatus' | 'translated'>, opts: FusionOptions = {}): Boosts {
  return {
    role: roleBoost(c.role, opts) * (c.translated ? TRANSLATION_FACTOR : 1),
    trust: trustFactor(c.trust),
    status: c.fileStatus === 'problematic' ? (opts.problematicFactor ?? PROBLEMATIC_FACTOR) : 1,
  };
}

function compareKeys(a: { topicId: string; path: string; startLine: number }, b: typeof a): number {
  if (a.topicId !== b.topicId) return a.topicId < b.topicId ? -1 : 1;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.startLine - b.startLine;
}

/** Best rank in any list: orders hits whose scores tie (e.g. vector hits past the anchor). */
function bestRank(e: Explain): number {
  return Math.min(e.lexical?.rank ?? Infinity, e.vector?.rank ?? Infinity);
}

/** 1/(k + rank) by `fused`, best first; equal scores share a rank, so ties stay ties. */
function rankByFused(explains: Explain[], k: number): void {
  const sorted = [...explains].sort((a, b) => b.fused - a.fused);
  let rank = 0;
  sorted.forEach((e, i) => {
    if (i === 0 || e.fused !== sorted[i - 1]!.fused) rank = i + 1;
    e.rrf = rrf(rank, k);
  });
}

/** Per-list part of the fused score as a function of (rank, raw score). */
type Part = (rank: number, score: number) => number;

function convexParts(
  lexical: readonly RankedItem[],
  vector: readonly RankedItem[],
  lists: number,
  opts: FusionOptions,
): { lex: Part; vec: Part } {
  const alpha = Math.min(1, Math.max(0, opts.vectorWeight ?? VECTOR_WEIGHT));
  const fusing = lists >= 2;
  const wLex = fusing || lexical.length > 0 ? 1 - alpha : 0;
  const wVec = fusing || lexical.length === 0 ? alpha : 0;
  // Rank 1 in every available list scores 1, so hybrid and single-list answers stay comparable.
  const total = wLex + wVec > 0 ? wLex + wVec : 1;
  const nLex = lexicalNormalizer(lexical.map((i) => i.score));
  const nVec = vectorNormalizer(
    vector.map((i) => i.score),
    fusing ? (opts.anchorRank ?? VECTOR_ANCHOR_RANK) : 0,
  );
  return { lex: (_r, s) => (wLex / total) * nLex(s), vec: (_r, s) => (wVec / total) * nVec(s) };
}

function rrfParts(lists: number, opts: FusionOptions): { lex: Part; vec: Part } {
  const k = opts.k ?? RRF_K;
  const part: Part = (rank) => rrf(rank, k) / (lists * rrf(1, k));
  return { lex: part, vec: part };
}

/**
 * Fuses the two ranked lists (best first). Candidates missing from `candidates` and obsolete files
 * are dropped; a key repeated in one list counts at its first position. `lists` is how many lists
 * were actually available (1 when vectors are off), so scores stay comparable between hybrid and
 * lexical-only answers: rank 1 of a lone list scores 1, and with 2 a list that found nothing still
 * holds its share. (Convex with `lists` 1 uses the lexical list, or the vector list when the
 * lexical one is empty.)
 */
export function fuse(
  lexical: readonly RankedItem[],
  vector: readonly RankedItem[],
  candidates: ReadonlyMap<string, FusionCandidate>,
  opts: FusionOptions & { lists?: number } = {},
): FusedHit[] {
  const method = opts.method ?? 'convex';
  const lists = opts.lists ?? ((lexical.length > 0 ? 1 : 0) + (vector.length > 0 ? 1 : 0) || 1);
  const parts = method === 'rrf' ? rrfParts(lists, opts) : convexParts(lexical, vector, lists, opts);
  const scored = new Map<string, { c: FusionCandidate; explain: Explain }>();
  const entry = (key: string): { c: FusionCandidate; explain: Explain } | undefined => {
    const c = candidates.get(key);
    if (!c || c.fileStatus === 'obsolete') return undefined;
    let e = scored.get(key);
    if (!e) {
      e = { c, explain: { method, lexical: null, vector: null, fused: 0, rrf: 0, boosts: boostsFor(c, opts), boosted: 0 } };
      scored.set(key, e);
    }
    return e;
  };
  lexical.forEach((item, i) => {
    const e = entry(item.key);
    if (!e || e.explain.lexical) return;
    const part = parts.lex(i + 1, item.score);
    e.explain.lexical = { rank: i + 1, score: item.score, part };
    e.explain.fused += part;
  });
  vector.forEach((item, i) => {
    const e = entry(item.key);
    if (!e || e.explain.vector) return;
    const part = parts.vec(i + 1, item.score);
    e.explain.vector = { rank: i + 1, similarity: item.score, part };
    e.explain.fused += part;
  });
  if (method === 'convex' && lists >= 2) {
    const alpha = Math.min(1, Math.max(0, opts.vectorWeight ?? VECTOR_WEIGHT));
    for (const { c, explain } of scored.values()) {
      if (c.noVector && !explain.vector && explain.lexical && alpha < 1) explain.fused = explain.lexical.part / (1 - alpha);
    }
  }
  const k = opts.k ?? RRF_K;
  let norm: number;
  if (method === 'rrf') {
    for (const { explain } of scored.values()) explain.rrf = explain.fused * lists * rrf(1, k);
    norm = lists * rrf(1, k);
  } else {
    rankByFused([...scored.values()].map((x) => x.explain), k);
    norm = rrf(1, k);
  }
  const hits: FusedHit[] = [];
  for (const [key, { c, explain }] of scored) {
    const base = method === 'rrf' ? explain.rrf / norm : explain.fused;
    explain.boosted = base * explain.boosts.role * explain.boosts.trust * explain.boosts.status;
    hits.push({ key, topicId: c.topicId, path: c.path, startLine: c.startLine, endLine: c.endLine, score: explain.boosted, explain });
  }
  const merged = opts.merge === false ? hits : mergeHits(hits);
  return merged.sort((a, b) => b.score - a.score || bestRank(a.explain) - bestRank(b.explain) || compareKeys(a, b));
}

/**
 * Folds chunks of the same file whose line ranges overlap or touch into one hit: the line range
 * becomes the union, the best member gives the score, key and explain.
 */
export function mergeHits(hits: readonly FusedHit[]): FusedHit[] {
  const byFile = new Map<string, FusedHit[]>();
  for (const h of hits) {
    const f = `${h.topicId}\u0000${h.path}`;
    const list = byFile.get(f);
    if (list) list.push(h);
    else byFile.set(f, [h]);
  }
  const out: FusedHit[] = [];
  for (const list of byFile.values()) {
    list.sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
    let group: FusedHit[] = [];
    let groupEnd = -Infinity;
    const flush = (): void => {
      if (group.length === 0) return;
      out.push(mergeGroup(group));
      group = [];
    };
    for (const h of list) {
      if (group.length > 0 && h.startLine > groupEnd + 1) flush();
      group.push(h);
      groupEnd = group.length === 1 ? h.endLine : Math.max(groupEnd, h.endLine);
    }
    flush();
  }
  return out;
}

function mergeGroup(group: FusedHit[]): FusedHit {
  if (group.length === 1) return group[0]!;
  let best = group[0]!;
  for (const h of group) if (h.score > best.score || (h.score === best.score && h.startLine < best.startLine)) best = h;
  const others = group.filter((h) => h !== best);
  return {
    ...best,
    startLine: Math.min(...group.map((h) => h.startLine)),
    endLine: Math.max(...group.map((h) => h.endLine)),
    explain: {
      ...best.explain,
      merged: others.map((h) => ({ key: h.key, start_line: h.startLine, end_line: h.endLine, boosted: h.explain.boosted })),
    },
  };
}
