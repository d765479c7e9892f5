import { describe, expect, it } from 'vitest';

import { estimateApproval, humanDuration } from '../../src/lib/approval-estimate.js';

describe('approval estimate', () => {
  it('tells a Dioxus-sized approval its chunks, time to searchable and to vectors', () => {
    const e = estimateApproval({ files: 1413, bytes: 7_400_000, embedder: 'use-lite:universal-sentence-encoder-lite:512', chunkVectors: true });
    expect(e.chunks).toBe(10_000 + 500);
    expect(e.searchable_seconds).toBeLessThan(15);
    expect(e.vectors).toBe('chunks');
    expect(e.vectors_seconds).toBeGreaterThan(15 * 60);
    expect(e.summary).toMatch(/^~10,500 chunks, searchable in ~\d+ s, vectors in ~\d+ min in the background$/);
  });

  it('uses files when sizes are unknown, and says when chunk vectors are off or there are none', () => {
    expect(estimateApproval({ files: 100, embedder: 'auto', chunkVectors: false })).toMatchObject({ chunks: 740, vectors: 'topic notes only', vectors_seconds: null });
    expect(estimateApproval({ files: 100, embedder: 'none', chunkVectors: false }).summary).toMatch(/no vectors/);
    expect(estimateApproval({ files: 100, embedder: 'ollama:nomic:768', chunkVectors: true })).toMatchObject({ vectors: 'chunks', vectors_seconds: null });
  });

  it('prints durations for people', () => {
    expect(humanDuration(9.6)).toBe('~10 s');
    expect(humanDuration(1800)).toBe('~30 min');
    expect(humanDuration(3 * 3600)).toBe('~3.0 h');
  });
});
