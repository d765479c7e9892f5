/** The embedding cache, driven by the real transformers path with tiny random-weight models. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdirSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  EmbeddingCache,
  cacheFileName,
  decodeFile,
  embedWithCache,
  embedWithCacheDetailed,
  encodeHeader,
  encodeRecords,
} from '../../src/lib/embedding/cache.js';
import { createTransformersEmbedder, type TransformersEmbedder } from '../../src/lib/embedding/transformers.js';
import { maxAbsDiff, tinyModelAt, tmpDir } from '../helpers/tmp.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const items = (texts: string[]) => texts.map((text) => ({ hash: sha(text), text }));

let tmp: ReturnType<typeof tmpDir>;
let modelA: TransformersEmbedder;
let modelB: TransformersEmbedder;
let n = 0;
const freshDir = () => join(tmp.dir, `cache-${n++}`);

beforeAll(async () => {
  tmp = tmpDir();
  modelA = await createTransformersEmbedder({ provider: 'transformers', modelDir: tinyModelAt(tmp.dir, 'tiny-a', { seed: 1 }) });
  modelB = await createTransformersEmbedder({ provider: 'transformers', modelDir: tinyModelAt(tmp.dir, 'tiny-b', { seed: 2 }) });
});
afterAll(async () => {
  await modelA?.close();
  await modelB?.close();
  tmp.cleanup();
});

const TEXTS = Array.from({ length: 20 }, (_, i) => `function number ${i} returns value ${i * 7}`);

describe('embedWithCache', () => {
  it('embeds each distinct hash once, and nothing the second time, even from a new process state', async () => {
    const dir = freshDir();
    const input = items([...TEXTS, TEXTS[0]!, TEXTS[1]!]); // duplicates are embedded once
    const progress: [number, number][] = [];
    const before = modelA.embeddedCount;
    const first = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), input, {
      batchSize: 8,
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(first.embedded).toBe(20);
    expect(first.cached).toBe(0);
    expect(modelA.embeddedCount - before).toBe(20);
    expect(progress).toEqual([[8, 20], [16, 20], [20, 20]]);
    expect(first.vectors.size).toBe(20);

    // A new cache object reads the file: nothing is embedded again.
    const mid = modelA.embeddedCount;
    const second = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), input);
    expect(second.embedded).toBe(0);
    expect(second.cached).toBe(20);
    expect(modelA.embeddedCount).toBe(mid);
    for (const { hash } of input) expect(Array.from(second.vectors.get(hash)!)).toEqual(Array.from(first.vectors.get(hash)!));

    // Cached vectors equal freshly computed ones.
    const [fresh] = await modelA.embedDocuments([TEXTS[3]!]);
    expect(maxAbsDiff(second.vectors.get(sha(TEXTS[3]!))!, fresh!)).toBeLessThan(1e-6);
  });

  it('embeds only the changed texts', async () => {
    const dir = freshDir();
    const cache = new EmbeddingCache(dir);
    await embedWithCache(modelA, cache, items(TEXTS));
    const changed = [...TEXTS.slice(0, 18), 'a brand new chunk', 'another new chunk'];
    const r = await embedWithCacheDetailed(modelA, cache, items(changed));
    expect(r.embedded).toBe(2);
    expect(r.cached).toBe(18);
  });

  it('tolerates a truncated tail and keeps later appends readable', async () => {
    const dir = freshDir();
    await embedWithCache(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 5)));
    const [file] = readdirSync(dir);
    const path = join(dir, file!);
    truncateSync(path, statSync(path).size - 10); // crash in the middle of the last record

    const reopened = new EmbeddingCache(dir);
    const r = await embedWithCacheDetailed(modelA, reopened, items(TEXTS.slice(0, 5)));
    expect(r.cached).toBe(4);
    expect(r.embedded).toBe(1);

    const third = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 6)));
    expect(third.cached).toBe(5);
    expect(third.embedded).toBe(1);
    const last = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 6)));
    expect(last.embedded).toBe(0);
  });

  it('starts over when the file is not a cache file', async () => {
    const dir = freshDir();
    await embedWithCache(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 3)));
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), 'garbage');
    const r = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 3)));
    expect(r.embedded).toBe(3);
    expect((await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 3)))).embedded).toBe(0);
  });

  it('stops reading at a damaged record instead of returning garbage', async () => {
    const dir = freshDir();
    await embedWithCache(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 3)));
    const [file] = readdirSync(dir);
    appendFileSync(join(dir, file!), Buffer.alloc(1000, 0xff)); // a whole "record" whose hash is not ASCII
    const r = await embedWithCacheDetailed(modelA, new EmbeddingCache(dir), items(TEXTS.slice(0, 3)));
    expect(r.cached).toBe(3);
  });

  it('never mixes vectors of different embedders', async () => {
    const dir = freshDir();
    const cache = new EmbeddingCache(dir);
    expect(modelA.key).not.toBe(modelB.key);
    const a = await embedWithCacheDetailed(modelA, cache, items(TEXTS.slice(0, 4)));
    const b = await embedWithCacheDetailed(modelB, cache, items(TEXTS.slice(0, 4)));
    expect(a.embedded).toBe(4);
    expect(b.embedded).toBe(4); // A's entries are no hits for B
    const h = sha(TEXTS[0]!);
    expect(maxAbsDiff(cache.get(modelA.key, h)!, cache.get(modelB.key, h)!)).toBeGreaterThan(0.01);
    expect(readdirSync(dir).sort()).toEqual([cacheFileName(modelA.key), cacheFileName(modelB.key)].sort());

    const reread = new EmbeddingCache(dir);
    await reread.open(modelB.key, modelB.dimension);
    expect(maxAbsDiff(reread.get(modelB.key, h)!, b.vectors.get(h)!)).toBeLessThan(1e-7);
    expect(reread.get(modelA.key, h)).toBeUndefined(); // not opened: nothing leaks across keys
  });
});

describe('cache file format', () => {
  it('round-trips records and ignores any partial tail', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[0-9a-f]{8,64}$/), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 16 }),
        fc.nat(),
        (hashes, dim, cutSeed) => {
          const entries = hashes.map((h, i) => [h, Float32Array.from({ length: dim }, (_, j) => i - j / 3)] as const);
          const buf = Buffer.concat([encodeHeader('k:m:1', dim), encodeRecords(entries, dim)]);
          const whole = decodeFile(buf, 'k:m:1', dim);
          expect(whole.valid).toBe(true);
          expect(whole.goodLength).toBe(buf.length);
          expect([...whole.entries.keys()]).toEqual(hashes);
          const cut = decodeFile(buf.subarray(0, buf.length - 1 - (cutSeed % 4)), 'k:m:1', dim);
          expect(cut.entries.size).toBe(hashes.length - 1);
          expect(decodeFile(buf, 'other:key:1', dim).valid).toBe(false);
        },
      ),
    );
  });

  it('refuses hashes it could not read back and vectors of the wrong size', () => {
    expect(() => encodeRecords([['', new Float32Array(2)]], 2)).toThrow();
    expect(() => encodeRecords([['h\u00e9', new Float32Array(2)]], 2)).toThrow();
    expect(() => encodeRecords([['abc', new Float32Array(3)]], 2)).toThrow();
  });

  it('file names are path-safe and distinct per key', () => {
    const a = cacheFileName('transformers:Xenova/bge-small-en-v1.5:384');
    const b = cacheFileName('transformers:Xenova/bge_small-en-v1.5:384');
    expect(a).toMatch(/^[A-Za-z0-9._-]+\.bin$/);
    expect(a).not.toBe(b);
  });
});
