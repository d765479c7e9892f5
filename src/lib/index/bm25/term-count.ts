/**
 * Counting one document's terms: tokenize each field, number its terms, and sum the weighted
 * term frequencies and length. SegmentBuilder counts with it in this thread; the chunk worker
 * threads count with it too (each with its own numbering), so a doc's tfs and length come out of
 * the same float operations in the same order wherever it was counted.
 */
import { DEFAULT_TOKENIZER, isAsciiWordChar, processTermUnmemoised, RUN, segmentTokens } from './tokenize.js';
import { CodeBuffer, hashCodes, WordTable } from './word-table.js';
import { grown } from '../../typed-array.js';

/**
 * `s` without a reference to the text it was cut from. V8 makes a long substring a view of its
 * parent string: kept as a map key, one token kept a whole file's text alive (a worker thread
 * keeps its vocabulary for the whole run, and nothing else of those texts). Prefixing makes a
 * new string that the slice then flattens into one of the token's own size.
 */
function ownCopy(s: string): string {
  return (' ' + s).slice(1);
}

/** A list of term numbers in a typed array, reused from doc to doc: ids[0, length). */
export class TermList {
  ids = new Int32Array(256);
  length = 0;

  push(t: number): void {
    if (this.length === this.ids.length) this.ids = grown(this.ids, new Int32Array(this.ids.length * 2));
    this.ids[this.length++] = t;
  }
}

// termsInto counts by run, which only gives tokenize's tokens when compounds are not kept.
if (DEFAULT_TOKENIZER.keepCompounds) throw new Error('term-count.ts counts by run: it needs DEFAULT_TOKENIZER.keepCompounds off');

/** Term numbers in order of first appearance. */
export class Vocabulary {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Run -> its terms' numbers: a known run is found without cutting a string (word-table.ts). */
  private words = new WordTable();
  private codes = new CodeBuffer();
  private readonly tokens: string[] = [];
  private readonly wordTerms: number[] = [];

  get size(): number {
    return this.names.length;
  }

  /** Forgets the lookups (names stay): they are the largest part of a build's memory. */
  release(): void {
    this.ids.clear();
    this.words = new WordTable();
    this.codes = new CodeBuffer(); // as large as the longest field met
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
    const out = new TermList();
    this.termsInto(text, out);
    return Array.from(out.ids.subarray(0, out.length));
  }

  /**
   * The kept terms of `text` (processTerm over tokenize(text), nulls dropped) in order, as term
   * numbers into `out` (emptied first). Looked up by run of word characters (tokenize.ts's RUN),
   * over the text's code units: an ASCII run is scanned, one with anything else is left to RUN.
   */
  termsInto(text: string, out: TermList): void {
    out.length = 0;
    const n = text.length;
    const codes = this.codes.load(text);
    let i = 0;
    while (i < n) {
      const c = codes[i]!;
      if (c < 128) {
        if (!isAsciiWordChar(c)) {
          i++;
          continue;
        }
        let end = i + 1;
        while (end < n && isAsciiWordChar(codes[end]!)) end++;
        if (end === n || codes[end]! < 128) {
          this.runInto(text, codes, i, end, out);
          i = end;
          continue;
        }
      }
      // Shared, but nothing runs between setting lastIndex and exec().
      RUN.lastIndex = i;
      const m = RUN.exec(text);
      if (m === null) break;
      this.runInto(text, codes, m.index, RUN.lastIndex, out);
      i = RUN.lastIndex;
    }
  }

  /** Appends the terms of the run text[start, end) (codes: text's code units) to `out`. */
  private runInto(text: string, codes: Uint16Array, start: number, end: number, out: TermList): void {
    const { words } = this;
    const h = hashCodes(codes, start, end);
    let w = words.find(codes, start, end, h);
    if (w < 0) w = words.add(codes, start, end, h, this.termsOfRun(text.slice(start, end)));
    const { terms, termFrom } = words;
    for (let k = termFrom[w]!, to = termFrom[w + 1]!; k < to; k++) out.push(terms[k]!);
  }

  /** A new run's kept terms, in token order (numbering the new ones). */
  private termsOfRun(run: string): number[] {
    const { tokens, wordTerms } = this;
    tokens.length = 0;
    wordTerms.length = 0;
    segmentTokens(run, tokens);
    for (const raw of tokens) {
      const term = processTermUnmemoised(raw);
      if (term !== null) wordTerms.push(this.intern(term));
    }
    return wordTerms;
  }
}

/**
 * Counts docs one at a time. After count(), `touched` lists the doc's distinct term numbers in
 * order of first appearance (reused from doc to doc) and takeTf(t) gives (and clears) each one's
 * weighted frequency.
 */
export class TermCounter {
  readonly vocab = new Vocabulary();
  readonly touched = new TermList();
  private tfAcc = new Float64Array(1 << 12);
  private readonly lastText: (string | undefined)[] = [];
  /** Per field: the terms of lastText, reused while a file's chunks repeat it. */
  private readonly lastTerms: TermList[] = [];

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
      const terms = (lastTerms[f] ??= new TermList());
      if (lastText[f] !== text) {
        vocab.termsInto(text, terms);
        lastText[f] = text;
      }
      if (vocab.size > this.tfAcc.length) this.tfAcc = grown(this.tfAcc, new Float64Array(Math.max(vocab.size, this.tfAcc.length * 2)));
      const tfAcc = this.tfAcc;
      const ids = terms.ids;
      for (let i = 0, n = terms.length; i < n; i++) {
        const t = ids[i]!;
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
