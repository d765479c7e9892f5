/**
 * bench:vectors in smoke mode on a tiny corpus with the tiny test model, through the real CLI and
 * the real background worker (needs dist/): the records have their shape, a capped build says it
 * is extrapolated, and the latency part compares idle with embedding. No timing is asserted.
 */
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { metric } from '../../bench/lib/records.js';
import { nodeModulesRepo } from '../../bench/lib/corpus.js';
import { buildCapped, createRecorded, runLifecycle, setupFor } from '../../bench/vector-lifecycle.js';
import { tmpDir } from '../helpers/fixtures.js';

const tmp = tmpDir('tkoma-bench-vectors-');
afterAll(() => tmp.cleanup());
const workDir = join(tmp.path, 'work');

describe('bench:vectors (smoke)', () => {
  it('times searchable and full vectors per embedder, and search latency idle vs while the worker embeds', async () => {
    // The build's time cap only guards against a hang: the assertions below want it measured to the end, however busy the machine.
    const records = await runLifecycle({ corpora: [], embedders: ['none', 'tiny'], maxSeconds: 900, maxChunks: Number.POSITIVE_INFINITY, rounds: 1, queries: 2, latency: true, smoke: true, workDir });
    const byMode = (embedder: string, mode: string) => records.find((r) => r.embedder === embedder && r.mode === mode);

    for (const e of ['none', 'tiny test model, chunks on']) {
      const r = byMode(e, 'searchable (topic create)')!;
      expect(r.bench).toBe('throughput');
      expect(metric(r, 'seconds')).toBeGreaterThan(0);
      expect(metric(r, 'chunks')).toBeGreaterThan(0);
    }
    expect(byMode('none', 'full vectors (after searchable)')).toBeUndefined();
    const full = byMode('tiny test model, chunks on', 'full vectors (after searchable)')!;
    expect(full.note).toMatch(/topic notes \+ chunks; measured to the end/);
    expect(metric(full, 'measured_texts')).toBe(metric(full, 'chunks'));

    const latency = records.filter((r) => r.bench === 'latency');
    expect(latency.map((r) => r.mode)).toEqual([
      'cold (search --no-server, lexical), idle',
      'cold (search --no-server, lexical), while embedding',
      'warm (serve, socket, lexical), idle',
      'warm (serve, socket, lexical), while embedding',
    ]);
    for (const r of latency) {
      expect(metric(r, 'queries')).toBe(2);
      expect(metric(r, 'p50_ms')).toBeGreaterThan(0);
    }
    for (const r of latency.filter((x) => x.mode.endsWith('while embedding'))) {
      for (const m of ['p50_vs_idle', 'p95_vs_idle', 'applies', 'lock_held_max_ms']) expect(metric(r, m), m).toBeTypeOf('number');
    }
  });

  it('a build stopped by its cap is reported as extrapolated from the measured rate', async () => {
    const repo = await nodeModulesRepo(workDir, 30);
    const setup = setupFor('tiny', workDir);
    const root = join(tmp.path, 'capped');
    await createRecorded(root, repo, setup, 'topic-capped');
    const full = await buildCapped(root, setup, { maxSeconds: 600, maxChunks: 1 });
    // at least 33 texts are measured (a rate needs a few batches), the tiny topic holds more
    expect(full.extrapolated).toBe(true);
    expect(full.embedded).toBeLessThan(full.pending);
    expect(full.seconds).toBeGreaterThan(full.loadSeconds);
  });
});
