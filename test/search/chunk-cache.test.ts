import { describe, expect, it } from 'vitest';

import { ChunkCache } from '../../src/lib/search/chunk-cache.js';
import { fingerprint } from '../../src/lib/search/duplicates.js';
import { lineWords, termGeneration } from '../../src/lib/search/line-words.js';

describe('ChunkCache', () => {
  it('gives back what was put, by hash; never keeps an unreadable (empty) text', () => {
    const c = new ChunkCache();
    c.put('h1', 'first text');
    c.put('h2', '');
    expect(c.text('h1')).toBe('first text');
    expect(c.text('h2')).toBeUndefined();
    expect(c.size).toBe(1);
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const text = (i: number) => `${i}`.padEnd(1000, 'x');
    const c = new ChunkCache(10_000);
    for (let i = 0; i < 4; i++) c.put(`h${i}`, text(i));
    expect(c.text('h0')).toBe(text(0)); // used again: now the most recent
    for (let i = 4; i < 20; i++) c.put(`h${i}`, text(i));
    expect(c.bytes).toBeLessThanOrEqual(10_000);
    expect(c.size).toBeGreaterThan(0);
    expect(c.text('h1')).toBeUndefined();
    expect(c.text('h19')).toBe(text(19));
  });

  it('computes a fingerprint once per held text, and counts its bytes', () => {
    const c = new ChunkCache();
    const t = 'alpha beta gamma delta epsilon zeta eta theta';
    c.put('h', t);
    const before = c.bytes;
    const a = c.fingerprint('h', t);
    expect(c.fingerprint('h', t)).toBe(a);
    expect(a).toEqual(fingerprint(t));
    expect(c.bytes).toBe(before + a.shingles.byteLength);
  });

  it('fingerprints a text it does not hold (or holds another text under that hash) without keeping it', () => {
    const c = new ChunkCache();
    c.put('h', 'held text here');
    const other = 'some other words entirely, not the held ones';
    expect(c.fingerprint('h', other)).toEqual(fingerprint(other));
    expect(c.fingerprint('nope', other)).toEqual(fingerprint(other));
    expect(c.text('h')).toBe('held text here');
    expect(c.size).toBe(1);
  });
});

describe('ChunkCache words', () => {
  it("finds a held text's line words when asked again, once, counts their bytes, and gives them for the current term ids", () => {
    const c = new ChunkCache();
    const t = 'Protein folding in cells\nthe the the\nIL-6 and p53 in src/lib/a.ts';
    c.put('h', t);
    const before = c.bytes;
    expect(c.words('h', t)).toBeNull(); // the first answer showing it scans it with the probes
    expect(c.bytes).toBe(before);
    const w = c.words('h', t)!;
    expect(w.generation).toBe(termGeneration());
    expect(w.lines).toEqual(t.split('\n').map(lineWords));
    expect(w.texts).toEqual(t.split('\n'));
    expect(c.words('h', t)).toBe(w);
    expect(c.bytes).toBeGreaterThan(before + w.lines.reduce((n, l) => n + 4 * l.length, 0));
  });

  it('finds them at the first ask when eager (a process that answers many questions)', () => {
    const c = new ChunkCache();
    const t = 'Protein folding in cells';
    c.put('h', t);
    expect(c.words('h', t, true)?.lines).toEqual([lineWords(t)]);
  });

  it('keeps no words for a text it does not hold, or holds another text under that hash', () => {
    const c = new ChunkCache();
    c.put('h', 'held text here');
    for (let i = 0; i < 2; i++) {
      expect(c.words('h', 'another text')).toBeNull();
      expect(c.words('nope', 'held text here')).toBeNull();
    }
  });
});
