/**
 * The transformers.js path with a tiny random-weight BERT-shaped model built by the test:
 * loading from a local folder, batching, pooling and prefixes. Never semantics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEmbedder } from '../../src/lib/embedding/index.js';
import { createTransformersEmbedder, locateModel, type TransformersEmbedder } from '../../src/lib/embedding/transformers.js';
import { TkomaError } from '../../src/lib/errors.js';
import { maxAbsDiff, norm, tinyModelAt, tmpDir } from '../helpers/tmp.js';

const TEXTS = [
  'parse the config file',
  'a',
  'class Index { search(value) { return value } }',
  '',
  'Return the value of the function; the search index holds every file 12345.',
  'zz',
];

let tmp: ReturnType<typeof tmpDir>;
let tinyDir: string;
let tiny: TransformersEmbedder;

beforeAll(async () => {
  tmp = tmpDir();
  tinyDir = tinyModelAt(tmp.dir, 'tiny-bert');
  tiny = await createTransformersEmbedder({ provider: 'transformers', modelDir: tinyDir }, { batchSize: 4 });
});
afterAll(async () => {
  await tiny?.close();
  tmp.cleanup();
});

describe('transformers provider with a local model folder', () => {
  it('loads the folder and reports dimension and key', () => {
    expect(tiny.dimension).toBe(32);
    expect(tiny.model).toBe('tiny-bert');
    expect(tiny.key).toBe('transformers:tiny-bert:32');
    expect(tiny.source).toBe('local');
    expect(tiny.profile.pooling).toBe('mean');
  });

  it('returns one unit vector per text, in input order, deterministically', async () => {
    const a = await tiny.embedDocuments(TEXTS);
    const b = await tiny.embedDocuments(TEXTS);
    expect(a).toHaveLength(TEXTS.length);
    a.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(32);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(Array.from(v)).toEqual(Array.from(b[i]!));
    });
    // Mean pooling over different tokens gives different vectors.
    expect(maxAbsDiff(a[0]!, a[2]!)).toBeGreaterThan(0.01);
  });

  it('a batch gives the same vectors as one text at a time (padding is masked)', async () => {
    const batch = await tiny.embedDocuments(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) {
      const [single] = await tiny.embedDocuments([TEXTS[i]!]);
      expect(maxAbsDiff(batch[i]!, single!)).toBeLessThan(1e-5);
    }
    expect(await tiny.embedDocuments([])).toEqual([]);
  });

  it('counts the texts it runs', async () => {
    const before = tiny.embeddedCount;
    await tiny.embedDocuments(['x', 'y', 'z']);
    expect(tiny.embeddedCount - before).toBe(3);
  });

  it('a generic model embeds queries and documents alike', async () => {
    const [d] = await tiny.embedDocuments(['search the index']);
    const q = await tiny.embedQuery('search the index');
    expect(maxAbsDiff(d!, q)).toBeLessThan(1e-6);
  });

  it('truncates to the tokenizer limit instead of failing on long input', async () => {
    const dir = tinyModelAt(tmp.dir, 'short-bert', { maxLength: 8 });
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir });
    // [CLS] + 6 tokens + [SEP]: the seven-word head already fills the window.
    const head = 'parse the config file value search index';
    const [a, b, c] = await e.embedDocuments([`${head} function`, `${head} ${'class '.repeat(3000)}`, 'function class']);
    expect(maxAbsDiff(a!, b!)).toBeLessThan(1e-6); // both cut to the same first tokens
    expect(maxAbsDiff(a!, c!)).toBeGreaterThan(0.01);
    await e.close();
  });
});

describe('model families', () => {
  it('e5 names add query:/passage: prefixes', async () => {
    const e5 = await createTransformersEmbedder({ provider: 'transformers', modelDir: tinyDir, model: 'tiny-e5-small' });
    expect(e5.key).toBe('transformers:tiny-e5-small:32');
    const [doc] = await e5.embedDocuments(['search the index']);
    const q = await e5.embedQuery('search the index');
    const [plainPassage, plainQuery] = await tiny.embedDocuments(['passage: search the index', 'query: search the index']);
    expect(maxAbsDiff(doc!, plainPassage!)).toBeLessThan(1e-5);
    expect(maxAbsDiff(q, plainQuery!)).toBeLessThan(1e-5);
    expect(maxAbsDiff(doc!, q)).toBeGreaterThan(0.01);
    await e5.close();
  });

  it('bge names pool on the CLS token', async () => {
    const bge = await createTransformersEmbedder({ provider: 'transformers', modelDir: tinyDir, model: 'tiny-bge-small' });
    expect(bge.profile.pooling).toBe('cls');
    // The tiny model has no attention, so the CLS position holds the same vector whatever follows.
    const vs = await bge.embedDocuments(TEXTS);
    for (const v of vs) expect(maxAbsDiff(v, vs[0]!)).toBeLessThan(1e-6);
    await bge.close();
  });

  it("a sentence-transformers 1_Pooling config overrides the name's pooling", async () => {
    const dir = tinyModelAt(tmp.dir, 'pooled-bert');
    mkdirSync(join(dir, '1_Pooling'));
    writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_cls_token: true }));
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir });
    expect(e.profile.pooling).toBe('cls');
    const [a, b] = await e.embedDocuments(['one text', 'another text entirely']);
    expect(maxAbsDiff(a!, b!)).toBeLessThan(1e-6);
    await e.close();
  });
});

describe('where the model comes from', () => {
  it('a mirror root holding <model id>/ is read with the model setting', async () => {
    const root = join(tmp.dir, 'mirror');
    tinyModelAt(root, 'acme/tiny-bert');
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: root, model: 'acme/tiny-bert' });
    expect(e.key).toBe('transformers:acme/tiny-bert:32');
    const [v] = await e.embedDocuments(['parse the config file']);
    const [ref] = await tiny.embedDocuments(['parse the config file']);
    expect(maxAbsDiff(v!, ref!)).toBeLessThan(1e-6); // same seed, same weights
    await e.close();
  });

  it('a folder whose name is not a hub id is read by its absolute path', async () => {
    const dir = tinyModelAt(tmp.dir, 'my model (copy)');
    expect(locateModel({ provider: 'transformers', modelDir: dir }, '/unused').id).toBe(dir);
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir });
    expect(e.key).toBe('transformers:my model (copy):32');
    await e.close();
  });

  it('a model downloaded earlier into the cache dir loads without the network', async () => {
    const cacheDir = join(tmp.dir, 'cache');
    tinyModelAt(cacheDir, 'Xenova/bge-small-en-v1.5');
    expect(locateModel({ provider: 'transformers', cacheDir }, '/unused').mode).toBe('local');
    const e = await createEmbedder({ provider: 'transformers', cacheDir });
    expect(e).not.toBeNull();
    expect(e!.key).toBe('transformers:Xenova/bge-small-en-v1.5:32');
    expect((e as TransformersEmbedder).source).toBe('cache');
    expect((e as TransformersEmbedder).profile.queryPrefix).toMatch(/^Represent this sentence/);
    await e!.close();
  });

  it('a folder holding only quantised weights loads them and keys them apart', async () => {
    const dir = tinyModelAt(tmp.dir, 'q-bert');
    const { renameSync } = await import('node:fs');
    renameSync(join(dir, 'onnx', 'model.onnx'), join(dir, 'onnx', 'model_quantized.onnx'));
    const e = await createTransformersEmbedder({ provider: 'transformers', modelDir: dir });
    expect(e.key).toBe('transformers:q-bert@q8:32');
    await e.close();
  });

  it('a folder without a model is EMBEDDER_UNAVAILABLE naming what is missing', async () => {
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    const err = await createEmbedder({ provider: 'transformers', modelDir: empty }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TkomaError);
    expect((err as TkomaError).code).toBe('EMBEDDER_UNAVAILABLE');
    expect((err as TkomaError).message).toContain('config.json');
  });

  it('a broken ONNX file is EMBEDDER_UNAVAILABLE, not a crash', async () => {
    const dir = tinyModelAt(tmp.dir, 'broken-bert');
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not a model');
    const err = await createEmbedder({ provider: 'transformers', modelDir: dir }).catch((e: unknown) => e);
    expect((err as TkomaError).code).toBe('EMBEDDER_UNAVAILABLE');
    expect((err as TkomaError).message).toContain('broken-bert');
  });
});
