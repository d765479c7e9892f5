/**
 * Offline sweep of fusion rules: which way of combining the BM25 list and the vector list ranks
 * best, measured with nDCG@10 on frozen candidate lists, without re-running any search.
 *
 *   npx tsx bench/fusion-sweep.ts [--lists DIR] [--sets a,b,…] [--depth N]
 *
 * Make the lists with `npx tsx bench/fusion-lists.ts` (from the quality benchmark's use-lite roots).
 * DIR/lists-<set>.json holds, per query, { q, lex: [chunkId, bm25][], vec: [chunkId, cosine][] }
 * best first, 300 deep. Chunk ids are `<docId>.<ext>#<n>`; a document keeps its best chunk's rank
 * (as fuse() merges adjacent chunks). Qrels come from $TKOMA_BENCH_DIR (default /work/shared/bench)
 * /<scifact|cosqa>, chosen by the set name's prefix. The lists used for the choice (2026-11-22):
 *   scifact, cosqa          read-only from .bench-work/quality/<set>/kb-use-lite (loadTopicIndex,
 *                           lexicalSearch, ann.search with the use-lite query vector)
 *   cosqa-lexfix            same vectors, lexical from the current lexical.ts over the corpus as
 *                           bench/lexical-quality.ts builds it (0.383, the level the lexical fix gives)
 *   *-centred               a stronger vector list: use-lite with the corpus mean removed from
 *                           chunk vectors and the mean of 50 queries from the query (vector-only
 *                           0.244 / 0.144 instead of 0.195 / 0.047), to check that a rule transfers
 * Vector entries below search's MIN_CHUNK_SIMILARITY (0.1) are dropped, as search does.
 *
 * Result (nDCG@10, depth 300; the `fuse()` rows run the production function):
 *   rule                               scifact  cosqa   lexfix  | sci-c   lexfix-c
 *   lexical only                       0.6832   0.3239  0.3829  | 0.6832  0.3829
 *   vector only                        0.1953   0.0469  0.0469  | 0.2437  0.1440
 *   RRF k=60 (previous default)        0.4284   0.1309  0.1547  | 0.4714  0.3062
 *   RRF k=10, vector weight 0.1        0.6812   0.3232  0.3831  | 0.6860  0.3855
 *   convex max/min-max (whole list) .1 0.6896   0.3204  0.3830  | 0.6907  0.4020  depth-dependent
 *   convex z/z, α=0.1                  0.6897   0.3207  0.3847  | 0.6908  0.3961  depth-dependent
 *   fuse() convex max/anchor@50, α=.05 0.6859   0.3226  0.3838  | 0.6880  0.3886
 *   fuse() convex max/anchor@50, α=.1  0.6855   0.3230  0.3842  | 0.6871  0.3969  ← default
 *   fuse() convex max/anchor@50, α=.2  0.6837   0.3135  0.3749  | 0.6875  0.3968
 *   fuse() convex max/anchor@50, α=.3  0.6639   0.2862  0.3418  | 0.6755  0.3853
 * Later, through the real path with whitespace-collapsed use-lite vectors (npm run bench:quality),
 * CoSQA hybrid scored 0.4111 / 0.4095 / 0.3986 at α 0.05 / 0.1 / 0.2 (lexical 0.4098): use-lite now
 * gets 0.05 (USE_LITE_VECTOR_WEIGHT), other models keep 0.1.
 * With use-lite every score-based rule with a vector weight of 0.05–0.15 lands within ±0.007 of
 * lexical (paired permutation p ≥ 0.4: noise); the stronger list gains 0.014 on CoSQA (p = 0.005)
 * at α 0.1–0.2; RRF loses at every weight; no per-query confidence gate tried here helped
 * (vector top cosine, top-10 overlap, top-1 margin). The default's anchor at a fixed rank gives
 * identical figures at --depth 50 and 300; whole-list min-max and z-scores do not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadBeir } from './lib/beir.js';
import { evaluate, type Evaluation, type Qrels, type Run } from './lib/metrics.js';
import { WORK_DIR } from './lib/store.js';
import { fuse, type FusionCandidate, type FusionOptions } from '../src/lib/search/fusion.js';

const BENCH_DIR = process.env.TKOMA_BENCH_DIR ?? '/work/shared/bench';
/** Same cut as search.ts MIN_CHUNK_SIMILARITY (not imported: search.ts is heavy and in flux). */
const MIN_SIMILARITY = 0.1;

