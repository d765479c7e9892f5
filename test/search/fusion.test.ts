import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  boostsFor,
  DOCS_BOOST,
  type FusedHit,
  type FusionCandidate,
  fuse,
  lexicalNormalizer,
  mergeHits,
  PROBLEMATIC_FACTOR,
  type RankedItem,
  rrf,
  trustFactor,
  VECTOR_ANCHOR_RANK,
  USE_LITE_VECTOR_WEIGHT,
  VECTOR_WEIGHT,
  vectorWeightFor,
  vectorNormalizer,
} from '../../src/lib/search/fusion.js';

function cand(key: string, over: Partial<FusionCandidate> = {}): FusionCandidate {
  return { key, topicId: 't', path: `${key}.ts`, startLine: 1, endLine: 10, role: 'code', trust: 10, fileStatus: 'active', ...over };
}

function map(...cs: FusionCandidate[]): Map<string, FusionCandidate> {
  return new Map(cs.map((c) => [c.key, c]));
}

/** Candidates for keys k0..k(n-1), each its own file. */
function many(n: number, prefix = 'k'): { keys: string[]; cs: Map<string, FusionCandidate> } {
  const keys = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  return { keys, cs: map(...keys.map((k) => cand(k))) };
}

const order = (hits: FusedHit[]): string[] => hits.map((h) => h.key);

describe('normalisers', () => {
  it('divides BM25 by the best score of the list', () => {
    const n = lexicalNormalizer([8, 4, 2]);
    expect(n(8)).toBe(1);
    expect(n(4)).toBeCloseTo(0.5, 12);
    expect(n(2)).toBeCloseTo(0.25, 12);
    expect(lexicalNormalizer([0, 0])(0)).toBe(1); // no spread: all equal, not NaN
  });

  it('maps cosine from the anchor rank (0) to the best (1), clamped', () => {
    const sims = Array.from({ length: 80 }, (_, i) => 0.9 - i * 0.005); // 0.9 … 0.505
    const n = vectorNormalizer(sims, 50);
    expect(n(0.9)).toBe(1);
    expect(n(sims[49]!)).toBeCloseTo(0, 12);
    expect(n(sims[70]!)).toBe(0);
    expect(n((0.9 + sims[49]!) / 2)).toBeCloseTo(0.5, 12);
    // A list shorter than the anchor rank anchors at cosine 0; equal entries all score 1.
    expect(vectorNormalizer([0.8, 0.7, 0.6], 50)(0.4)).toBeCloseTo(0.5, 12);
    expect(vectorNormalizer([0.4], 50)(0.4)).toBe(1);
    expect(vectorNormalizer(Array.from({ length: 60 }, () => 0.5), 50)(0.5)).toBe(1);
    expect(vectorNormalizer([-0.2, -0.3], 50)(-0.2)).toBe(0);
    // Anchor 0: similarity over the best, order kept all the way down.
    expect(vectorNormalizer([0.8, 0.4], 0)(0.4)).toBeCloseTo(0.5, 12);
  });
});

