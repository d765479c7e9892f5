/**
 * Hybrid ranking, pure: reciprocal rank fusion of the lexical and vector lists, then the boosts
 * (docs over code, topic trust, problematic files down) BEFORE the final sort, then overlapping
 * or adjacent chunks of one file merged into a single hit. Every hit keeps an `explain` record of
 * how its score came about, for `search --explain`.
 */
import type { Role } from '../chunking/types.js';
import type { FileStatus } from '../store/model.js';

export const RRF_K = 60;

/**
 * Boost sizes. RRF scores are flat (rank 1 vs rank 10 of one list differ by only ×1.15), so a
 * multiplier buys many ranks: ×1.2 would put a docs chunk ranked 13th above the code chunk ranked
 * 1st. ×1.1 lets docs win close calls (about six ranks at the top) without burying the code that
 * defines what was asked about; trust spans ×0.9–×1.0 for the same reason. Problematic files are
 * meant to sink: ×0.5 moves them below anything that ranks in both lists.
 */
export const DOCS_BOOST = 1.1;
export const PROBLEMATIC_FACTOR = 0.5;

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
}

export interface RankedItem {
  key: string;
  /** BM25 score for the lexical list, cosine similarity for the vector list. */
  score: number;
}

export interface FusionOptions {
  k?: number;
  docsBoost?: number;
  problematicFactor?: number;
  /** Merge overlapping/adjacent chunks of one file (default true). */
  merge?: boolean;
}

export interface Boosts {
  role: number;
  trust: number;
  status: number;
}

export interface Explain {
  lexical: { rank: number; score: number } | null;
  vector: { rank: number; similarity: number } | null;
  rrf: number;
  boosts: Boosts;
  /** rrf × every boost. */
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
  /** Boosted RRF, normalised so that rank 1 in every list, unboosted, scores 1. */
  score: number;
  explain: Explain;
}

export function rrf(rank: number, k = RRF_K): number {
  return 1 / (k + rank);
}

/** Trust 0–10 maps to ×0.9–×1.0: a trusted source wins close calls, never buries relevance. */
export function trustFactor(trust: number): number {
  const t = Number.isFinite(trust) ? Math.min(10, Math.max(0, trust)) : 5;
  return 0.9 + t / 100;
}

export function boostsFor(c: Pick<FusionCandidate, 'role' | 'trust' | 'fileStatus'>, opts: FusionOptions = {}): Boosts {
  return {
    role: c.role === 'docs' ? (opts.docsBoost ?? DOCS_BOOST) : 1,
    trust: trustFactor(c.trust),
    status: c.fileStatus === 'problematic' ? (opts.problematicFactor ?? PROBLEMATIC_FACTOR) : 1,
  };
}

function compareKeys(a: { topicId: string; path: string; startLine: number }, b: typeof a): number {
  if (a.topicId !== b.topicId) return a.topicId < b.topicId ? -1 : 1;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.startLine - b.startLine;
}

/**
 * Fuses the two ranked lists (best first). Candidates missing from `candidates` and obsolete files
 * are dropped. `lists` is how many lists were actually available (1 when vectors are off), so
 * scores stay comparable between hybrid and lexical-only answers.
 */
export function fuse(
  lexical: readonly RankedItem[],
  vector: readonly RankedItem[],
  candidates: ReadonlyMap<string, FusionCandidate>,
  opts: FusionOptions & { lists?: number } = {},
): FusedHit[] {
  const k = opts.k ?? RRF_K;
  const scored = new Map<string, { c: FusionCandidate; explain: Explain }>();
  const entry = (key: string): { c: FusionCandidate; explain: Explain } | undefined => {
    const c = candidates.get(key);
    if (!c || c.fileStatus === 'obsolete') return undefined;
    let e = scored.get(key);
    if (!e) {
      e = { c, explain: { lexical: null, vector: null, rrf: 0, boosts: boostsFor(c, opts), boosted: 0 } };
      scored.set(key, e);
    }
    return e;
  };
  lexical.forEach((item, i) => {
    const e = entry(item.key);
    if (!e || e.explain.lexical) return;
    e.explain.lexical = { rank: i + 1, score: item.score };
    e.explain.rrf += rrf(i + 1, k);
  });
  vector.forEach((item, i) => {
    const e = entry(item.key);
    if (!e || e.explain.vector) return;
    e.explain.vector = { rank: i + 1, similarity: item.score };
    e.explain.rrf += rrf(i + 1, k);
  });
  const lists = opts.lists ?? ((lexical.length > 0 ? 1 : 0) + (vector.length > 0 ? 1 : 0) || 1);
  const norm = lists * rrf(1, k);
  const hits: FusedHit[] = [];
  for (const [key, { c, explain }] of scored) {
    explain.boosted = explain.rrf * explain.boosts.role * explain.boosts.trust * explain.boosts.status;
    hits.push({ key, topicId: c.topicId, path: c.path, startLine: c.startLine, endLine: c.endLine, score: explain.boosted / norm, explain });
  }
  const merged = opts.merge === false ? hits : mergeHits(hits);
  return merged.sort((a, b) => b.score - a.score || compareKeys(a, b));
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
