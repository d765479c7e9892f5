import { describe, expect, it } from 'vitest';

import { DEFAULT_RATES, estimateApproval, estimateChunks, fileChunks, humanDuration } from '../../src/lib/estimate/estimate.js';
import { type EstimateState, fitPhase, ratesFrom } from '../../src/lib/estimate/rates.js';

const state = (creates: Partial<EstimateState['creates'][number]>[], embedding: EstimateState['embedding'] = {}): EstimateState => ({
  version: 1,
  creates: creates.map((c) => ({ at: '2026-11-27T00:00:00Z', files: 0, chunks: 0, fetch_s: 0, index_s: 0, ...c })),
  embedding,
});

describe('chunks from the kept files', () => {
  it('cuts each kind at its own size: prose, code per grammar, other files', () => {
    // Ten chunks' worth of bytes, plus the last piece's half chunk.
    expect(fileChunks({ path: 'docs/guide.md', bytes: 7800 })).toBeCloseTo(10.5);
    expect(fileChunks({ path: 'src/a.ts', bytes: 6900 })).toBeCloseTo(10.5);
    expect(fileChunks({ path: 'src/a.rs', bytes: 7750 })).toBeCloseTo(10.5);
    expect(fileChunks({ path: 'src/a.go', bytes: 7500 })).toBeCloseTo(10.5);
    expect(fileChunks({ path: 'data/x.json', bytes: 13_000 })).toBeCloseTo(10.5);
    // Tests are cut per test block: finer.
    expect(fileChunks({ path: 'test/a.test.ts', bytes: 6900 })).toBeCloseTo(0.5 + 10 / 0.75);
  });

  it('gives a small file one chunk, an empty or over-cap file none, an unsized file its kind\'s mean', () => {
    expect(fileChunks({ path: 'README.md', bytes: 40 })).toBe(1);
    expect(fileChunks({ path: 'src/empty.ts', bytes: 0 })).toBe(0);
    expect(fileChunks({ path: 'dist/bundle.js', bytes: 2_000_000 })).toBe(0);
    expect(fileChunks({ path: 'src/lib.rs', bytes: null })).toBe(13);
    expect(fileChunks({ path: 'notes.md', bytes: null })).toBe(7);
  });

  it('a repository of many small files is not priced by its bytes alone', () => {
    const small = Array.from({ length: 50 }, (_, i) => ({ path: `src/f${i}.ts`, bytes: 100 }));
    expect(estimateChunks({ files: small })).toBe(50); // one per file, where 5,000 bytes / 600 would say 8
  });

  it('counts npm packages by their bytes and web pages by a page\'s mean', () => {
    expect(estimateChunks({ files: [], counted: [{ kind: 'page', files: 3, bytes: null }] })).toBe(24);
    expect(estimateChunks({ files: [], counted: [{ kind: 'package', files: 10, bytes: 76_500 }] })).toBeCloseTo(100);
    expect(estimateChunks({ files: [], counted: [{ kind: 'package', files: 10, bytes: null }] })).toBe(70);
  });
});

describe('the estimate', () => {
  const files = Array.from({ length: 1400 }, (_, i) => ({ path: `packages/p${i % 30}/src/m${i}.rs`, bytes: 5215 }));

  it('tells a Dioxus-sized approval its chunks, time to searchable and to vectors, and what the times rest on', () => {
    const e = estimateApproval({ files, embedder: 'use-lite:universal-sentence-encoder-lite:512', chunkVectors: true });
    expect(e.chunks).toBe(10_100); // 1,400 × (0.5 + 5,215 / 775)
    expect(e.files).toBe(1400);
    expect(e.bytes).toBe(1400 * 5215);
    expect(e.searchable_seconds).toBeCloseTo(DEFAULT_RATES.start_s + DEFAULT_RATES.fetch_base_s + 1400 / DEFAULT_RATES.files_per_s + DEFAULT_RATES.index_base_s + 10_100 / DEFAULT_RATES.chunks_per_s, 1);
    expect(e.vectors).toBe('chunks');
    expect(e.vectors_seconds).toBe(Math.round(10_100 / 8));
    expect(e.rates).toMatchObject({ basis: 'default', creates: 0, embed_chunks_per_s: 8 });
    expect(e.summary).toMatch(/^~10,100 chunks, searchable in ~\d+ s, vectors in ~\d+ min in the background$/);
  });

  it('says when chunk vectors are off, when there are none, and when a provider\'s speed is unknown', () => {
    const few = [{ path: 'a.md', bytes: 200 }];
    expect(estimateApproval({ files: few, embedder: 'auto', chunkVectors: false })).toMatchObject({ chunks: 1, vectors: 'topic notes only', vectors_seconds: null });
    expect(estimateApproval({ files: few, embedder: 'auto', chunkVectors: false }).summary).toMatch(/^~1 chunk, searchable in ~\d+ s, topic-note vectors only/);
    expect(estimateApproval({ files: few, embedder: 'none', chunkVectors: false }).summary).toMatch(/no vectors/);
    expect(estimateApproval({ files: few, embedder: 'ollama:nomic:768', chunkVectors: true })).toMatchObject({ vectors: 'chunks', vectors_seconds: null });
  });

  it('says that a download is not in the time, for a remote source', () => {
    expect(estimateApproval({ files: [{ path: 'a.md', bytes: 10 }], embedder: 'none', chunkVectors: false, remote: true }).summary).toMatch(/searchable in ~\d+ s plus download time/);
  });

  it('rounds large counts to three digits and keeps small ones exact', () => {
    expect(estimateApproval({ files: Array.from({ length: 37 }, (_, i) => ({ path: `${i}.md`, bytes: 10 })), embedder: 'none', chunkVectors: false }).chunks).toBe(37);
    expect(estimateApproval({ files: Array.from({ length: 2469 }, (_, i) => ({ path: `d/${i}.json`, bytes: 1300 * 4.5 })), embedder: 'none', chunkVectors: false }).chunks).toBe(12_300);
  });

  it('prints durations for people', () => {
    expect(humanDuration(9.6)).toBe('~10 s');
    expect(humanDuration(1800)).toBe('~30 min');
    expect(humanDuration(3 * 3600)).toBe('~3.0 h');
  });
});

