/** `index status` as a person reads it (issue 30): sentences and counts, no JSON to decode. */
import { describe, expect, it } from 'vitest';

import { renderIndexStatus } from '../../src/cli/index-status.js';

const base = {
  topics: 2,
  files: 12,
  chunks: 1234,
  vectors: 0,
  embedder: 'use-lite:universal-sentence-encoder-lite.ws:512',
  dimension: 512,
  pending: { changed: 0, added: 0, removed: 0 },
  bytes_on_disk: 2 * 1024 * 1024,
  cache_bytes: 1536,
  broken: [],
  not_indexed: { count: 0, files: [] },
};
const work = (chunkVectors: boolean, target = 'auto') => ({
  target,
  chunk_vectors: chunkVectors,
  builder: null,
  pending: chunkVectors ? 34 : 0,
  notes: { serving: 'use-lite:x', topics: 2, with_vectors: 2 },
  topics: { 'topic-a': { chunks: 1000, vectors: 1000, pending: 0, serving: 'x' }, 'topic-b': { chunks: 234, vectors: 200, pending: 34, serving: null } },
});

describe('index status, rendered for a person', () => {
  it('says chunks are lexical by design when the model has no chunk vectors, with no "0 vectors" or "(0%)"', () => {
    const text = renderIndexStatus({ ...base, vector_work: work(false) });
    expect(text).toContain('2 topics, 12 files, 1,234 chunks (2.0 MiB on disk, embedding cache 1.5 KiB)');
    expect(text).toContain('ranked lexically by design');
    expect(text).toContain('none: the index matches the files');
    expect(text).not.toMatch(/\(0%\)|^vectors\s+0\b|[{}[\]]/m);
  });

  it('gives each topic its share of vectors when chunk vectors are on', () => {
    const text = renderIndexStatus({ ...base, vectors: 1200, vector_work: work(true) });
    expect(text).toContain('auto: 1,200 of 1,234 chunks have vectors, 34 pending');
    expect(text).toContain('topic-b: 200/234 (85%), 34 pending');
  });

  it('says plainly that a root with no embedder searches lexically', () => {
    expect(renderIndexStatus({ ...base, embedder: null, dimension: null, vector_work: work(false, 'none') })).toMatch(/embedder\s+none \(lexical search only\)[\s\S]*vectors\s+none: search is lexical/);
  });

  it('lists what waits for a sync, broken topics and files left out, without JSON', () => {
    const files = Array.from({ length: 7 }, (_, i) => ({ topic_id: 'topic-a', path: `big${i}.bin`, reason: 'too_large', bytes: 3 * 1024 * 1024 }));
    const text = renderIndexStatus({
      ...base,
      pending: { changed: 2, added: 0, removed: 1 },
      broken: [{ topic_id: 'topic-c', error: { code: 'TOPIC_INVALID', message: 'front matter does not parse' } }],
      not_indexed: { count: 7, files },
      vector_work: work(false),
    });
    expect(text).toContain('2 changed, 1 removed (files waiting for the next sync)');
    expect(text).toContain('topic-c: TOPIC_INVALID front matter does not parse');
    expect(text).toContain('topic-a/big0.bin (too large, 3.0 MiB)');
    expect(text).not.toContain('big5.bin');
    expect(text).toContain('… 2 more (--json lists up to 100)');
    expect(text).not.toMatch(/[{}]/);
  });
});
