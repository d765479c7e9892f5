/** Small pure helpers every provider shares. */

/** A stable id of a vector space: vectors with different keys are never compared or cached together. */
export function embedderKey(provider: string, model: string, dimension: number): string {
  return `${provider}:${model}:${dimension}`;
}

/**
 * A unit-length copy of `v`, so inner product equals cosine everywhere downstream.
 * A zero vector stays zero (there is no direction to keep); non-finite input is a provider bug.
 */
export function normalize(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v as ArrayLike<number>);
  let sum = 0;
  for (let i = 0; i < out.length; i++) {
    const x = out[i]!;
    if (!Number.isFinite(x)) throw new Error(`embedding contains a non-finite value at ${i}`);
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`dimension mismatch: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Consecutive slices of at most `size` items. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
