import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { modelProfile } from '../../src/lib/embedding/profiles.js';
import { batches, dot, embedderKey, normalize } from '../../src/lib/embedding/vectors.js';
import { prepareUseLiteInput, USE_LITE_MAX_CHARS } from '../../src/lib/embedding/use-lite.js';

describe('modelProfile', () => {
  const BGE_QUERY = 'Represent this sentence for searching relevant passages: ';
  it.each([
    ['Xenova/bge-small-en-v1.5', 'bge', 'cls', BGE_QUERY, ''],
    ['BAAI/bge-base-en-v1.5', 'bge', 'cls', BGE_QUERY, ''],
    ['BAAI/bge-m3', 'bge-m3', 'cls', '', ''],
    ['BAAI/bge-small-zh-v1.5', 'bge-zh', 'cls', '为这个句子生成表示以用于检索相关文章：', ''],
    ['Xenova/e5-small-v2', 'e5', 'mean', 'query: ', 'passage: '],
    ['intfloat/multilingual-e5-small', 'e5', 'mean', 'query: ', 'passage: '],
    ['nomic-ai/nomic-embed-text-v1.5', 'nomic', 'mean', 'search_query: ', 'search_document: '],
    ['nomic-embed-text', 'nomic', 'mean', 'search_query: ', 'search_document: '],
    ['nomic-embed-text:latest', 'nomic', 'mean', 'search_query: ', 'search_document: '],
    ['Xenova/all-MiniLM-L6-v2', 'minilm', 'mean', '', ''],
    ['all-minilm', 'minilm', 'mean', '', ''],
    ['sentence-transformers/all-mpnet-base-v2', 'mpnet', 'mean', '', ''],
    ['Snowflake/snowflake-arctic-embed-s', 'arctic-embed', 'cls', BGE_QUERY, ''],
    ['mxbai-embed-large', 'mxbai-embed', 'cls', BGE_QUERY, ''],
    ['thenlper/gte-small', 'gte', 'mean', '', ''],
    ['jinaai/jina-embeddings-v2-small-en', 'jina', 'mean', '', ''],
    ['text-embedding-3-small', 'generic', 'mean', '', ''],
    ['tiny-bert', 'generic', 'mean', '', ''],
  ])('%s → %s', (model, family, pooling, queryPrefix, documentPrefix) => {
    expect(modelProfile(model)).toEqual({ family, pooling, queryPrefix, documentPrefix });
  });

  it('multilingual e5 instruct models put an instruction on queries only', () => {
    const p = modelProfile('intfloat/multilingual-e5-large-instruct');
    expect(p.family).toBe('e5-instruct');
    expect(p.queryPrefix).toMatch(/^Instruct: .*\nQuery: $/s);
    expect(p.documentPrefix).toBe('');
  });

  it('does not mistake names that merely contain the letters', () => {
    expect(modelProfile('fake5-model').family).toBe('generic');
    expect(modelProfile('budget-embedder').family).toBe('generic');
  });
});

describe('vectors', () => {
  it('embedderKey joins provider, model and dimension', () => {
    expect(embedderKey('ollama', 'nomic-embed-text', 768)).toBe('ollama:nomic-embed-text:768');
  });

  it('normalize returns unit vectors pointing the same way', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -1000, max: 1000, noNaN: true }), { minLength: 1, maxLength: 64 }), (xs) => {
        const v = normalize(xs);
        const n = Math.sqrt(dot(v, v));
        const inputNorm = Math.sqrt(xs.reduce((s, x) => s + x * x, 0));
        if (inputNorm < 1e-6) return; // too small to have a reliable direction in float32
        expect(n).toBeCloseTo(1, 4);
        expect(dot(v, xs) / inputNorm).toBeCloseTo(1, 3);
      }),
    );
  });

  it('normalize keeps a zero vector zero and rejects NaN', () => {
    expect(Array.from(normalize([0, 0, 0]))).toEqual([0, 0, 0]);
    expect(() => normalize([1, Number.NaN])).toThrow(/non-finite/);
  });

  it('batches covers every item once, in order, within the size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 1, max: 10 }), (items, size) => {
        const bs = batches(items, size);
        expect(bs.flat()).toEqual(items);
        for (const b of bs) expect(b.length).toBeGreaterThan(0);
        for (const b of bs) expect(b.length).toBeLessThanOrEqual(size);
      }),
    );
    expect(() => batches([1], 0)).toThrow();
  });
});

describe('prepareUseLiteInput', () => {
  it('replaces empty and blank input with a placeholder', () => {
    expect(prepareUseLiteInput('')).not.toBe('');
    expect(prepareUseLiteInput('   \n').trim()).not.toBe('');
  });

  it('cuts long input to the cap and leaves short input alone', () => {
    const long = 'x'.repeat(USE_LITE_MAX_CHARS * 3);
    expect(prepareUseLiteInput(long)).toHaveLength(USE_LITE_MAX_CHARS);
    expect(prepareUseLiteInput('short text')).toBe('short text');
  });

  it('collapses newlines, tabs and indentation to single spaces (the tokenizer knows only spaces)', () => {
    expect(prepareUseLiteInput('def f(x):\n\t    return x\r\n\n')).toBe('def f(x): return x');
  });

  it('never splits a surrogate pair at the cut', () => {
    const text = 'a'.repeat(9) + '😀' + 'b';
    const out = prepareUseLiteInput(text, 10);
    expect(out).toBe('a'.repeat(9));
  });
});
