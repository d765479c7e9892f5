/**
 * Words (term-count.ts keeps runs of word characters) -> their terms, looked up by the words'
 * UTF-16 code units where they stand in a field's code array (CodeBuffer), without cutting a
 * string. A word recurs in a corpus far more often than it is new: cutting each token out of the
 * text and looking it up in a Map (which hashes and compares the new string) was most of a chunk
 * thread's term counting and of its garbage.
 *
 * Open addressing over typed arrays: a slot holds a word's number + 1 (0: empty) and its hash; a
 * word's code units are kept back to back in `chars`, its term numbers in `terms`. A found slot's
 * word is compared code unit by code unit: equal hashes are not trusted.
 */
import { grown } from '../../typed-array.js';

const FNV_OFFSET = 2166136261 | 0;
const FNV_PRIME = 16777619;

/** FNV-1a of codes[start, end). */
export function hashCodes(codes: Uint16Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ codes[i]!, FNV_PRIME);
  return h;
}

export class WordTable {
  /** Pairs (word number + 1, hash); at most half the pairs are used, so probes stay short. */
  private slots = new Int32Array(2 << 12);
  private count = 0;
  private chars = new Uint16Array(1 << 15);
  /** Word w's code units are chars[charFrom[w], charFrom[w + 1]). */
  private charFrom = new Int32Array(1 << 12);
  /** Word w's terms are terms[termFrom[w], termFrom[w + 1]); read them after find() or add(). */
  terms = new Int32Array(1 << 13);
  termFrom = new Int32Array(1 << 12);

  /** Words kept. */
  get size(): number {
    return this.count;
  }

  /** The number of the word codes[start, end) (whose hash is `h`), or -1 when it is not kept. */
  find(codes: Uint16Array, start: number, end: number, h: number): number {
    const { slots, chars, charFrom } = this;
    const mask = (slots.length >> 1) - 1;
    const n = end - start;
    next: for (let s = h & mask; ; s = (s + 1) & mask) {
      const w = slots[2 * s]! - 1;
      if (w < 0) return -1;
      if (slots[2 * s + 1] !== h) continue;
      const from = charFrom[w]!;
      if (charFrom[w + 1]! - from !== n) continue;
      for (let i = 0; i < n; i++) if (chars[from + i] !== codes[start + i]) continue next;
      return w;
    }
  }

  /** Keeps the word codes[start, end) (hash `h`, not kept yet) with its terms; its number. */
  add(codes: Uint16Array, start: number, end: number, h: number, terms: readonly number[]): number {
    const w = this.count++;
    if (w + 2 > this.charFrom.length) {
      this.charFrom = grown(this.charFrom, new Int32Array(this.charFrom.length * 2));
      this.termFrom = grown(this.termFrom, new Int32Array(this.termFrom.length * 2));
    }
    const c = this.charFrom[w]!;
    if (c + end - start > this.chars.length) this.chars = grown(this.chars, new Uint16Array(Math.max(this.chars.length * 2, c + end - start)));
    this.chars.set(codes.subarray(start, end), c);
    this.charFrom[w + 1] = c + end - start;
    let t = this.termFrom[w]!;
    if (t + terms.length > this.terms.length) this.terms = grown(this.terms, new Int32Array(Math.max(this.terms.length * 2, t + terms.length)));
    for (const term of terms) this.terms[t++] = term;
    this.termFrom[w + 1] = t;
    this.place(w, h);
    if (4 * this.count > this.slots.length) this.rehash();
    return w;
  }

  private place(w: number, h: number): void {
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    while (slots[2 * s] !== 0) s = (s + 1) & mask;
    slots[2 * s] = w + 1;
    slots[2 * s + 1] = h;
  }

  /** Twice the slots, every word placed again by its kept hash. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(2 * old.length);
    for (let s = 0; s < old.length; s += 2) if (old[s] !== 0) this.place(old[s]! - 1, old[s + 1]!);
  }
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * A text's UTF-16 code units in a reused array: scanning and hashing a typed array is cheaper than
 * charCodeAt on strings of several representations (sliced, flat, one or two bytes a unit), and
 * Buffer's `utf16le` write copies them natively (lone surrogates included, unchanged).
 */
export class CodeBuffer {
  private bytes = Buffer.allocUnsafeSlow(1 << 13);
  private units = new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >> 1);

  /** `text`'s code units at [0, text.length); valid until the next call. */
  load(text: string): Uint16Array {
    if (text.length > this.units.length) {
      this.bytes = Buffer.allocUnsafeSlow(2 * Math.max(text.length, 2 * this.units.length));
      this.units = new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >> 1);
    }
    const units = this.units;
    if (LITTLE_ENDIAN) this.bytes.write(text, 0, 'utf16le');
    else for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
    return units;
  }
}
