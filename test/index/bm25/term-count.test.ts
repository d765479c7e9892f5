import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Vocabulary } from '../../../src/lib/index/bm25/term-count.js';
import { processTerm, tokenize } from '../../../src/lib/index/bm25/tokenize.js';

/** What the index must store for a text: tokenize, then processTerm, nulls dropped. */
const expected = (text: string): string[] => tokenize(text).map(processTerm).filter((t): t is string => t !== null);

describe('Vocabulary.termsOf', () => {
  it('gives processTerm over tokenize, numbered in order of first appearance, for new and repeated words', () => {
    const piece = fc.constantFrom(
      'a', 'Z', 'the', 'parseHTTPResponse', 'snake_case', 'os.path.join', 'std::fs', '_', '9', 'v2', 'sha256', '-', '.', '/',
      ' ', '\n', '(', 'Größe', '東京', '\u0301', '😀', 'running', 'Runs', 'x'.repeat(70),
    );
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
});
