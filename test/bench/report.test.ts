import { describe, expect, it } from 'vitest';

import { type BenchRecord, metricsOf, parseRecords, recordKey, serializeRecords, upsertRecords } from '../../bench/lib/records.js';
import { fmtNumber, kindOf, mdTable, qualityTable, renderReport } from '../../bench/lib/report.js';
import { percentile } from '../../bench/lib/stats.js';
import { latencyVerdict, mark, qualityVerdict, syncVerdict, throughputVerdict } from '../../bench/lib/targets.js';

const machine = { cpus: 2, model: 'Test CPU', mem_gb: 8, node: 'v20.0.0' };
const rec = (over: Partial<BenchRecord> & Pick<BenchRecord, 'bench' | 'dataset' | 'mode'>): BenchRecord => ({
  embedder: 'none',
  machine,
  date: '2025-01-02T03:04:05.000Z',
  command: `npm run bench:${over.bench}`,
  ...over,
});

const quality = (dataset: string, embedder: string, mode: string, ndcg10: number): BenchRecord =>
  rec({ bench: 'quality', dataset, embedder, mode, ndcg10, recall10: 0.5, mrr10: 0.4, queries: 300 });

describe('records', () => {
  it('a new measurement replaces the one with the same identity and keeps the rest', () => {
    const a = quality('scifact', 'none', 'lexical', 0.6);
    const b = quality('cosqa', 'none', 'lexical', 0.3);
    const a2 = quality('scifact', 'none', 'lexical', 0.7);
    const merged = upsertRecords([a, b], [a2]);
    expect(merged).toHaveLength(2);
    expect(merged.find((r) => recordKey(r) === recordKey(a))!.ndcg10).toBe(0.7);
    expect(merged.map((r) => r.dataset).sort()).toEqual(['cosqa', 'scifact']);
  });

  it('round-trips through the JSON file and picks out the metrics', () => {
    const r = quality('scifact', 'use-lite', 'hybrid', 0.71);
    const back = parseRecords(serializeRecords([r]));
    expect(back).toEqual([r]);
    expect(metricsOf(back[0]!)).toEqual({ ndcg10: 0.71, recall10: 0.5, mrr10: 0.4, queries: 300 });
    expect(() => parseRecords('{"nothing": 1}')).toThrow(/records/);
  });
});

describe('targets', () => {
  it('lexical is within 2% of Lucene BM25 or not', () => {
    expect(qualityVerdict(quality('scifact', 'none', 'lexical', 0.67), [])!.ok).toBe(true);
    expect(qualityVerdict(quality('scifact', 'none', 'lexical', 0.66), [])!.ok).toBe(false);
    expect(qualityVerdict(quality('cosqa', 'none', 'lexical', 0.35), [])!.ok).toBe(true);
    expect(qualityVerdict(quality('elsewhere', 'none', 'lexical', 0.9), [])).toBeNull();
  });

  it('hybrid with use-lite must beat both of its halves', () => {
    const all = [quality('scifact', 'use-lite', 'lexical', 0.66), quality('scifact', 'use-lite', 'vector', 0.5)];
    expect(qualityVerdict(quality('scifact', 'use-lite', 'hybrid', 0.68), all)!.ok).toBe(true);
    expect(qualityVerdict(quality('scifact', 'use-lite', 'hybrid', 0.65), all)!.ok).toBe(false);
    expect(qualityVerdict(quality('scifact', 'use-lite', 'hybrid', 0.68), [])).toBeNull();
    expect(qualityVerdict(quality('scifact', 'use-lite', 'vector', 0.5), all)).toBeNull();
  });

  it('latency, throughput and sync limits', () => {
    const lat = (dataset: string, mode: string, p50: number, p95: number) => rec({ bench: 'latency', dataset, mode, p50_ms: p50, p95_ms: p95 });
    expect(latencyVerdict(lat('100k chunks', 'warm (serve, socket)', 40, 140))!.ok).toBe(true);
    expect(latencyVerdict(lat('100k chunks', 'warm (serve, CLI)', 240, 340))).toBeNull();
    expect(latencyVerdict(lat('100k chunks', 'warm (in-process)', 40, 160))!.ok).toBe(false);
    expect(latencyVerdict(lat('10k chunks', 'cold', 499, 900))!.ok).toBe(true);
    expect(latencyVerdict(lat('10k chunks', 'cold', 501, 600))!.ok).toBe(false);
    expect(latencyVerdict(lat('1k chunks', 'cold', 9999, 9999))).toBeNull();
    expect(latencyVerdict(lat('smoke 150 chunks', 'warm (serve, socket)', 9999, 9999))).toBeNull();
    expect(throughputVerdict(rec({ bench: 'throughput', dataset: 'c', mode: 'lexical', chunks_per_s: 2500 }))!.ok).toBe(true);
    expect(throughputVerdict(rec({ bench: 'throughput', dataset: 'c', mode: 'lexical', chunks_per_s: 1500 }))!.ok).toBe(false);
    expect(throughputVerdict(rec({ bench: 'throughput', dataset: 'c', mode: 'embed', reembedded_on_rerun: 3 }))!.ok).toBe(false);
    expect(throughputVerdict(rec({ bench: 'throughput', dataset: 'c', mode: 'chunk', chunks_per_s: 1 }))).toBeNull();
    expect(syncVerdict(rec({ bench: 'sync', dataset: 't', mode: 'command', median_ms: 300, max_ms: 1200 }))!.ok).toBe(false);
    expect(mark({ goal: 'g', ok: true })).toBe('g ✓');
    expect(mark(null)).toBe('');
  });
});

