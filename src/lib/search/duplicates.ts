/**
 * Duplicate text: two hits whose chunks hold the same text, or a near-identical copy, are one
 * answer shown once (the other paths go to `also_in`).
 */

export interface Fingerprint {
  norm: string;
  shingles: Set<string>;
}

/** Word 5-shingles of the whitespace- and case-normalised text. */
export function fingerprint(text: string): Fingerprint {
  const norm = text.toLowerCase().replace(/\s+/g, ' ').trim();
  const words = norm.split(' ');
  const shingles = new Set<string>();
  for (let i = 0; i + 5 <= words.length; i++) shingles.add(words.slice(i, i + 5).join(' '));
  if (words.length < 5 && norm) shingles.add(norm);
  return { norm, shingles };
}

/** Duplicate threshold: Jaccard overlap of word 5-shingles (issue 12: ≥ 0.9). */
export const NEAR_DUPLICATE = 0.9;

export function sameText(a: Fingerprint, b: Fingerprint): boolean {
  if (a.norm === b.norm) return true;
  const [small, big] = a.shingles.size <= b.shingles.size ? [a.shingles, b.shingles] : [b.shingles, a.shingles];
  if (small.size === 0 || small.size < NEAR_DUPLICATE * big.size) return false;
  let common = 0;
  for (const s of small) if (big.has(s)) common++;
  return common / (small.size + big.size - common) >= NEAR_DUPLICATE;
}