type Pair = [string, number];
interface QueryLists {
  q: string;
  lex: Pair[];
  vec: Pair[];
}
interface ListSet {
  name: string;
  queries: QueryLists[];
  qrels: Qrels;
  candidates: Map<string, FusionCandidate>;
}

const docOf = (chunkId: string): string => chunkId.replace(/\.[A-Za-z0-9]+#\d+$/, '');

/** Synthetic candidates: chunk n of a document covers lines 10n+1..10n+10, so a document's chunks touch and merge. */
function candidatesOf(queries: QueryLists[]): Map<string, FusionCandidate> {
  const out = new Map<string, FusionCandidate>();
  for (const l of queries) {
    for (const [id] of [...l.lex, ...l.vec]) {
      if (out.has(id)) continue;
      const m = /^(.*)#(\d+)$/.exec(id);
      const path = m ? m[1]! : id;
      const n = m ? Number(m[2]) : 0;
      out.set(id, {
        key: id,
        topicId: 't',
        path,
        startLine: 10 * n + 1,
        endLine: 10 * n + 10,
        role: path.endsWith('.md') ? 'docs' : 'code',
        trust: 10,
        fileStatus: 'active',
      });
    }
  }
  return out;
}

function loadSet(dir: string, name: string, depth: number): ListSet {
  const raw = JSON.parse(readFileSync(join(dir, `lists-${name}.json`), 'utf8')) as QueryLists[];
  const queries = raw.map((l) => ({
    q: l.q,
    lex: l.lex.slice(0, depth),
    vec: l.vec.filter(([, s]) => s >= MIN_SIMILARITY).slice(0, depth),
  }));
  const bench = name.startsWith('scifact') ? 'scifact' : 'cosqa';
  return { name, queries, qrels: loadBeir(join(BENCH_DIR, bench)).qrels, candidates: candidatesOf(queries) };
}

/** A rule maps one query's lists to doc ids, best first. */
type Rule = (l: QueryLists, set: ListSet) => string[];

/** Score-map rule: chunk scores summed over lists, documents at their best chunk. */
function byScores(f: (l: QueryLists) => Map<string, number>): Rule {
  return (l) =>
    [...f(l)]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id]) => docOf(id));
}

function viaFuse(opts: FusionOptions): Rule {
  return (l, set) => {
    const lists = l.vec.length > 0 ? 2 : 1;
    const hits = fuse(
      l.lex.map(([key, score]) => ({ key, score })),
      l.vec.map(([key, score]) => ({ key, score })),
      set.candidates,
      { ...opts, lists },
    );
    return hits.map((h) => docOf(h.key));
  };
}

function rrfRule(k: number, wLex: number, wVec: number): Rule {
  return byScores((l) => {
    const m = new Map<string, number>();
    l.lex.forEach(([id], i) => m.set(id, (m.get(id) ?? 0) + wLex / (k + i + 1)));
    l.vec.forEach(([id], i) => m.set(id, (m.get(id) ?? 0) + wVec / (k + i + 1)));
    return m;
  });
}

/** Normalisations over one list's scores (best first). */
type Norm = (xs: number[]) => (x: number) => number;
const nMax: Norm = (xs) => {
  const top = xs[0] ?? 0;
  return (x) => (top > 0 ? x / top : 1);
};
/** Top → 1, value at rank R (or the list's end) → 0, clamped. */
const nAnchor =
  (rank: number): Norm =>
  (xs) => {
    const top = xs[0] ?? 0;
    const floor = xs[Math.min(rank, xs.length) - 1] ?? 0;
    return (x) => (top > floor ? Math.max(0, (x - floor) / (top - floor)) : 1);
  };
