/**
 * Speed of the BM25 segment engine (src/lib/index/bm25/) at topic scale:
 *
 *   npx tsx bench/bm25-speed.ts [--scale 100000] [--set scifact|cosqa] [--limit 100]
 *
 * Chunks the benchmark corpus through the real chunker and repeats it under distinct paths
 * (`r<k>/<id>.md#<n>`) until there are --scale chunks, then times: build (wall and process CPU),
 * encode, write + read + decode of the file (the cold path of a CLI call), and every benchmark
 * query against (a) the one segment and (b) the same docs as a base segment with 1% of its docs
 * dead plus 20 small delta segments, as a topic looks between compactions.
 * Targets at 100k chunks: decode <= 300 ms, query mean <= 5 ms, build >= 10k docs/s.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  buildSegment,
  decodeSegment,
  encodeSegment,
  searchSegments,
  type Bm25Doc,
  type SegmentView,
} from '../src/lib/index/bm25/index.js';
import { loadBeir } from './lib/beir.js';
import { chunkDocs, type SetName } from './lexical-quality.js';

const BENCH_DIR = process.env.TKOMA_BENCH_DIR ?? '/work/shared/bench';

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function timeQueries(views: readonly SegmentView[], queries: readonly string[], limit: number): { mean: number; p50: number; p95: number } {
  for (const q of queries.slice(0, 20)) searchSegments(views, q, limit); // warm-up (JIT)
  const times = queries.map((q) => {
    const t = performance.now();
    searchSegments(views, q, limit);
    return performance.now() - t;
  });
  times.sort((a, b) => a - b);
  const at = (p: number): number => times[Math.min(times.length - 1, Math.floor(times.length * p))]!;
  return { mean: times.reduce((a, b) => a + b, 0) / times.length, p50: at(0.5), p95: at(0.95) };
}

const ms = (x: number): string => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { scale: { type: 'string', default: '100000' }, set: { type: 'string', default: 'scifact' }, limit: { type: 'string', default: '100' } },
  });
  const scale = Number(values.scale);
  const limit = Number(values.limit);
  const set = values.set as SetName;
  if (!(scale > 0) || !(limit > 0) || !['scifact', 'cosqa'].includes(set)) {
    console.error('usage: npx tsx bench/bm25-speed.ts [--scale N] [--set scifact|cosqa] [--limit N]');
    process.exit(2);
  }
  const data = loadBeir(join(BENCH_DIR, set));
  const base = await chunkDocs(set, data);
  const docs: Bm25Doc[] = [];
  for (let r = 0; docs.length < scale; r++) {
    for (const c of base) {
      if (docs.length === scale) break;
      const [title, symbol, path, text] = c.fields as [string, string, string, string];
      docs.push({ id: `r${r}/${c.id}`, fields: [title, symbol, `r${r}/${path}`, text] });
    }
  }
  const chars = docs.reduce((n, d) => n + d.fields.reduce((m, f) => m + f.length, 0), 0);
  console.log(`${set} x${Math.ceil(scale / base.length)}: ${docs.length} chunks, ${Math.round(chars / docs.length)} chars avg`);

  const t0 = performance.now();
  const c0 = cpuMs();
  const seg = buildSegment(docs);
  const buildCpu = cpuMs() - c0;
  const buildMs = performance.now() - t0;
  console.log(`  build   ${ms(buildMs)} = ${Math.round(docs.length / (buildMs / 1000))} docs/s wall, ${Math.round(docs.length / (buildCpu / 1000))} docs/s CPU`);

  const t1 = performance.now();
  const bytes = encodeSegment(seg);
  console.log(`  encode  ${ms(performance.now() - t1)}, ${(bytes.length / 1e6).toFixed(1)} MB`);

  const dir = mkdtempSync(join(tmpdir(), 'bm25-speed-'));
  try {
    const file = join(dir, 'base.seg');
    writeFileSync(file, bytes);
    // The first read + decode is what a cold CLI call pays; the rest show the steady cost.
    const reads: number[] = [];
    const decodes: number[] = [];
    let decoded = seg;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const fileBytes = readFileSync(file);
      const t2 = performance.now();
      decoded = decodeSegment(fileBytes);
      decodes.push(performance.now() - t2);
      reads.push(t2 - t);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`  read    first ${ms(reads[0]!)}, median ${ms(median(reads))}`);
    console.log(`  decode  first ${ms(decodes[0]!)}, median ${ms(median(decodes))}`);

    const queries = data.queries.map((q) => q.text);
    const one = timeQueries([{ segment: decoded }], queries, limit);
    console.log(`  query, 1 segment:            mean ${ms(one.mean)}, p50 ${ms(one.p50)}, p95 ${ms(one.p95)} (${queries.length} queries, limit ${limit})`);

    // Base + deltas: every 100th base doc dead, its replacement in one of 20 delta segments.
    const live = new Uint8Array(decoded.docCount).fill(1);
    const replaced: Bm25Doc[] = [];
    for (let d = 0; d < docs.length; d += 100) {
      live[d] = 0;
      replaced.push(docs[d]!);
    }
    const views: SegmentView[] = [{ segment: decoded, live }];
    const per = Math.ceil(replaced.length / 20);
    for (let i = 0; i < replaced.length; i += per) views.push({ segment: buildSegment(replaced.slice(i, i + per)) });
    const multi = timeQueries(views, queries, limit);
    console.log(`  query, base + ${views.length - 1} deltas:    mean ${ms(multi.mean)}, p50 ${ms(multi.p50)}, p95 ${ms(multi.p95)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
