import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { CodeBuffer, hashCodes, WordTable } from '../../../src/lib/index/bm25/word-table.js';

const unitsOf = (s: string): number[] => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

describe('CodeBuffer', () => {
  it("holds a text's UTF-16 code units, lone surrogates and astral pairs included, through growth and reuse", () => {
    const buffer = new CodeBuffer();
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 50 }), fc.string({ unit: 'binary', maxLength: 9000 })), (text) => {
        const codes = buffer.load(text);
        expect(Array.from(codes.subarray(0, text.length))).toEqual(unitsOf(text));
      }),
      { numRuns: 300 },
    );
    expect(Array.from(buffer.load('a\ud800b\udc00😀東').subarray(0, 7))).toEqual([0x61, 0xd800, 0x62, 0xdc00, 0xd83d, 0xde00, 0x6771]);
  });
});

describe('WordTable', () => {
  const fnv1a = (units: number[]): number => units.reduce((h, u) => Math.imul(h ^ u, 16777619), 2166136261 | 0);

  it('hashes code units by FNV-1a, wherever they stand', () => {
    const codes = Uint16Array.from(unitsOf('xx parse_config yy'));
    expect(hashCodes(codes, 3, 15)).toBe(fnv1a(unitsOf('parse_config')));
    expect(hashCodes(codes, 0, 0)).toBe(2166136261 | 0);
  });

  it('finds each word kept, with its terms, by its code units anywhere; not a word never kept, even of equal hash', () => {
    const table = new WordTable();
    const words = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919).toString(36)}_${'é'.repeat(i % 3)}${i}`);
    const text = ` ${words.join(' ')} `;
    const codes = Uint16Array.from(unitsOf(text));
    let at = 1;
    const spans = words.map((w) => [at, (at += w.length + 1) - 1] as const);
    spans.forEach(([s, e], i) => {
      expect(table.find(codes, s, e, hashCodes(codes, s, e))).toBe(-1);
      expect(table.add(codes, s, e, hashCodes(codes, s, e), Array.from({ length: i % 4 }, (_, k) => i + k))).toBe(i);
    });
    expect(table.size).toBe(words.length);
    // Every word again after the slots doubled several times: its number and its own terms.
    spans.forEach(([s, e], i) => {
      const w = table.find(codes, s, e, hashCodes(codes, s, e));
      expect(w).toBe(i);
      expect(Array.from(table.terms.subarray(table.termFrom[w]!, table.termFrom[w + 1]!))).toEqual(Array.from({ length: i % 4 }, (_, k) => i + k));
    });
    // FNV-1a collides for these two: the one not kept is not found under the other's slot.
    const pair = Uint16Array.from(unitsOf('yaczfaa glbppaa'));
    expect(hashCodes(pair, 0, 7)).toBe(hashCodes(pair, 8, 15));
    const w = table.add(pair, 0, 7, hashCodes(pair, 0, 7), [1]);
    expect(table.find(pair, 8, 15, hashCodes(pair, 8, 15))).toBe(-1);
    expect(table.find(pair, 0, 7, hashCodes(pair, 0, 7))).toBe(w);
  });
});