const nMinMax: Norm = nAnchor(Number.MAX_SAFE_INTEGER);
/** Theoretical min-max for cosine (min −1). */
const nCosTmm: Norm = (xs) => {
  const top = xs[0] ?? 0;
  return (x) => (x + 1) / (top + 1);
};
const nZ: Norm = (xs) => {
  const mu = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mu) ** 2, 0) / Math.max(1, xs.length)) || 1;
  return (x) => (x - mu) / sd;
};

/** (1−α)·lex + α·vec over normalised scores; a missing entry scores the list's minimum. */
function convexRule(alpha: number, nl: Norm, nv: Norm, gate?: (l: QueryLists) => boolean): Rule {
  return byScores((l) => {
    const a = gate && !gate(l) ? 0 : alpha;
    const fl = nl(l.lex.map((p) => p[1]));
    const fv = nv(l.vec.map((p) => p[1]));
    const lMin = Math.min(0, ...l.lex.map((p) => fl(p[1])));
    const vMin = Math.min(0, ...l.vec.map((p) => fv(p[1])));
    const lex = new Map<string, number>();
    const vec = new Map<string, number>();
    for (const [id, s] of l.lex) if (!lex.has(id)) lex.set(id, fl(s));
    for (const [id, s] of l.vec) if (!vec.has(id)) vec.set(id, fv(s));
    const m = new Map<string, number>();
    for (const id of new Set([...lex.keys(), ...vec.keys()])) m.set(id, (1 - a) * (lex.get(id) ?? lMin) + a * (vec.get(id) ?? vMin));
    return m;
  });
}

const topDocs = (pairs: Pair[], n: number): string[] => [...new Set(pairs.map((p) => docOf(p[0])))].slice(0, n);
/** Confidence gates: vectors count only when … */
const gates = {
  'vector top cosine ≥ 0.8': (l: QueryLists) => (l.vec[0]?.[1] ?? 0) >= 0.8,
  'top-10 lists share a document': (l: QueryLists) => {
    const v = new Set(topDocs(l.vec, 10));
    return topDocs(l.lex, 10).some((d) => v.has(d));
  },
  'vector top-1 stands out (top − 10th ≥ 0.05)': (l: QueryLists) => (l.vec[0]?.[1] ?? 0) - (l.vec[9]?.[1] ?? 0) >= 0.05,
};

function rules(): [string, Rule][] {
  const out: [string, Rule][] = [
    ['lexical only', byScores((l) => new Map(l.lex.map(([id], i) => [id, -i] as [string, number]).reverse()))],
    ['vector only', byScores((l) => new Map(l.vec.map(([id], i) => [id, -i] as [string, number]).reverse()))],
    ['fuse() rrf (previous default)', viaFuse({ method: 'rrf' })],
  ];
  for (const k of [60, 10]) for (const w of [0.5, 0.25, 0.1]) out.push([`RRF k=${k}, vector weight ${w}`, rrfRule(k, 1, w)]);
  const norms: [string, Norm, Norm][] = [
    ['max / max', nMax, nMax],
    ['max / cos TMM (−1)', nMax, nCosTmm],
    ['max / min-max', nMax, nMinMax],
    ['min-max / min-max', nMinMax, nMinMax],
    ['z / z', nZ, nZ],
    ['max / anchor@20', nMax, nAnchor(20)],
    ['anchor@50 / anchor@50', nAnchor(50), nAnchor(50)],
  ];
  for (const [name, nl, nv] of norms) for (const a of [0.05, 0.1, 0.2, 0.3]) out.push([`convex ${name}, α=${a}`, convexRule(a, nl, nv)]);
  for (const a of [0.05, 0.1, 0.15, 0.2, 0.3]) out.push([`fuse() convex max / anchor@50, α=${a}`, viaFuse({ vectorWeight: a })]);
  for (const [name, gate] of Object.entries(gates)) {
    for (const a of [0.1, 0.2]) out.push([`gate: ${name}, α=${a}`, convexRule(a, nMax, nAnchor(50), gate)]);
  }
  out.push(['fuse() default', viaFuse({})]);
  return out;
}

