import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TermCounter, Vocabulary } from '../../../src/lib/index/bm25/term-count.js';
import { processTerm, RUN, segmentTokens, tokenize } from '../../../src/lib/index/bm25/tokenize.js';

/** What the index must store for a text: tokenize, then processTerm, nulls dropped. */
const expected = (text: string): string[] => tokenize(text).map(processTerm).filter((t): t is string => t !== null);

/**
 * Pieces whose joins make tricky texts: identifier styles, connectors, digits, stop words, other
 * scripts (accents, CJK, combining marks, astral letters and emoji as surrogate pairs, lone
 * surrogates), ASCII next to non-ASCII word characters, blobs past the longest kept term.
 */
const PIECES = [
  'a', 'Z', 'the', 'parseHTTPResponse', 'snake_case', 'SCREAMING_CASE', 'os.path.join', 'std::fs', 'a::b:c', '_', '__x__', '9',
  'v2', 'sha256', 'HTTP2', 'utf8Decoder', '1.2.3', '0x1F', '-', '.', '/', ':', ' ', '\n', '\t', '(', '"', 'Größe', 'ÉCOLE',
  '東京', '東京タワー', 'ĳ', '\u0301', 'e\u0301', '😀', '𝑥', '𝐀bc', '𠀀', '\ud800', '\udc00', '—', 'é', 'running', 'Runs',
  'x'.repeat(70), 'Ab'.repeat(40), '7'.repeat(80), 'use_signal', 'UseSignal', 'dioxus::prelude::*', 'src/lib/foo.ts',
];

describe('Vocabulary.termsOf', () => {
  it('gives processTerm over tokenize, numbered in order of first appearance, for new and repeated words', () => {
    const piece = fc.constantFrom(...PIECES);
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 16 }), { maxLength: 6 }), (texts) => {
        const vocab = new Vocabulary();
        const seen: string[] = [];
        for (const pieces of texts) {
          const text = pieces.join('');
          const want = expected(text);
          for (const t of want) if (!seen.includes(t)) seen.push(t);
          expect(vocab.termsOf(text).map((n) => vocab.names[n])).toEqual(want);
          // A repeat (its tokens memoised now) gives the same numbers again.
          expect(vocab.termsOf(text).map((n) => vocab.names[n])).toEqual(want);
        }
        expect(vocab.names).toEqual(seen);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers the same after release() forgets the lookups', () => {
    const vocab = new Vocabulary();
    const first = vocab.termsOf('parseConfig reads the config_file');
    vocab.release();
    expect(vocab.termsOf('parseConfig reads the config_file').map((n) => vocab.names[n])).toEqual(first.map((n) => vocab.names[n]));
  });

  it('gives the same for arbitrary strings, long ones included (past its first code buffer), after shorter and longer texts', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 6000 })), { maxLength: 5 }), (texts) => {
        const vocab = new Vocabulary();
        for (const text of texts) expect(vocab.termsOf(text).map((n) => vocab.names[n])).toEqual(expected(text));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps runs apart whose hashes collide, and finds every run again after the table grows', () => {
    const vocab = new Vocabulary();
    // Many distinct runs (the table doubles several times), each looked up again after.
    const runs = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x_${(i * 7919).toString(36)}`);
    const text = runs.join(' ');
    const want = expected(text);
    expect(vocab.termsOf(text).map((n) => vocab.names[n])).toEqual(want);
    expect(vocab.termsOf(text).map((n) => vocab.names[n])).toEqual(want);
    // FNV-1a collides for these two strings; each keeps its own terms.
    const colliding = 'yaczfaa glbppaa yaczfaa';
    expect(vocab.termsOf(colliding).map((n) => vocab.names[n])).toEqual(expected(colliding));
  });
});

describe('tokenize by runs', () => {
  it("is segmentTokens of each run of word characters in turn (what the counter looks terms up by)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }), fc.string({ unit: 'binary', maxLength: 30 }), (pieces, noise) => {
        const text = pieces.join('') + noise;
        const byRuns: string[] = [];
        for (const m of text.matchAll(new RegExp(RUN.source, 'gu'))) segmentTokens(m[0], byRuns);
        expect(byRuns).toEqual(tokenize(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('TermCounter', () => {
  it('sums weighted tfs and the weighted length field by field, reusing a repeated field', () => {
    const counter = new TermCounter(Float64Array.of(2, 0.5));
    const names = (): string[] => Array.from(counter.touched.ids.subarray(0, counter.touched.length), (t) => counter.vocab.names[t]!);
    expect(counter.count(['parse config', 'config file the config'])).toBe(2 * 2 + 0.5 * 3);
    expect(names()).toEqual(['pars', 'config', 'file']);
    expect(Array.from(counter.touched.ids.subarray(0, 3), (t) => counter.takeTf(t))).toEqual([2, 2 + 0.5 + 0.5, 0.5]);
    // The same first field again (its terms reused), a new second one; the tfs were cleared.
    expect(counter.count(['parse config', 'file'])).toBe(2 * 2 + 0.5);
    expect(names()).toEqual(['pars', 'config', 'file']);
    expect(Array.from(counter.touched.ids.subarray(0, 3), (t) => counter.takeTf(t))).toEqual([2, 2, 0.5]);
  });
});
