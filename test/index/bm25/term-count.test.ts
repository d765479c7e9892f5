import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TermList, Vocabulary } from '../../../src/lib/index/bm25/term-count.js';
import { processTerm, tokenize } from '../../../src/lib/index/bm25/tokenize.js';

/** What the index must store for a text: tokenize, then processTerm, nulls dropped. */
const expected = (text: string): string[] => tokenize(text).map(processTerm).filter((t): t is string => t !== null);

/** Two words with the same FNV-1a hash (the word table's). */
const COLLIDING = ['yaczfaa', 'glbppaa'] as const;

/** The names of termsInto's numbers for `text`. */
function namesOf(vocab: Vocabulary, text: string, out = new TermList()): string[] {
  vocab.termsInto(text, out);
  return [...out.ids.subarray(0, out.length)].map((n) => vocab.names[n]!);
}

describe('Vocabulary.termsInto', () => {
  it('gives processTerm over tokenize, numbered in order of first appearance, for new and repeated words', () => {
    const piece = fc.constantFrom(
      'a', 'Z', 'the', 'parseHTTPResponse', 'snake_case', 'os.path.join', 'std::fs', '_', '9', 'v2', 'sha256', '-', '.', '/',
      ' ', '\n', '(', 'Größe', '東京', '\u0301', '😀', 'running', 'Runs', 'x'.repeat(70),
    );
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 16 }), { maxLength: 6 }), (texts) => {
        const vocab = new Vocabulary();
        const out = new TermList();
        const seen: string[] = [];
        for (const pieces of texts) {
          const text = pieces.join('');
          const want = expected(text);
          for (const t of want) if (!seen.includes(t)) seen.push(t);
          expect(namesOf(vocab, text, out)).toEqual(want);
          // A repeat (its words known now) gives the same numbers again.
          expect(namesOf(vocab, text, out)).toEqual(want);
        }
        expect(vocab.names).toEqual(seen);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers the same after release() forgets the lookups', () => {
    const vocab = new Vocabulary();
    const first = namesOf(vocab, 'parseConfig reads the config_file');
    vocab.release();
    expect(namesOf(vocab, 'parseConfig reads the config_file')).toEqual(first);
  });

  it('keeps words apart whose hashes collide, and grows past its first table', () => {
    const vocab = new Vocabulary();
    // Many distinct words (the table doubles several times), each looked up again after.
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x_${(i * 7919).toString(36)}`);
    const text = words.join(' ');
    const want = expected(text);
    expect(namesOf(vocab, text)).toEqual(want);
    expect(namesOf(vocab, text)).toEqual(want);
    expect(vocab.wordCount).toBe(words.length); // each kept once, found again after every growth
    // FNV-1a collides for these two strings (found by search); each keeps its own terms.
    expect(namesOf(vocab, `${COLLIDING[0]} ${COLLIDING[1]} ${COLLIDING[0]}`)).toEqual(expected(`${COLLIDING[0]} ${COLLIDING[1]} ${COLLIDING[0]}`));
  });
});
