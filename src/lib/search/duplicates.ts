/**
 * Duplicate text: two hits whose chunks hold the same text, or a near-identical copy, are one
 * answer shown once (the other paths go to `also_in`).
 */

export interface Fingerprint {
  /** The whitespace- and case-normalised text, as two 32-bit hashes (equal texts, equal keys). */
  norm: string;
  /**
   * Word 5-shingles, each hashed to a 30-bit number (small integers are the cheapest keys; a
   * rare collision moves an overlap by one shingle in hundreds, never a verdict worth having).
   */
  shingles: Set<number>;
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
  const shingles = new Set<number>();
  for (let i = 0; i + 5 <= words.length; i++) {
    shingles.add((Math.imul(Math.imul(Math.imul(Math.imul(words[i]!, 31) + words[i + 1]!, 31) + words[i + 2]!, 31) + words[i + 3]!, 31) + words[i + 4]!) & 0x3fffffff);
  }
  if (words.length > 0 && words.length < 5) shingles.add(n1 & 0x3fffffff);
  return { norm: words.length === 0 ? '' : `${n1 >>> 0}:${n2 >>> 0}:${words.length}`, shingles };
}

/** Duplicate threshold: Jaccard overlap of word 5-shingles (issue 12: ≥ 0.9). */
export const NEAR_DUPLICATE = 0.9;

/** Pure: the same normalised text, or shingle Jaccard ≥ NEAR_DUPLICATE. */
export function sameText(a: Fingerprint, b: Fingerprint): boolean {
  if (a.norm === b.norm) return true;
  const [small, big] = a.shingles.size <= b.shingles.size ? [a.shingles, b.shingles] : [b.shingles, a.shingles];
  if (small.size === 0 || small.size < NEAR_DUPLICATE * big.size) return false;
  let common = 0;
  for (const s of small) if (big.has(s)) common++;
  return jaccardAtLeast(common, small.size, big.size);
}

const jaccardAtLeast = (common: number, a: number, b: number): boolean => common / (a + b - common) >= NEAR_DUPLICATE;

/**
 * The texts kept so far, looked up by shingle: `twinOf` answers what comparing with every kept
 * text by `sameText` would (the earliest kept match), in time proportional to the new text's
 * shingles rather than to the number of kept texts times their size.
 */
export class DuplicateIndex<T> {
  private readonly kept: { item: T; fp: Fingerprint }[] = [];
  private readonly byNorm = new Map<string, number>();
  /** Shingle -> the kept text holding it, or all of them when several do. */
  private readonly byShingle = new Map<number, number | number[]>();

  twinOf(fp: Fingerprint): T | undefined {
    let best = this.byNorm.get(fp.norm) ?? Infinity;
    if (fp.shingles.size > 0) {
      const common = new Map<number, number>();
      const count = (k: number): void => {
        common.set(k, (common.get(k) ?? 0) + 1);
      };
      for (const s of fp.shingles) {
        const at = this.byShingle.get(s);
        if (typeof at === 'number') count(at);
        else if (at) at.forEach(count);
      }
      for (const [k, n] of common) {
        if (k >= best) continue;
        const other = this.kept[k]!.fp.shingles.size;
        const [small, big] = fp.shingles.size <= other ? [fp.shingles.size, other] : [other, fp.shingles.size];
        if (small >= NEAR_DUPLICATE * big && jaccardAtLeast(n, small, big)) best = k;
      }
    }
    return best === Infinity ? undefined : this.kept[best]!.item;
  }

  add(item: T, fp: Fingerprint): void {
    const k = this.kept.length;
    this.kept.push({ item, fp });
    if (!this.byNorm.has(fp.norm)) this.byNorm.set(fp.norm, k);
    for (const s of fp.shingles) {
      const at = this.byShingle.get(s);
      if (at === undefined) this.byShingle.set(s, k);
      else if (typeof at === 'number') this.byShingle.set(s, [at, k]);
      else at.push(k);
    }
  }
}
