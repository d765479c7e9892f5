/**
 * Counting one document's terms: tokenize each field, number its terms, and sum the weighted
 * term frequencies and length. SegmentBuilder counts with it in this thread; the chunk worker
 * threads count with it too (each with its own numbering), so a doc's tfs and length come out of
 * the same float operations in the same order wherever it was counted.
 */
import { nextWord, processTermUnmemoised, type WordCursor, wordTokens } from './tokenize.js';

/**
 * `s` without a reference to the text it was cut from. V8 makes a long substring a view of its
 * parent string: kept as a map key, one token kept a whole file's text alive (a worker thread
 * keeps its vocabulary for the whole run, and nothing else of those texts). Prefixing makes a
 * new string that the slice then flattens into one of the token's own size.
 */
function ownCopy(s: string): string {
  return (' ' + s).slice(1);
}

/** A growable list of term numbers, reused from doc to doc. */
export class TermList {
  ids = new Int32Array(256);
  length = 0;

  push(t: number): void {
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = t;
  }
}

const FNV_OFFSET = 2166136261 | 0;
const FNV_PRIME = 16777619;

/** FNV-1a of text[start, end)'s UTF-16 code units. */
function hashRange(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * Words (WORD's matches) -> their kept terms' numbers, in token order. A word recurs in a corpus
 * far more often than it is new, and tokenizing it (splitting identifiers, joining their parts,
 * cutting each token out of the text) allocated most of what a chunk thread collected: ~5 bytes
 * of garbage for each byte of text. Here a known word is found by hashing its characters where
 * they stand in the text and comparing them with the kept copy: nothing is cut or allocated.
 * Open addressing over typed arrays (a slot holds a word's number + 1 and its hash side by side);
 * the words' characters back to back in one array, and their terms in another.
 */
class WordTable {
  private slots = new Int32Array(2 << 14);
  private count = 0;
  private chars = new Uint16Array(1 << 16);
  /** Word w's characters are chars[charFrom[w], charFrom[w + 1]). */
  private charFrom = new Int32Array(1 << 13);
  private terms = new Int32Array(1 << 15);
  /** Word w's terms are terms[termFrom[w], termFrom[w + 1]). */
  private termFrom = new Int32Array(1 << 13);

  /** Words kept. */
  get size(): number {
    return this.count;
  }

  /** The word text[start, end) (hash `h`): its number, or -1 when it is not in the table. */
  find(text: string, start: number, end: number, h: number): number {
    const { slots, chars, charFrom } = this;
    const mask = (slots.length >> 1) - 1;
    const n = end - start;
    next: for (let s = h & mask; ; s = (s + 1) & mask) {
      const w = slots[2 * s]! - 1;
      if (w < 0) return -1;
      if (slots[2 * s + 1] !== h) continue;
      const from = charFrom[w]!;
      if (charFrom[w + 1]! - from !== n) continue;
      for (let i = 0; i < n; i++) if (chars[from + i] !== text.charCodeAt(start + i)) continue next;
      return w;
    }
  }

  /** Adds the word text[start, end) (hash `h`, not in the table) with its terms; its number. */
  add(text: string, start: number, end: number, h: number, terms: readonly number[]): number {
    const w = this.count++;
    if (w + 2 > this.charFrom.length) {
      this.charFrom = grownInt32(this.charFrom, this.charFrom.length * 2);
      this.termFrom = grownInt32(this.termFrom, this.termFrom.length * 2);
    }
    let c = this.charFrom[w]!;
    if (c + end - start > this.chars.length) {
      const grown = new Uint16Array(Math.max(this.chars.length * 2, c + end - start));
      grown.set(this.chars);
      this.chars = grown;
    }
    for (let i = start; i < end; i++) this.chars[c++] = text.charCodeAt(i);
    this.charFrom[w + 1] = c;
    let t = this.termFrom[w]!;
    if (t + terms.length > this.terms.length) this.terms = grownInt32(this.terms, Math.max(this.terms.length * 2, t + terms.length));
    for (const term of terms) this.terms[t++] = term;
    this.termFrom[w + 1] = t;
    this.place(w, h);
    // At most half full: probes stay short.
    if (2 * this.count > this.slots.length >> 1) this.rehash(this.slots.length);
    return w;
  }

  /** Appends word `w`'s terms to `out`. */
  appendTerms(w: number, out: TermList): void {
    const { terms } = this;
    for (let i = this.termFrom[w]!, end = this.termFrom[w + 1]!; i < end; i++) out.push(terms[i]!);
  }

  clear(): void {
    this.slots = new Int32Array(2 << 14);
    this.count = 0;
    this.chars = new Uint16Array(1 << 16);
    this.charFrom = new Int32Array(1 << 13);
    this.terms = new Int32Array(1 << 15);
    this.termFrom = new Int32Array(1 << 13);
  }

  private place(w: number, h: number): void {
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    while (slots[2 * s] !== 0) s = (s + 1) & mask;
    slots[2 * s] = w + 1;
    slots[2 * s + 1] = h;
  }

  /** Twice the slots (`size` slots now), every word placed again by its kept hash. */
  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(2 * size);
    for (let s = 0; s < old.length; s += 2) if (old[s] !== 0) this.place(old[s]! - 1, old[s + 1]!);
  }
}

function grownInt32(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(size);
  grown.set(a);
  return grown;
}

/** Term numbers in order of first appearance. */
export class Vocabulary {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Raw token -> term number (-1 = dropped): skips processTerm for every repeat of a token. */
  private readonly raw = new Map<string, number>();
  private readonly words = new WordTable();
  private readonly at: WordCursor = { start: 0, end: 0, word: null };
  private readonly tokens: string[] = [];
  private readonly wordTerms: number[] = [];

  get size(): number {
    return this.names.length;
  }

  /** Distinct words met since the last release(). */
  get wordCount(): number {
    return this.words.size;
  }

  /** Forgets the lookups (names stay): they are the largest part of a build's memory. */
  release(): void {
    this.ids.clear();
    this.raw.clear();
    this.words.clear();
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

  /**
   * The kept terms of `text`, in order, as term numbers into `out` (emptied first): the terms of
   * processTerm over tokenize(text), numbered in the order they first appear.
   */
  termsInto(text: string, out: TermList): void {
    const { at, words } = this;
    out.length = 0;
    at.start = at.end = 0;
    while (nextWord(text, at)) {
      const key = at.word ?? text;
      const start = at.word === null ? at.start : 0;
      const end = at.word === null ? at.end : key.length;
      const h = hashRange(key, start, end);
      let w = words.find(key, start, end, h);
      if (w < 0) w = words.add(key, start, end, h, this.termsOfWord(at.word ?? text.slice(start, end)));
      words.appendTerms(w, out);
    }
  }

  /** A new word's kept terms, in token order (numbering the new ones). */
  private termsOfWord(word: string): number[] {
    const { tokens, wordTerms } = this;
    tokens.length = 0;
    wordTerms.length = 0;
    wordTokens(word, tokens);
    for (const raw of tokens) {
      let t = this.raw.get(raw);
      if (t === undefined) {
        const term = processTermUnmemoised(raw);
        t = term === null ? -1 : this.intern(term);
        this.raw.set(ownCopy(raw), t);
      }
      if (t >= 0) wordTerms.push(t);
    }
    return wordTerms;
  }
}

/**
 * Counts docs one at a time. After count(), `touched` lists the doc's distinct term numbers in
 * order of first appearance (ids[0, length): reused from doc to doc, like every buffer here) and
 * takeTf(t) gives (and clears) each one's weighted frequency.
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
      if (vocab.size > this.tfAcc.length) {
        const grown = new Float64Array(Math.max(vocab.size, this.tfAcc.length * 2));
        grown.set(this.tfAcc);
        this.tfAcc = grown;
      }
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