describe('rates measured on this machine', () => {
  it('are the defaults before any create', () => {
    expect(ratesFrom(state([]))).toMatchObject({ files_per_s: DEFAULT_RATES.files_per_s, chunks_per_s: DEFAULT_RATES.chunks_per_s, creates: 0 });
  });

  it('follow a large create, and let tiny ones (all fixed cost) move the fixed cost, not the rate', () => {
    const slow = ratesFrom(state([{ files: 3000, chunks: 40_000, fetch_s: 1 + 3000 / 50, index_s: 1.5 + 40_000 / 200 }]));
    expect(slow.creates).toBe(1);
    expect(slow.files_per_s).toBeGreaterThan(45);
    expect(slow.files_per_s).toBeLessThan(60);
    expect(slow.chunks_per_s).toBeGreaterThan(180);
    expect(slow.chunks_per_s).toBeLessThan(220);
    const tiny = ratesFrom(state([{ files: 2, chunks: 3, fetch_s: 3, index_s: 2.5, start_s: 2 }, { files: 5, chunks: 9, fetch_s: 3, index_s: 2.5, start_s: 2 }]));
    expect(tiny.fetch_base_s).toBeGreaterThan(DEFAULT_RATES.fetch_base_s);
    expect(tiny.index_base_s).toBeGreaterThan(DEFAULT_RATES.index_base_s);
    expect(tiny.start_s).toBeGreaterThan(DEFAULT_RATES.start_s);
    expect(tiny.files_per_s).toBeGreaterThan(DEFAULT_RATES.files_per_s / 2);
    expect(tiny.chunks_per_s).toBeGreaterThan(DEFAULT_RATES.chunks_per_s / 2);
  });

  it('fit a fixed cost and a rate, and keep to the defaults when the samples make no sense', () => {
    const fit = fitPhase([{ x: 100, y: 3 }, { x: 1000, y: 12 }, { x: 5000, y: 52 }], 1, 150, 300);
    expect(fit.base_s).toBeGreaterThan(0);
    expect(fit.base_s).toBeLessThan(3);
    expect(fit.per_s).toBeGreaterThan(90);
    expect(fit.per_s).toBeLessThan(110);
    expect(fitPhase([{ x: 1000, y: 0 }, { x: 2000, y: 0 }], 1, 150, 300)).toMatchObject({ base_s: 1, per_s: 150 });
  });

  it('make the time estimate follow the machine', () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ path: `src/m${i}.ts`, bytes: 6000 }));
    const before = estimateApproval({ files, embedder: 'none', chunkVectors: false });
    const slow = ratesFrom(state([{ files: 3000, chunks: 40_000, fetch_s: 60, index_s: 200 }]));
    const after = estimateApproval({ files, embedder: 'none', chunkVectors: false }, slow);
    expect(after.chunks).toBe(before.chunks);
    expect(after.searchable_seconds).toBeGreaterThan(2 * before.searchable_seconds);
    expect(after.rates).toMatchObject({ basis: 'measured', creates: 1 });
  });

  it('take the embedding speed measured for the space, or for its provider', () => {
    const r = ratesFrom(state([], { 'use-lite:universal-sentence-encoder-lite:512': { chunks_per_s: 4, at: '' } }));
    const one = [{ path: 'a.md', bytes: 77_610 }]; // 100 chunks
    expect(estimateApproval({ files: one, embedder: 'use-lite:universal-sentence-encoder-lite:512', chunkVectors: true }, r).vectors_seconds).toBe(25);
    expect(estimateApproval({ files: one, embedder: 'auto', chunkVectors: true }, r).vectors_seconds).toBe(25);
    expect(estimateApproval({ files: one, embedder: 'transformers:bge:384', chunkVectors: true }, r).vectors_seconds).toBe(33);
  });
});