function evaluateRule(rule: Rule, set: ListSet): Evaluation {
  const run: Run = new Map();
  for (const l of set.queries) run.set(l.q, rule(l, set));
  return evaluate(run, set.qrels);
}

/** Two-sided paired sign-flip permutation test on per-query nDCG@10 differences. */
function pairedP(a: Evaluation, b: Evaluation, rounds = 5000): number {
  const diffs = [...a.perQuery].map(([q, s]) => s.ndcg10 - (b.perQuery.get(q)?.ndcg10 ?? 0)).filter((d) => d !== 0);
  const observed = Math.abs(diffs.reduce((x, y) => x + y, 0));
  let seed = 12345;
  const coin = (): boolean => ((seed = (seed * 1103515245 + 12345) % 2147483648) & 1024) !== 0;
  let extreme = 0;
  for (let r = 0; r < rounds; r++) {
    let s = 0;
    for (const d of diffs) s += coin() ? d : -d;
    if (Math.abs(s) >= observed - 1e-12) extreme++;
  }
  return (extreme + 1) / (rounds + 1);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      lists: { type: 'string', default: join(WORK_DIR, 'fusion') },
      sets: { type: 'string', default: 'scifact,cosqa,cosqa-lexfix,scifact-centred,cosqa-lexfix-centred' },
      depth: { type: 'string', default: '300' },
    },
  });
  const depth = Number(values.depth);
  const names = values.sets!.split(',').filter((n) => existsSync(join(values.lists!, `lists-${n}.json`)));
  const sets = names.map((n) => loadSet(values.lists!, n, depth));
  const lexical = new Map<string, Evaluation>();
  console.log(`| rule | ${names.join(' | ')} | worst Δ vs lexical | mean Δ |`);
  console.log(`|---|${names.map(() => '---|').join('')}---|---|`);
  const all = rules();
  for (const [name, rule] of all) {
    const evs = sets.map((s) => evaluateRule(rule, s));
    if (name === 'lexical only') sets.forEach((s, i) => lexical.set(s.name, evs[i]!));
    const deltas = evs.map((e, i) => e.ndcg10 - lexical.get(sets[i]!.name)!.ndcg10);
    const cells = evs.map((e) => e.ndcg10.toFixed(4));
    const worst = Math.min(...deltas);
    const mean = deltas.reduce((a, b) => a + b, 0) / deltas.length;
    console.log(`| ${name} | ${cells.join(' | ')} | ${worst >= 0 ? '+' : ''}${worst.toFixed(4)} | ${mean >= 0 ? '+' : ''}${mean.toFixed(4)} |`);
  }
  // The default against lexical, per query: is the difference more than noise?
  const chosen = all.find(([n]) => n === 'fuse() default')![1];
  for (const s of sets) {
    const ev = evaluateRule(chosen, s);
    const lex = lexical.get(s.name)!;
    let better = 0;
    let worse = 0;
    for (const [q, x] of ev.perQuery) {
      const y = lex.perQuery.get(q)!.ndcg10;
      if (x.ndcg10 > y + 1e-12) better++;
      else if (x.ndcg10 < y - 1e-12) worse++;
    }
    console.log(
      `${s.name}: default ${ev.ndcg10.toFixed(4)} vs lexical ${lex.ndcg10.toFixed(4)}; R@10 ${ev.recall10.toFixed(4)} vs ${lex.recall10.toFixed(4)}; ` +
        `queries better ${better}, worse ${worse}; paired permutation p = ${pairedP(ev, lex).toFixed(3)}`,
    );
  }
}

main();
