import { describe, expect, it } from 'vitest';

import { type ChunkSpan, MAX_CONTEXT_LINES, parseContext, sectionRange, widenByLines } from '../../src/lib/search/context.js';
import { foldOverlaps } from '../../src/lib/search/hits.js';

const doc = (startLine: number, endLine: number, title: string): ChunkSpan => ({ startLine, endLine, title, kind: 'section' });
const code = (startLine: number, endLine: number, symbol?: string): ChunkSpan => ({
  startLine,
  endLine,
  title: symbol ?? '(top level) (part 1/3)',
  kind: symbol ? 'method' : 'window',
  ...(symbol ? { symbol } : {}),
});

describe('widenByLines', () => {
  it('adds N lines each side, inside the file', () => {
    expect(widenByLines({ start: 10, end: 12 }, 3, 100)).toEqual({ start: 7, end: 15 });
    expect(widenByLines({ start: 2, end: 4 }, 5, 6)).toEqual({ start: 1, end: 6 });
  });

  it('never spans more than MAX_CONTEXT_LINES, centred on the hit', () => {
    const r = widenByLines({ start: 1000, end: 1009 }, 400, 5000);
    expect(r.end - r.start + 1).toBe(MAX_CONTEXT_LINES);
    expect(r.start).toBeLessThanOrEqual(1000);
    expect(r.end).toBeGreaterThanOrEqual(1009);
    expect(1000 - r.start).toBe(195);
  });
});

describe('sectionRange', () => {
  it("takes a docs hit's parent heading section: the example above a small trailing section", () => {
    const chunks = [doc(1, 3, 'use_resource'), doc(4, 48, 'use_resource'), doc(49, 51, 'use_resource > Restarting'), doc(52, 60, 'Other')];
    expect(sectionRange(chunks, 2, 2)).toEqual({ start: 1, end: 51 });
  });

  it('keeps sibling subsections of the parent and stops at the next top-level section', () => {
    const chunks = [doc(1, 5, 'Guide'), doc(6, 10, 'Guide > Install'), doc(11, 20, 'Guide > Install > Linux'), doc(21, 30, 'Guide > Install > Mac'), doc(31, 40, 'Guide > Use'), doc(41, 50, 'API')];
    expect(sectionRange(chunks, 2, 2)).toEqual({ start: 6, end: 30 });
    expect(sectionRange(chunks, 0, 0)).toEqual({ start: 1, end: 40 });
  });

  it('widens a method to its class and a long function to all its parts', () => {
    const chunks = [code(1, 20, 'Cache.get'), code(21, 40, 'Cache.put'), code(41, 60, 'Cache.evict'), code(61, 80, 'helper'), code(81, 99, 'helper')];
    expect(sectionRange(chunks, 2, 2)).toEqual({ start: 1, end: 60 });
    expect(sectionRange(chunks, 3, 3)).toEqual({ start: 61, end: 99 });
  });

  it('gives a line window its neighbouring windows', () => {
    const chunks = [code(1, 50), code(51, 100), code(101, 150), code(151, 200)];
    expect(sectionRange(chunks, 1, 1)).toEqual({ start: 1, end: 150 });
  });

  it('caps a huge section at MAX_CONTEXT_LINES around the hit', () => {
    const chunks = Array.from({ length: 20 }, (_, i) => doc(i * 100 + 1, i * 100 + 100, i === 0 ? 'Big' : 'Big > Part'));
    const r = sectionRange(chunks, 10, 10);
    expect(r.end - r.start + 1).toBe(MAX_CONTEXT_LINES);
    expect(r.start).toBeLessThanOrEqual(1001);
    expect(r.end).toBeGreaterThanOrEqual(1100);
  });
});

describe('parseContext', () => {
  it('accepts a line count or "section", refuses the rest', () => {
    expect(parseContext(undefined)).toBeUndefined();
    expect(parseContext(0)).toBeUndefined();
    expect(parseContext('5')).toBe(5);
    expect(parseContext(12)).toBe(12);
    expect(parseContext('section')).toBe('section');
    for (const bad of ['lots', -1, 2.5, MAX_CONTEXT_LINES + 1, true, '3 lines']) expect(parseContext(bad)).toBeNull();
  });
});

describe('foldOverlaps', () => {
  const k = (path: string, start: number, end: number) => ({ h: { topicId: 't', path }, range: { start, end } });
  it('folds a later hit of the same file that overlaps or touches into the earlier one', () => {
    const out = foldOverlaps([k('a.md', 10, 20), k('b.md', 1, 5), k('a.md', 21, 30), k('a.md', 40, 50), k('a.md', 5, 12)]);
    expect(out.map((o) => [o.h.path, o.range.start, o.range.end])).toEqual([
      ['a.md', 5, 30],
      ['b.md', 1, 5],
      ['a.md', 40, 50],
    ]);
  });
});