describe('report', () => {
  it('formats numbers by metric kind', () => {
    expect(kindOf('ndcg10')).toBe('score');
    expect(kindOf('p95_ms')).toBe('ms');
    expect(kindOf('chunks_per_s')).toBe('rate');
    expect(fmtNumber(0.67891, 'score')).toBe('0.679');
    expect(fmtNumber(12345.6, 'rate')).toBe('12,346');
    expect(fmtNumber(undefined)).toBe('–');
    expect(mdTable(['a', 'b'], [['x|y', '1']])).toBe('| a | b |\n|---|---|\n| x\\|y | 1 |');
  });

  it('orders quality rows by data set, embedder and mode, with baselines and marks', () => {
    const table = qualityTable([
      quality('cosqa', 'use-lite', 'hybrid', 0.4),
      quality('scifact', 'use-lite', 'vector', 0.5),
      quality('scifact', 'none', 'lexical', 0.675),
      quality('scifact', 'use-lite', 'lexical', 0.675),
      quality('scifact', 'use-lite', 'hybrid', 0.7),
    ]);
    const rows = table.split('\n').slice(2).map((l) => l.split(' | ').slice(0, 3).join(' '));
    expect(rows).toEqual(['| scifact none lexical', '| scifact use-lite lexical', '| scifact use-lite vector', '| scifact use-lite hybrid', '| cosqa use-lite hybrid']);
    expect(table).toContain('BM25 0.677');
    expect(table).toContain('> lexical 0.675 and > vector 0.500 ✓');
  });

  it('renders every section from the records alone, with the commands', () => {
    const records = [
      quality('scifact', 'none', 'lexical', 0.675),
      rec({ bench: 'latency', dataset: '10k chunks', mode: 'cold', chunks: 10_000, queries: 100, p50_ms: 420, p95_ms: 610, peak_rss_mb: 150, command: 'npm run bench:latency -- --queries 100' }),
      rec({ bench: 'throughput', dataset: 'node_modules', mode: 'lexical', files: 10, chunks: 9000, seconds: 3, chunks_per_s: 3000 }),
      rec({ bench: 'sync', dataset: '10,000-file topic', mode: 'command (edit → search)', runs: 5, median_ms: 700, max_ms: 800 }),
    ];
    const md = renderReport(records, { source: 'x.json' });
    expect(md).toMatch(/^# Benchmarks\n/);
    for (const heading of ['## Headline', '### Retrieval quality', '### Query latency', '### Indexing throughput', '### Incremental sync', '## Published baselines', '## Details']) {
      expect(md).toContain(heading);
    }
    expect(md).toContain('| 10k chunks | 10,000 | cold | none | 100 | 420 ms | 610 ms | 150 MB | p50 ≤ 500 ms ✓ |');
    expect(md).toContain('≥ 2,000 chunks/s ✓');
    expect(md).toContain('every run ≤ 1,000 ms ✓');
    expect(md).toContain('npm run bench:latency -- --queries 100');
    expect(md).toContain('2 × Test CPU, 8 GB, Node v20.0.0');
    expect(renderReport([], {})).toContain('_No quality records yet._');
  });
});

describe('stats', () => {
  it('nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});
