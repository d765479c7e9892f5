/** Issue 26: a topicless search's topic by its chunks' evidence, and `--all`'s lean (pure). */
import { describe, expect, it } from 'vitest';

import { BUNDLE_WINDOWS, chooseTopic, isBundleWindow, isNotEvidence, topicEvidence, topicFit, weighByTopic } from '../../src/lib/search/topic-choice.js';

const hit = (topicId: string, score: number) => ({ topicId, score, explain: { boosts: {} as { topic?: number }, boosted: score } });

describe('topic choice', () => {
  it('weighs the first hits by score and rank: two good hits beat one slightly better', () => {
    const hits = [hit('a', 1), hit('b', 0.95), hit('b', 0.9), hit('a', 0.1)];
    const e = topicEvidence(hits);
    expect(e.get('b')!).toBeGreaterThan(e.get('a')!);
    expect(chooseTopic(hits, ['a', 'b'])).toBe('b');
  });

  it('only the first few hits count', () => {
    const hits = [hit('a', 1), ...Array.from({ length: 4 }, () => hit('a', 0.5)), ...Array.from({ length: 20 }, () => hit('b', 0.49))];
    expect(chooseTopic(hits, [])).toBe('a');
  });

  it('no evidence (no hits, or none scoring): the notes decide', () => {
    expect(chooseTopic([hit('a', 0), hit('c', 0)], ['b', 'a'])).toBe('b');
    expect(chooseTopic([], ['b', 'a'])).toBe('b');
    expect(chooseTopic([], [])).toBeNull();
  });

  it('--all: hits of the topic with the most evidence move up, a strong hit elsewhere stays', () => {
    const hits = [hit('x', 1), hit('y', 0.95), hit('y', 0.9), hit('y', 0.85), hit('x', 0.2)];
    const out = weighByTopic(hits);
    expect(out[0]!.topicId).toBe('y');
    expect(out.map((h) => h.topicId)).toContain('x');
    expect(out.find((h) => h.topicId === 'y')!.explain.boosts.topic).toBe(1);
    expect(out.find((h) => h.topicId === 'x')!.explain.boosts.topic).toBeLessThan(1);
  });

  it('tests and release history are no evidence; the weighing of --all takes its evidence apart from its hits', () => {
    for (const p of ['CHANGELOG.md', 'docs/HISTORY.md', 'Changes', 'NEWS.rst', 'RELEASES.md']) expect(isNotEvidence(p, 'docs'), p).toBe(true);
    expect(isNotEvidence('src/a.test.ts', 'test')).toBe(true);
    for (const p of ['README.md', 'src/changes.ts', 'docs/release-process.md']) expect(isNotEvidence(p, p.endsWith('.ts') ? 'code' : 'docs'), p).toBe(false);
    const hits = [hit('x', 1), hit('y', 0.95), hit('y', 0.9)];
    const out = weighByTopic(hits, undefined, undefined, [hit('x', 1)]);
    expect(out[0]!.topicId).toBe('x');
    expect(out.find((h) => h.topicId === 'y')!.explain.boosts.topic).toBeLessThan(1);
  });

  it("a bundle's top-level windows are no evidence; an ordinary module's few top-level windows and other chunks are", () => {
    expect(isBundleWindow('module', `tree-sitter.cjs (top level) (part 11/${BUNDLE_WINDOWS})`)).toBe(true);
    expect(isBundleWindow('module', 'tree-sitter.cjs (top level) (part 1/85)')).toBe(true);
    expect(isBundleWindow('module', `schemas.ts (top level) (part 2/${BUNDLE_WINDOWS - 1})`)).toBe(false);
    expect(isBundleWindow('module', 'index.js (top level)')).toBe(false);
    // A long function or class cut into windows is structure, not a bundle.
    expect(isBundleWindow('function', 'function parse (part 3/40)')).toBe(false);
    expect(isNotEvidence('lib/tree-sitter.cjs', 'code', { kind: 'module', title: 'tree-sitter.cjs (top level) (part 8/76)' })).toBe(true);
    expect(isNotEvidence('lib/tree-sitter.cjs', 'code', { kind: 'module', title: 'tree-sitter.cjs (top level) (part 2/3)' })).toBe(false);
    expect(isNotEvidence('lib/tree-sitter.cjs', 'code')).toBe(false);
  });

  // Two query terms of equal idf. `small` (40 chunks) holds both in most of its chunks; `big` (4,000)
  // holds them at about the rate of the whole root.
  const counts = {
    idf: [2, 2],
    topics: new Map([
      ['small', { docs: 40, df: [20, 10] }],
      ['big', { docs: 4000, df: [200, 150] }],
      ['other', { docs: 1000, df: [0, 0] }],
    ]),
  };

  it("a topic's fit: how much more often than the root its chunks hold the query's words, smoothed", () => {
    const fit = topicFit(counts);
    expect(fit.get('small')!).toBeGreaterThan(1.5);
    expect(Math.abs(fit.get('big')!)).toBeLessThan(0.3);
    expect(fit.get('other')!).toBeLessThan(-2);
    // Smoothing pulls a small topic's shares towards the root's: more of it, a smaller fit.
    expect(topicFit(counts, 200).get('small')!).toBeLessThan(fit.get('small')!);
    expect(topicFit(counts, 200).get('small')!).toBeGreaterThan(0);
    // A rarer term weighs more: the topic holding it gains.
    const rare = topicFit({ idf: [6, 1], topics: new Map([['a', { docs: 100, df: [30, 0] }], ['b', { docs: 100, df: [0, 30] }]]) });
    expect(rare.get('a')!).toBeGreaterThan(rare.get('b')!);
    // Terms no topic holds (idf 0) count nothing; no terms at all: every fit 0.
    expect(topicFit({ idf: [0], topics: new Map([['a', { docs: 5, df: [0] }]]) }).get('a')).toBe(0);
  });

  it("one strong hit in a topic that fits the words beats middling hits in one that does not; without the fit it loses", () => {
    const hits = [hit('small', 1), hit('big', 0.9), hit('big', 0.85), hit('big', 0.8), hit('big', 0.75)];
    expect(chooseTopic(hits, [])).toBe('big');
    expect(chooseTopic(hits, [], undefined, topicFit(counts))).toBe('small');
    // --all leans the same way.
    const out = weighByTopic(hits, undefined, undefined, hits, topicFit(counts));
    expect(out.find((h) => h.topicId === 'small')!.explain.boosts.topic).toBe(1);
    expect(out.find((h) => h.topicId === 'big')!.explain.boosts.topic).toBeLessThan(1);
  });
});
