/**
 * The transformers path with a BERT-shaped random-weight model (bench/lib/bert-onnx.ts, 2 layers
 * and a small vocabulary so it is quick; the bench builds the full bge-small shape): prefixes,
 * pooling per family, unit length, truncation at the tokenizer's max length. Random weights: these
 * tests check plumbing, never meaning.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { BGE_SMALL, writeBertShapedModel } from '../../bench/lib/bert-onnx.js';
import { createTransformersEmbedder } from '../../src/lib/embedding/transformers.js';
import { dot } from '../../src/lib/embedding/vectors.js';

const base = mkdtempSync(join(tmpdir(), 'tkoma-shaped-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const SHAPE = { ...BGE_SMALL, layers: 2, vocab: 2000 };

function model(name: string, opts: { quantized?: boolean; maxLength?: number; cls?: boolean } = {}): string {
  const dir = join(base, name);
  writeBertShapedModel(dir, SHAPE, opts);
  if (opts.cls === false) rmSync(join(dir, '1_Pooling'), { recursive: true, force: true });
  return dir;
}

const close = (a: Float32Array, b: Float32Array) => expect(dot(a, b)).toBeGreaterThan(0.99999);

describe('transformers with a BERT-shaped model', () => {
  it('bge: 384 dims, unit vectors, CLS pooling, the retrieval instruction on queries only', async () => {
    const dir = model('bge-small-en-v1.5', { maxLength: 32 });
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir, model: 'bge-small-en-v1.5' });
    expect(e.key).toBe('transformers:bge-small-en-v1.5:384');
    const [d] = await e.embedDocuments(['how to resize the grid']);
    expect(Math.hypot(...d!)).toBeCloseTo(1, 5);
    const q = await e.embedQuery('how to resize the grid');
    const [prefixed] = await e.embedDocuments(['Represent this sentence for searching relevant passages: how to resize the grid']);
    close(q, prefixed!);
    expect(dot(q, d!)).toBeLessThan(0.99999);
    await e.close();
  });

  it('truncates at the tokenizer max length: texts equal up to it embed alike', async () => {
    const dir = model('bge-small-en-v1.5-16', { maxLength: 16 });
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir, model: 'bge-small-en-v1.5' });
    const head = 'the gear ratio is teeth over teeth and more words here to pass sixteen tokens easily';
    const [a, b] = await e.embedDocuments([`${head} alpha beta`, `${head} gamma delta epsilon`]);
    close(a!, b!);
    await e.close();
  });

  it('e5 without a pooling file: mean pooling and query:/passage: prefixes; int8 weights are their own space', async () => {
    const dir = model('e5-small-v2', { quantized: true, maxLength: 32, cls: false });
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir, model: 'e5-small-v2' });
    expect(e.key).toBe('transformers:e5-small-v2@q8:384');
    const q = await e.embedQuery('resize');
    const [asDoc] = await e.embedDocuments(['resize']); // gets "passage: "
    expect(dot(q, asDoc!)).toBeLessThan(0.99999);
    const cls = model('e5-small-v2-cls', { quantized: true, maxLength: 32, cls: true });
    const c = await createTransformersEmbedder({ provider: 'transformers', modelDir: cls, model: 'e5-small-v2' });
    const [m] = await e.embedDocuments(['a longer text with several tokens in it']);
    const [k] = await c.embedDocuments(['a longer text with several tokens in it']);
    // Same weights (same seed), another pooling: another vector.
    expect(dot(m!, k!)).toBeLessThan(0.999);
    await e.close();
    await c.close();
  });
});
