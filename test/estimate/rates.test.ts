import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { estimatesFile, measuredRates, readEstimateState, recordCreate, recordEmbedding } from '../../src/lib/estimate/rates.js';
import { DEFAULT_RATES } from '../../src/lib/estimate/estimate.js';
import { tmpDir } from '../helpers/fixtures.js';

const tmp = tmpDir('tkoma-rates-');
afterAll(() => tmp.cleanup());

describe('the rates file in .tkoma/', () => {
  it('keeps the last ten creates, and the defaults stand in for a missing or damaged file', async () => {
    const root = join(tmp.path, 'a');
    mkdirSync(root);
    expect(await measuredRates(root)).toEqual(DEFAULT_RATES);
    for (let i = 1; i <= 12; i++) await recordCreate(root, { files: i, chunks: 10 * i, fetch_s: 2, index_s: 2 });
    const state = await readEstimateState(root);
    expect(state.creates.map((c) => c.files)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect((await measuredRates(root)).creates).toBe(10);

    writeFileSync(estimatesFile(root), '{"version":1,"creates":[{"files":"many"');
    expect(await measuredRates(root)).toEqual(DEFAULT_RATES);
    writeFileSync(estimatesFile(root), JSON.stringify({ version: 1, creates: [{ files: -1, chunks: 5, fetch_s: 1, index_s: 1 }, { files: 5, chunks: 5, fetch_s: 1, index_s: 1 }], embedding: { 'x:y:1': { chunks_per_s: 'fast' } } }));
    const cleaned = await readEstimateState(root);
    expect(cleaned.creates).toHaveLength(1);
    expect(cleaned.embedding).toEqual({});
  });

  it('smooths embedding speeds per space, and ignores builds too small to time', async () => {
    const root = join(tmp.path, 'b');
    mkdirSync(root);
    await recordEmbedding(root, 'use-lite:m:512', 10, 1);
    expect(existsSync(estimatesFile(root))).toBe(false);
    await recordEmbedding(root, 'use-lite:m:512', 100, 10);
    await recordEmbedding(root, 'use-lite:m:512', 100, 5);
    expect((await readEstimateState(root)).embedding['use-lite:m:512']!.chunks_per_s).toBe(15);
    expect((await measuredRates(root)).embed_chunks_per_s).toMatchObject({ 'use-lite:m:512': 15, 'use-lite': 15 });
  });
});
