/**
 * Counting one document's terms: tokenize each field, number its terms, and sum the weighted
 * term frequencies and length. SegmentBuilder counts with it in this thread; the chunk worker
 * threads count with it too (each with its own numbering), so a doc's tfs and length come out of
 * the same float operations in the same order wherever it was counted.
 */
import { processTermUnmemoised, tokenize } from './tokenize.js';

/**
 * `s` without a reference to the text it was cut from. V8 makes a long substring a view of its
 * parent string: kept as a map key, one token kept a whole file's text alive (a worker thread
 * keeps its vocabulary for the whole run, and nothing else of those texts). Prefixing makes a
 * new string that the slice then flattens into one of the token's own size.
 */
function ownCopy(s: string): string {
  return (' ' + s).slice(1);
}

/** Term numbers in order of first appearance. */
export class Vocabulary {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Raw token -> term number (-1 = dropped): skips processTerm for every repeat of a token. */
  private readonly raw = new Map<string, number>();

  get size(): number {
    return this.names.length;
  }

  /** Forgets the lookups (names stay): they are the largest part of a build's memory. */
  release(): void {
    this.ids.clear();
    this.raw.clear();
  }

  /** The number of an already processed term, numbering it if it is new. */
  intern(term: string): number {
    let t = this.ids.get(term);
    if (t === undefined) {
      t = this.names.length;
      term = ownCopy(term);
      this.ids.set(term, t);
      this.names.push(term);
    }
    return t;
  }

  /** The kept terms of `text`, in order, as term numbers. */
  termsOf(text: string): number[] {
    const out: number[] = [];
    for (const raw of tokenize(text)) {
      let t = this.raw.get(raw);
      if (t === undefined) {
        const term = processTermUnmemoised(raw);
        t = term === null ? -1 : this.intern(term);
        this.raw.set(ownCopy(raw), t);
      }
      if (t >= 0) out.push(t);
    }
    return out;
  }
}

/**
 * Counts docs one at a time. After count(), `touched` lists the doc's distinct term numbers in
 * order of first appearance and takeTf(t) gives (and clears) each one's weighted frequency.
 */
export class TermCounter {
  readonly vocab = new Vocabulary();
  readonly touched: number[] = [];
  private tfAcc = new Float64Array(1 << 12);
  private readonly lastText: (string | undefined)[] = [];
  private readonly lastTerms: (number[] | undefined)[] = [];

  constructor(readonly weights: Float64Array) {}

  /**
   * Tokenizes `fields` (field f weighted by weights[f]) and returns the doc's weighted length.
   * The tf of a term is w added once per occurrence, field by field, as a float64: the same
   * additions in the same order in every thread, so the same bits.
   */
  count(fields: readonly string[]): number {
    const { weights, vocab, touched, lastText, lastTerms } = this;
    touched.length = 0;
    let len = 0;
    for (let f = 0; f < fields.length; f++) {
      const w = weights[f]!;
      const text = fields[f]!;
      if (w === 0 || text === '') continue;
      // Chunks of one file repeat their path and often their title: reuse the last term list.
      let terms = lastTerms[f];
      if (lastText[f] !== text) {
        terms = vocab.termsOf(text);
        lastText[f] = text;
        lastTerms[f] = terms;
      }
      if (vocab.size > this.tfAcc.length) {
        const grown = new Float64Array(Math.max(vocab.size, this.tfAcc.length * 2));
        grown.set(this.tfAcc);
        this.tfAcc = grown;
      }
      const tfAcc = this.tfAcc;
      for (const t of terms!) {
        len += w;
        if (tfAcc[t] === 0) touched.push(t);
        tfAcc[t] += w;
      }
    }
    return len;
  }

  /** The weighted frequency of `t` in the doc last counted; clears it for the next doc. */
  takeTf(t: number): number {
    const tf = this.tfAcc[t]!;
    this.tfAcc[t] = 0;
    return tf;
  }

  /** Forgets the lookups and the reused term lists; vocab.names stay. */
  release(): void {
    this.vocab.release();
    this.lastText.length = 0;
    this.lastTerms.length = 0;
  }
}
