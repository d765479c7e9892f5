/**
 * Duplicate text: two hits whose chunks hold the same text, or a near-identical copy, are one
 * answer shown once (the other paths go to `also_in`).
 */

export interface Fingerprint {
  /** The whitespace- and case-normalised text, as two 32-bit hashes (equal texts, equal keys). */
  norm: string;
  /**
   * Word 5-shingles, each hashed to a 30-bit number (small integers are the cheapest keys; a
   * rare collision moves an overlap by one shingle in hundreds, never a verdict worth having),
   * distinct and ascending: overlaps are counted by a merge, and the smallest ones are the
   * prefix DuplicateIndex looks texts up by.
   */
  shingles: Int32Array;
}

const FNV_OFFSET = 2166136261;
const FNV_PRIME = 16777619;

/** What `\s` matches in a regular expression. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Word 5-shingles of the whitespace- and case-normalised text. Pure. One pass over the
 * characters, hashing as it goes: no lowercased copy, word list or shingle strings (this ran for
 * every hit of every answer).
 */
export function fingerprint(text: string): Fingerprint {
  const words: number[] = [];
  let w = FNV_OFFSET;
  let inWord = false;
  let n1 = FNV_OFFSET; // the normalised text's hashes: words with one separator between them
  let n2 = 0x9747b28c;
  const end = (): void => {
    words.push(w & 0x3fffffff);
    n1 = Math.imul(n1 ^ w, FNV_PRIME);
    n2 = Math.imul(n2 ^ w, 0x5bd1e995) ^ (n2 >>> 15);
    w = FNV_OFFSET;
    inWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (inWord) end();
      continue;
    }
    if (c >= 65 && c <= 90) c += 32;
    else if (c > 127) c = text[i]!.toLowerCase().charCodeAt(0);
    w = Math.imul(w ^ c, FNV_PRIME);
    inWord = true;
  }
  if (inWord) end();
  let all: Int32Array;
  if (words.length >= 5) {
    all = new Int32Array(words.length - 4);
    for (let i = 0; i + 5 <= words.length; i++) {
      all[i] = (Math.imul(Math.imul(Math.imul(Math.imul(words[i]!, 31) + words[i + 1]!, 31) + words[i + 2]!, 31) + words[i + 3]!, 31) + words[i + 4]!) & 0x3fffffff;
    }
  } else {
    all = words.length > 0 ? Int32Array.of(n1 & 0x3fffffff) : new Int32Array(0);
  }
  return { norm: words.length === 0 ? '' : `${n1 >>> 0}:${n2 >>> 0}:${words.length}`, shingles: distinctSorted(all) };
}

/** The distinct values of `a`, ascending (sorts `a` in place). */
function distinctSorted(a: Int32Array): Int32Array {
  a.sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[n - 1]) a[n++] = a[i]!;
  return n === a.length ? a : a.slice(0, n);
}

/** How many values two ascending distinct lists share. Pure. */
function commonCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

/** Duplicate threshold: Jaccard overlap of word 5-shingles (issue 12: ≥ 0.9). */
export const NEAR_DUPLICATE = 0.9;

/** Pure: the same normalised text, or shingle Jaccard ≥ NEAR_DUPLICATE. */
export function sameText(a: Fingerprint, b: Fingerprint): boolean {
  if (a.norm === b.norm) return true;
  return nearCopies(a.shingles, b.shingles);
}

function nearCopies(a: Int32Array, b: Int32Array): boolean {
  const [small, big] = a.length <= b.length ? [a.length, b.length] : [b.length, a.length];
  if (small === 0 || small < NEAR_DUPLICATE * big) return false;
  return jaccardAtLeast(commonCount(a, b), small, big);
}

const jaccardAtLeast = (common: number, a: number, b: number): boolean => common / (a + b - common) >= NEAR_DUPLICATE;

/**
 * How many of a text's smallest shingles DuplicateIndex files it under. Two texts with Jaccard
 * ≥ 0.9 share at least ⌈0.9·n⌉ of the n shingles of either; the smallest shared one then sits
 * within the first n − ⌈0.9·n⌉ + 1 of both (at least that many shared ones follow it), so
 * near copies always meet in their prefixes. floor(9n/10) ≤ ⌈0.9·n⌉ keeps the prefix long enough.
 */
export function prefixLength(n: number): number {
  return Math.min(n, n - Math.floor((9 * n) / 10) + 1);
}

/**
 * The texts kept so far, looked up by shingle: `twinOf` answers what comparing with every kept
 * text by `sameText` would (the earliest kept match). Only each text's prefix of smallest
 * shingles is indexed (prefixLength): a tenth of the map work of indexing them all, and the
 * few texts met there are checked by a full merge.
 */
export class DuplicateIndex<T> {
  private readonly kept: { item: T; fp: Fingerprint }[] = [];
  private readonly byNorm = new Map<string, number>();
  /** Prefix shingle -> the kept text holding it, or all of them when several do. */
  private readonly byShingle = new Map<number, number | number[]>();

  twinOf(fp: Fingerprint): T | undefined {
    let best = this.byNorm.get(fp.norm) ?? Infinity;
    const own = fp.shingles;
    let checked: Set<number> | null = null; // a text sharing several prefix shingles is merged once
    const check = (k: number): void => {
      if (k >= best || checked?.has(k)) return;
      (checked ??= new Set()).add(k);
      if (nearCopies(own, this.kept[k]!.fp.shingles)) best = k;
    };
    for (let i = 0, p = prefixLength(own.length); i < p; i++) {
      const at = this.byShingle.get(own[i]!);
      if (typeof at === 'number') check(at);
      else if (at) at.forEach(check);
    }
    return best === Infinity ? undefined : this.kept[best]!.item;
  }

  add(item: T, fp: Fingerprint): void {
    const k = this.kept.length;
    this.kept.push({ item, fp });
    if (!this.byNorm.has(fp.norm)) this.byNorm.set(fp.norm, k);
    for (let i = 0, p = prefixLength(fp.shingles.length); i < p; i++) {
      const s = fp.shingles[i]!;
      const at = this.byShingle.get(s);
      if (at === undefined) this.byShingle.set(s, k);
      else if (typeof at === 'number') this.byShingle.set(s, [at, k]);
      else at.push(k);
    }
  }
}
