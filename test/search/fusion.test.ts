import { describe, expect, it } from 'vitest';

import {
  boostsFor,
  DOCS_BOOST,
  type FusedHit,
  type FusionCandidate,
  fuse,
  mergeHits,
  rrf,
  trustFactor,
} from '../../src/lib/search/fusion.js';

function cand(key: string, over: Partial<FusionCandidate> = {}): FusionCandidate {
  return { key, topicId: 't', path: `${key}.ts`, startLine: 1, endLine: 10, role: 'code', trust: 10, fileStatus: 'active', ...over };
}

function map(...cs: FusionCandidate[]): Map<string, FusionCandidate> {
  return new Map(cs.map((c) => [c.key, c]));
}

describe('rrf arithmetic', () => {
  it('is 1/(k+rank) with k = 60', () => {
    expect(rrf(1)).toBeCloseTo(1 / 61, 12);
    expect(rrf(10)).toBeCloseTo(1 / 70, 12);
    expect(rrf(3, 10)).toBeCloseTo(1 / 13, 12);
  });

  it('sums the contributions of both lists', () => {
    const cs = map(cand('a'), cand('b'), cand('c'));
    const hits = fuse(
      [{ key: 'a', score: 9 }, { key: 'b', score: 5 }],
      [{ key: 'b', score: 0.9 }, { key: 'c', score: 0.8 }, { key: 'a', score: 0.1 }],
      cs,
      { merge: false },
    );
    const byKey = new Map(hits.map((h) => [h.key, h]));
    expect(byKey.get('a')!.explain.rrf).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(byKey.get('b')!.explain.rrf).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(byKey.get('c')!.explain.rrf).toBeCloseTo(1 / 62, 12);
    // b is rank 2 + rank 1, a is rank 1 + rank 3: b wins.
    expect(hits.map((h) => h.key)).toEqual(['b', 'a', 'c']);
    expect(byKey.get('a')!.explain.lexical).toEqual({ rank: 1, score: 9 });
    expect(byKey.get('a')!.explain.vector).toEqual({ rank: 3, similarity: 0.1 });
    expect(byKey.get('c')!.explain.lexical).toBeNull();
  });

  it('normalises so rank 1 in every available list scores 1 before boosts', () => {
    const cs = map(cand('a'));
    const both = fuse([{ key: 'a', score: 1 }], [{ key: 'a', score: 1 }], cs);
    expect(both[0]!.score).toBeCloseTo(1, 12);
    const lexicalOnly = fuse([{ key: 'a', score: 1 }], [], cs);
    expect(lexicalOnly[0]!.score).toBeCloseTo(1, 12);
  });

  it('ignores unknown keys and duplicate entries in one list', () => {
    const hits = fuse([{ key: 'a', score: 2 }, { key: 'zz', score: 1 }, { key: 'a', score: 1 }], [], map(cand('a')));
    expect(hits).toHaveLength(1);
    expect(hits[0]!.explain.rrf).toBeCloseTo(1 / 61, 12);
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
    expect(boostsFor({ role: 'code', trust: 10, fileStatus: 'problematic' })).toEqual({ role: 1, trust: 1, status: 0.5 });
  });

  it('applies the docs boost before the final sort', () => {
    // code ranks first lexically, docs second: docs must win because 1.1/62 > 1/61.
    const cs = map(cand('code', { role: 'code' }), cand('docs', { role: 'docs', path: 'README.md' }));
    const hits = fuse([{ key: 'code', score: 10 }, { key: 'docs', score: 9 }], [], cs);
    expect(hits.map((h) => h.key)).toEqual(['docs', 'code']);
    expect(hits[0]!.explain.boosts.role).toBe(DOCS_BOOST);
    expect(hits[0]!.explain.boosted).toBeCloseTo(DOCS_BOOST / 62, 12);
    // ...but a boost is not the final order: without it the code chunk is first.
    expect(fuse([{ key: 'code', score: 10 }, { key: 'docs', score: 9 }], [], cs, { docsBoost: 1 }).map((h) => h.key)).toEqual(['code', 'docs']);
  });

  it('keeps the boost proportionate: a docs chunk far down does not beat the top code chunk', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const cs = map(...keys.map((k) => cand(k)), cand('docs', { role: 'docs', path: 'guide.md' }));
    const hits = fuse([...keys.map((key, i) => ({ key, score: 100 - i })), { key: 'docs', score: 1 }], [], cs);
    expect(hits[0]!.key).toBe('c0');
  });

  it('demotes a problematic file below a weaker active one', () => {
    const cs = map(cand('bad', { fileStatus: 'problematic' }), cand('good'));
    const hits = fuse([{ key: 'bad', score: 10 }, { key: 'good', score: 1 }], [], cs);
    expect(hits.map((h) => h.key)).toEqual(['good', 'bad']);
    expect(hits[1]!.explain.boosts.status).toBe(0.5);
  });

  it('lets trust decide between otherwise equal hits', () => {
    const cs = map(cand('low', { trust: 0, topicId: 'a' }), cand('high', { trust: 10, topicId: 'b' }));
    const hits = fuse([{ key: 'low', score: 5 }], [{ key: 'high', score: 0.5 }], cs);
    expect(hits.map((h) => h.key)).toEqual(['high', 'low']);
  });

  it('excludes obsolete files entirely', () => {
    const cs = map(cand('old', { fileStatus: 'obsolete' }), cand('new'));
    const hits = fuse([{ key: 'old', score: 10 }, { key: 'new', score: 1 }], [{ key: 'old', score: 0.9 }], cs);
    expect(hits.map((h) => h.key)).toEqual(['new']);
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
    explain: { lexical: null, vector: null, rrf: score, boosts: { role: 1, trust: 1, status: 1 }, boosted: score },
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
  });

  it('does not merge chunks of the same path in different topics', () => {
    const merged = mergeHits([
      { ...hit('a', 'same.md', 1, 5, 0.2), topicId: 't1' },
      { ...hit('b', 'same.md', 6, 9, 0.1), topicId: 't2' },
    ]);
    expect(merged).toHaveLength(2);
  });
});
