/** Issue 26: a topicless search's topic by its chunks' evidence, and `--all`'s lean (pure). */
import { describe, expect, it } from 'vitest';

import { BUNDLE_WINDOWS, chooseTopic, isBundleWindow, isNotEvidence, topicEvidence, weighByTopic } from '../../src/lib/search/topic-choice.js';

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
});