describe('convex fusion (default)', () => {
  it('adds (1−α)·BM25/max and α·normalised cosine, and explains both parts', () => {
    const cs = map(cand('a'), cand('b'), cand('c'));
    const hits = fuse(
      [{ key: 'a', score: 10 }, { key: 'b', score: 5 }],
      [{ key: 'b', score: 0.9 }, { key: 'c', score: 0.7 }, { key: 'a', score: 0.5 }],
      cs,
      { merge: false },
    );
    const by = new Map(hits.map((h) => [h.key, h]));
    const a = VECTOR_WEIGHT;
    // A vector list shorter than the anchor rank normalises by its best: 0.9 → 1.
    expect(by.get('a')!.explain.fused).toBeCloseTo((1 - a) * 1 + (a * 0.5) / 0.9, 12);
    expect(by.get('b')!.explain.fused).toBeCloseTo((1 - a) * 0.5 + a * 1, 12);
    expect(by.get('c')!.explain.fused).toBeCloseTo((a * 0.7) / 0.9, 12);
    expect(by.get('b')!.explain).toMatchObject({
      method: 'convex',
      lexical: { rank: 2, score: 5 },
      vector: { rank: 1, similarity: 0.9 },
    });
    expect(by.get('b')!.explain.lexical!.part + by.get('b')!.explain.vector!.part).toBeCloseTo(by.get('b')!.explain.fused, 12);
    expect(by.get('c')!.explain.lexical).toBeNull();
    expect(order(hits)).toEqual(['a', 'b', 'c']);
  });

  it('ranks the chunk first in both lists first, with relevance 1 in hybrid and lexical-only answers', () => {
    const { keys, cs } = many(5);
    const lex = keys.map((key, i) => ({ key, score: 10 - i }));
    const vec = keys.map((key, i) => ({ key, score: 0.8 - i / 10 }));
    const hybrid = fuse(lex, vec, cs);
    expect(hybrid[0]!.key).toBe('k0');
    expect(hybrid[0]!.explain.fused).toBeCloseTo(1, 12);
    expect(hybrid[0]!.score).toBeCloseTo(1, 12);
    const lexicalOnly = fuse(lex, [], cs, { lists: 1 });
    expect(order(lexicalOnly)).toEqual(keys);
    expect(lexicalOnly[0]!.explain.fused).toBeCloseTo(1, 12);
    expect(lexicalOnly[1]!.explain.fused).toBeCloseTo(0.9, 12); // BM25 9 / 10
    // The score is the fused relevance times the boosts (none here: code, trust 10).
    expect(lexicalOnly[1]!.score).toBeCloseTo(0.9, 12);
    expect(lexicalOnly[1]!.explain.rrf).toBeCloseTo(rrf(2), 12);
    // Vectors available but silent: the lexical share only.
    expect(fuse(lex, [], cs, { lists: 2 })[0]!.explain.fused).toBeCloseTo(1 - VECTOR_WEIGHT, 12);
  });

  it('lets vectors break close lexical calls but not overturn clear ones', () => {
    const cs = map(cand('a'), cand('b'), cand('c'));
    const vec = [{ key: 'c', score: 0.8 }, { key: 'b', score: 0.79 }, { key: 'a', score: 0.3 }];
    // b has 97% of a's BM25 and the vectors prefer it: it overtakes a. c has half: it does not.
    const hits = fuse([{ key: 'a', score: 10 }, { key: 'b', score: 9.7 }, { key: 'c', score: 5 }], vec, cs);
    expect(order(hits)).toEqual(['b', 'a', 'c']);
  });

  it('lets a vector-only hit enter above weak lexical matches', () => {
    const cs = map(cand('strong'), cand('weak'), cand('semantic'));
    const hits = fuse(
      [{ key: 'strong', score: 20 }, { key: 'weak', score: 0.5 }],
      [{ key: 'semantic', score: 0.6 }, { key: 'strong', score: 0.2 }],
      cs,
    );
    expect(order(hits)).toEqual(['strong', 'semantic', 'weak']);
    expect(hits[1]!.explain.lexical).toBeNull();
    // And with no lexical match at all, vector hits are the answer.
    expect(order(fuse([], [{ key: 'semantic', score: 0.6 }], cs, { lists: 2 }))).toEqual(['semantic']);
  });

  it('keeps the lexical order when the vector list carries no signal', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 1_000 }),
        (bm25, sim, seed) => {
          const { keys, cs } = many(bm25.length);
          const lex = [...bm25].sort((x, y) => y - x).map((score, i) => ({ key: keys[i]!, score }));
          // Same similarity for every chunk, in an arbitrary order.
          const vec = keys.map((key) => ({ key, score: sim })).sort((x, y) => ((x.key.length * 31 + seed) % 7) - ((y.key.length * 31 + seed) % 7));
          expect(order(fuse(lex, vec, cs))).toEqual(keys);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps scores in 0..1 before boosts and at most the docs boost after', () => {
    const item = (n: number) => fc.record({ key: fc.integer({ min: 0, max: n - 1 }).map((i) => `k${i}`), score: fc.double({ min: -1, max: 50, noNaN: true }) });
    fc.assert(
      fc.property(fc.array(item(40), { maxLength: 80 }), fc.array(item(40), { maxLength: 80 }), fc.double({ min: 0, max: 1, noNaN: true }), (lexRaw, vecRaw, alpha) => {
        const { cs } = many(40);
        const lex = lexRaw.map((x) => ({ ...x, score: Math.abs(x.score) })).sort((x, y) => y.score - x.score);
        const vec = vecRaw.map((x) => ({ ...x, score: Math.max(-1, Math.min(1, x.score / 50)) })).sort((x, y) => y.score - x.score);
        for (const h of fuse(lex, vec, cs, { vectorWeight: alpha, merge: false })) {
          expect(h.explain.fused).toBeGreaterThanOrEqual(0);
          expect(h.explain.fused).toBeLessThanOrEqual(1 + 1e-12);
          expect(h.score).toBeLessThanOrEqual(DOCS_BOOST + 1e-12);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('scores the top of the lists the same however deep the caller fetched', () => {
    const { keys, cs } = many(300);
    const lex: RankedItem[] = keys.map((key, i) => ({ key, score: 300 - i }));
    const vec: RankedItem[] = [...keys].reverse().map((key, i) => ({ key, score: 0.9 - i / 1000 }));
    const shallow = fuse(lex.slice(0, VECTOR_ANCHOR_RANK), vec.slice(0, VECTOR_ANCHOR_RANK), cs);
    const deep = fuse(lex, vec, cs);
    expect(order(deep.slice(0, 20))).toEqual(order(shallow.slice(0, 20)));
    const deepFused = new Map(deep.map((h) => [h.key, h.explain.fused]));
    for (const h of shallow.slice(0, 20)) expect(deepFused.get(h.key)).toBeCloseTo(h.explain.fused, 12);
  });

  it('follows the weight: 0 is lexical order, 1 is vector order', () => {
    const { keys, cs } = many(6);
    const lex = keys.map((key, i) => ({ key, score: 6 - i }));
    const vec = [...keys].reverse().map((key, i) => ({ key, score: 0.9 - i / 10 }));
    expect(order(fuse(lex, vec, cs, { vectorWeight: 0 }))).toEqual(keys);
    expect(order(fuse(lex, vec, cs, { vectorWeight: 1 }))).toEqual([...keys].reverse());
  });

  it('ranks a vector-only answer by similarity all the way down', () => {
    const { keys, cs } = many(120);
    const vec = keys.map((key, i) => ({ key, score: 0.9 - i / 200 }));
    const hits = fuse([], vec, cs, { lists: 1 });
    expect(order(hits)).toEqual(keys);
    expect(hits[0]!.score).toBeCloseTo(1, 12);
    expect(hits[119]!.explain.fused).toBeGreaterThan(0);
  });

  it('ignores unknown keys and duplicate entries in one list', () => {
    const hits = fuse([{ key: 'a', score: 2 }, { key: 'zz', score: 1 }, { key: 'a', score: 1 }], [], map(cand('a')));
    expect(hits).toHaveLength(1);
    expect(hits[0]!.explain.lexical).toMatchObject({ rank: 1, score: 2 });
    expect(hits[0]!.score).toBeCloseTo(1, 12);
  });
});

describe('reciprocal rank fusion (method rrf)', () => {
  it('is 1/(k+rank) with k = 60', () => {
    expect(rrf(1)).toBeCloseTo(1 / 61, 12);
    expect(rrf(10)).toBeCloseTo(1 / 70, 12);
    expect(rrf(3, 10)).toBeCloseTo(1 / 13, 12);
  });

  it('sums the reciprocal ranks of both lists, normalised so rank 1 everywhere scores 1', () => {
    const cs = map(cand('a'), cand('b'), cand('c'));
    const hits = fuse(
      [{ key: 'a', score: 9 }, { key: 'b', score: 5 }],
      [{ key: 'b', score: 0.9 }, { key: 'c', score: 0.8 }, { key: 'a', score: 0.1 }],
      cs,
      { method: 'rrf', merge: false },
    );
    const by = new Map(hits.map((h) => [h.key, h]));
    const norm = 2 / 61;
    expect(by.get('a')!.explain.rrf).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(by.get('a')!.explain.fused).toBeCloseTo((1 / 61 + 1 / 63) / norm, 12);
    expect(by.get('a')!.score).toBeCloseTo((1 / 61 + 1 / 63) / norm, 12);
    expect(by.get('b')!.explain.fused).toBeCloseTo((1 / 62 + 1 / 61) / norm, 12);
    expect(by.get('c')!.explain.fused).toBeCloseTo(1 / 62 / norm, 12);
    expect(order(hits)).toEqual(['b', 'a', 'c']); // rank 2 + 1 beats rank 1 + 3
    expect(by.get('a')!.explain.method).toBe('rrf');
    expect(by.get('a')!.explain.vector).toMatchObject({ rank: 3, similarity: 0.1 });
    expect(fuse([{ key: 'a', score: 1 }], [], cs, { method: 'rrf' })[0]!.score).toBeCloseTo(1, 12);
  });
});

describe('vectorWeightFor', () => {
  it('gives the weak offline use-lite model half the default share, every other model the default', () => {
    expect(vectorWeightFor('use-lite:universal-sentence-encoder-lite.ws:512')).toBe(USE_LITE_VECTOR_WEIGHT);
    expect(USE_LITE_VECTOR_WEIGHT).toBeLessThan(VECTOR_WEIGHT);
    expect(vectorWeightFor('transformers:Xenova/bge-small-en-v1.5:384')).toBe(VECTOR_WEIGHT);
    expect(vectorWeightFor(null)).toBe(VECTOR_WEIGHT);
  });
});

describe('boosts', () => {
  it('maps trust 0..10 to 0.9..1.0 and clamps', () => {
    expect(trustFactor(0)).toBeCloseTo(0.9);
    expect(trustFactor(10)).toBeCloseTo(1.0);
    expect(trustFactor(5)).toBeCloseTo(0.95);
    expect(trustFactor(99)).toBeCloseTo(1.0);
    expect(trustFactor(-3)).toBeCloseTo(0.9);
  });

  it('boosts docs, demotes problematic files', () => {
    expect(boostsFor({ role: 'docs', trust: 10, fileStatus: 'active' })).toEqual({ role: DOCS_BOOST, trust: 1, status: 1 });
    expect(DOCS_BOOST).toBeGreaterThan(1);
    expect(boostsFor({ role: 'code', trust: 10, fileStatus: 'problematic' })).toEqual({ role: 1, trust: 1, status: PROBLEMATIC_FACTOR });
    expect(PROBLEMATIC_FACTOR).toBeLessThan(1);
  });

  it('applies the docs boost before the final sort', () => {
    // A close call: docs at 95% of the code chunk's relevance win with the ×1.1 boost.
    const cs = map(cand('code', { role: 'code' }), cand('docs', { role: 'docs', path: 'README.md' }));
    const lex = [{ key: 'code', score: 10 }, { key: 'docs', score: 9.5 }];
    const hits = fuse(lex, [], cs);
    expect(order(hits)).toEqual(['docs', 'code']);
    expect(hits[0]!.explain.boosts.role).toBe(DOCS_BOOST);
    expect(hits[0]!.explain.boosted).toBeCloseTo(0.95 * DOCS_BOOST, 12);
    expect(hits[0]!.explain.fused).toBeCloseTo(0.95, 12); // relevance itself is not boosted
    // Not a close call: docs at 60% stay below the code chunk.
    expect(order(fuse([{ key: 'code', score: 10 }, { key: 'docs', score: 6 }], [], cs))).toEqual(['code', 'docs']);
    // ...but a boost is not the final order: without it the code chunk is first.
    expect(order(fuse(lex, [], cs, { docsBoost: 1 }))).toEqual(['code', 'docs']);
  });

  it('keeps the boost proportionate: a docs chunk far down does not beat the top code chunk', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const cs = map(...keys.map((k) => cand(k)), cand('docs', { role: 'docs', path: 'guide.md' }));
    const hits = fuse([...keys.map((key, i) => ({ key, score: 100 - i })), { key: 'docs', score: 1 }], [], cs);
    expect(hits[0]!.key).toBe('c0');
  });

  it('demotes a problematic file below a weaker active one', () => {
    const cs = map(cand('bad', { fileStatus: 'problematic' }), cand('good'));
    const hits = fuse([{ key: 'bad', score: 10 }, { key: 'good', score: 6 }], [], cs);
    expect(order(hits)).toEqual(['good', 'bad']);
    expect(hits[1]!.explain.boosts.status).toBe(PROBLEMATIC_FACTOR);
  });

  it('lets trust decide between otherwise equal hits', () => {
    const cs = map(cand('low', { trust: 0, topicId: 'a' }), cand('high', { trust: 10, topicId: 'b' }));
    const hits = fuse([{ key: 'low', score: 5 }, { key: 'high', score: 5 }], [{ key: 'low', score: 0.5 }, { key: 'high', score: 0.5 }], cs);
    expect(order(hits)).toEqual(['high', 'low']);
  });

  it('excludes obsolete files entirely', () => {
    const cs = map(cand('old', { fileStatus: 'obsolete' }), cand('new'));
    const hits = fuse([{ key: 'old', score: 10 }, { key: 'new', score: 1 }], [{ key: 'old', score: 0.9 }], cs);
    expect(order(hits)).toEqual(['new']);
    // Ranks are positions in the lists as given (search filters obsolete files out before ranking).
    expect(hits[0]!.explain.lexical!.rank).toBe(2);
  });
});

describe('merging chunks of one file', () => {
  const hit = (key: string, path: string, startLine: number, endLine: number, score: number): FusedHit => ({
    key,
    topicId: 't',
    path,
    startLine,
    endLine,
    score,
    explain: { method: 'convex', lexical: null, vector: null, fused: score, rrf: score, boosts: { role: 1, trust: 1, status: 1 }, boosted: score },
  });

  it('merges overlapping and adjacent ranges, keeps the best member', () => {
    const merged = mergeHits([
      hit('a1', 'a.md', 1, 10, 0.2),
      hit('a2', 'a.md', 11, 20, 0.5), // adjacent to a1
      hit('a3', 'a.md', 18, 30, 0.1), // overlaps a2
      hit('a4', 'a.md', 40, 50, 0.3), // gap: separate hit
      hit('b1', 'b.md', 11, 20, 0.4), // other file: never merged
    ]);
    const a = merged.filter((h) => h.path === 'a.md').sort((x, y) => x.startLine - y.startLine);
    expect(a).toHaveLength(2);
    expect(a[0]).toMatchObject({ key: 'a2', startLine: 1, endLine: 30, score: 0.5 });
    expect(a[0]!.explain.merged!.map((m) => m.key).sort()).toEqual(['a1', 'a3']);
    expect(a[1]).toMatchObject({ key: 'a4', startLine: 40, endLine: 50 });
    expect(merged.filter((h) => h.path === 'b.md')).toHaveLength(1);
  });

  it('fuse merges before sorting and the merged hit ranks by its best chunk', () => {
    const cs = map(
      cand('x1', { path: 'x.ts', startLine: 1, endLine: 5 }),
      cand('x2', { path: 'x.ts', startLine: 6, endLine: 9 }),
      cand('y', { path: 'y.ts', startLine: 1, endLine: 5 }),
    );
    const hits = fuse([{ key: 'y', score: 3 }, { key: 'x2', score: 2 }, { key: 'x1', score: 1 }], [], cs);
    expect(hits).toHaveLength(2);
    expect(hits[0]!.key).toBe('y');
    expect(hits[1]).toMatchObject({ key: 'x2', startLine: 1, endLine: 9 });
    // x1's own boosted score is its relevance, BM25 1 / 3 (trust 10, code: no boost).
    expect(hits[1]!.explain.merged).toEqual([{ key: 'x1', start_line: 1, end_line: 5, boosted: expect.closeTo(1 / 3, 12) }]);
  });

  it('does not merge chunks of the same path in different topics', () => {
    const merged = mergeHits([
      { ...hit('a', 'same.md', 1, 5, 0.2), topicId: 't1' },
      { ...hit('b', 'same.md', 6, 9, 0.1), topicId: 't2' },
    ]);
    expect(merged).toHaveLength(2);
  });
});
