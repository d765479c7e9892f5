/**
 * Duplicate text: two hits whose chunks hold the same text, or a near-identical copy, are one
 * answer shown once (the other paths go to `also_in`).
 */

export interface Fingerprint {
  norm: string;
  /**
   * Word 5-shingles, each hashed to a 30-bit number (small integers are the cheapest keys; a
   * rare collision moves an overlap by one shingle in hundreds, never a verdict worth having).
   */
  shingles: Set<number>;
}

/** 30-bit FNV-1a of a word. */
function wordHash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h & 0x3fffffff;
}

/** Word 5-shingles of the whitespace- and case-normalised text. Pure. */
export function fingerprint(text: string): Fingerprint {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const norm = words.join(' ');
  const shingles = new Set<number>();
  const h = words.map(wordHash);
  for (let i = 0; i + 5 <= h.length; i++) {
    shingles.add((Math.imul(Math.imul(Math.imul(Math.imul(h[i]!, 31) + h[i + 1]!, 31) + h[i + 2]!, 31) + h[i + 3]!, 31) + h[i + 4]!) & 0x3fffffff);
  }
  if (words.length < 5 && norm) shingles.add(wordHash(norm));
  return { norm, shingles };
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
