/**
 * The benchmark scripts in smoke mode, in a tmp work dir, down to the generated report: proves
 * they still compile and run against the real code (benchmarks are not tests: nothing here looks
 * at timings, only at the shape of the records and the report). The CLI parts need dist/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runLatency } from '../../bench/latency.js';
import { docIdOfPath, documentFile, runQuality, smokeSubset } from '../../bench/quality.js';
import { metric, type BenchRecord } from '../../bench/lib/records.js';
import { outputsFor, readRecords, saveRecords } from '../../bench/lib/store.js';
import { loadBeir } from '../../bench/lib/beir.js';
import { BENCH_DATA } from '../../bench/lib/store.js';
import { pickFiles, runSync, uniqueWord } from '../../bench/index-sync.js';
import { runRepoQa } from '../../bench/repo-qa.js';
import { runThroughput } from '../../bench/throughput.js';
import { tmpDir } from '../helpers/fixtures.js';

const tmp = tmpDir('tkoma-bench-smoke-');
afterAll(() => tmp.cleanup());
const workDir = join(tmp.path, 'work');
const out = outputsFor(true, join(tmp.path, 'out'));

const metricsPresent = (r: BenchRecord, names: string[]): void => {
  for (const n of names) expect(metric(r, n), `${r.bench}/${r.mode}: ${n}`).toBeTypeOf('number');
};

describe('benchmark helpers', () => {
  it('documents become files and hits map back to their ids', () => {
    expect(documentFile('scifact', { id: '42', title: 'Title', text: 'Body.' })).toEqual(['42.md', '# Title\n\nBody.\n']);
    expect(documentFile('cosqa', { id: 'c7', title: '', text: 'def f(): pass' })).toEqual(['c7.py', 'def f(): pass\n']);
    expect(() => documentFile('cosqa', { id: '../x', title: '', text: '' })).toThrow(/safe/);
    expect(docIdOfPath('scifact', '42.md')).toBe('42');
    expect(docIdOfPath('scifact', 'sub/42.md')).toBeNull();
    expect(docIdOfPath('cosqa', 'c7.md')).toBeNull();
  });

  it('the smoke subset keeps its queries answerable', () => {
    const data = smokeSubset(loadBeir(join(BENCH_DATA, 'scifact')), 2, 3);
    expect(data.queries).toHaveLength(2);
    const ids = new Set(data.corpus.map((d) => d.id));
    for (const q of data.queries) for (const id of data.qrels.get(q.id)!.keys()) expect(ids.has(id)).toBe(true);
  });

  it('sync picks distinct files to edit and words no file holds', () => {
    const paths = Array.from({ length: 50 }, (_, i) => `src/f${i}.${i % 2 ? 'ts' : 'json'}`);
    const picked = pickFiles(paths, 4);
    expect(new Set(picked).size).toBe(4);
    expect(picked.every((p) => p.endsWith('.ts'))).toBe(true);
    expect(uniqueWord(1)).toMatch(/^zq[a-z]{10}$/);
  });
});

describe('smoke run → records → report', () => {
  it('runs every benchmark on tiny inputs and renders the report from its records', async () => {
    const quality = await runQuality({ datasets: ['scifact', 'cosqa'], embedders: ['none'], smoke: true, workDir, quiet: true });
    expect(quality.map((r) => `${r.dataset}/${r.mode}`)).toEqual(['scifact/lexical', 'cosqa/lexical']);
    for (const r of quality) {
      metricsPresent(r, ['ndcg10', 'recall10', 'mrr10', 'queries']);
      expect(r.ndcg10).toBeGreaterThan(0); // the relevant documents are in the tiny corpus
    }

    const throughput = await runThroughput({ maxFiles: 15, embedSample: 0, smoke: true, workDir, quiet: true, skipEmbed: true });
    expect(throughput.map((r) => r.mode)).toEqual(['fetch', 'chunk', 'lexical', 'lexical-save', 'create']);
    metricsPresent(throughput.find((r) => r.mode === 'lexical')!, ['chunks', 'chunks_per_s', 'peak_rss_mb']);
    expect(throughput.find((r) => r.mode === 'fetch')!.files).toBe(15);

    const latency = await runLatency({ sizes: [40], queries: 2, smoke: true, workDir, quiet: true });
    expect(latency[0]!.mode).toBe('cold');
    expect(latency.slice(1).every((r) => r.mode.startsWith('warm'))).toBe(true);
    for (const r of latency) metricsPresent(r, ['p50_ms', 'p95_ms', 'queries', 'chunks']);

    const sync = await runSync({ files: 12, runs: 1, smoke: true, workDir, quiet: true });
    expect(sync).toHaveLength(3);
    for (const r of sync) metricsPresent(r, ['median_ms', 'max_ms', 'runs']);

    const repoQa = await runRepoQa({ smoke: true, workDir, quiet: true });
    expect(repoQa.map((r) => r.bench)).toEqual(['repo-qa']);

    saveRecords([...quality, ...throughput], out);
    saveRecords([...latency, ...sync, ...repoQa], out);
    const stored = readRecords(out.json);
    expect(stored).toHaveLength(quality.length + throughput.length + latency.length + sync.length + repoQa.length);
    const md = readFileSync(out.md, 'utf8');
    expect(md).toContain('# Benchmarks (smoke run)');
    expect(md).toContain('not real figures');
    expect(md).toMatch(/\| scifact \| none \| lexical \| \d\.\d{3} \|/);
    expect(md).toContain('| smoke 40 chunks |');
    expect(md).toContain('npm run bench:smoke');
    expect(md).not.toContain('_No ');
  });
});
