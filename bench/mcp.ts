/**
 * The MCP server's latency on the SciFact topic (embedder none), beside the cold CLI, in one run:
 *
 *   npm run bench:mcp -- [--queries 300] [--starts 10] [--cold 30] [--smoke] [--latency-roots 100000]
 *
 *   start-up:  spawn `node bin/run.cjs mcp` → initialize → first tools/list answer, a fresh process
 *              each time (what a host pays when it launches the server);
 *   per call:  one server, `tools/call reference_search {topic, question}` round trips over its
 *              stdio (newline-delimited JSON-RPC written by hand, so no client library's cost is
 *              counted), one per SciFact query (300), after one untimed warm-up call;
 *   cold CLI:  `node bin/run.cjs search … --json --embedder none --no-server`, a whole process per query.
 * The SciFact root is the quality bench's (`.bench-work/quality/scifact/kb-none`), built once.
 * `--latency-roots 100000` also measures per-call latency on latency.ts's 100k-chunk root when it exists.
 * Targets (issue 11): start-up ≤ 0.5 s, p50 ≤ 5 ms, p95 ≤ 20 ms. Needs `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadBeir } from './lib/beir.js';
import { BIN, checkBuilt, cliEnv, runCli } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { chunkCount, freshRootWithTopic, stderrProgress, topicReady } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { StdioRpc } from './lib/rpc.js';
import { mean, percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, outputsFor, saveRecords, stamp, WORK_DIR } from './lib/store.js';
import { documentFile, smokeSubset } from './quality.js';

export const MCP_TARGETS = { startupMs: 500, p50Ms: 5, p95Ms: 20 } as const;

export interface McpBenchOptions {
  queries: number;
  starts: number;
  cold: number;
  smoke: boolean;
  workDir: string;
  latencyRoots?: number[];
  quiet?: boolean;
}

/** Our `mcp` server over stdio, with the benchmark environment (embedder none). */
const ourServer = (root: string): StdioRpc => new StdioRpc(process.execPath, [BIN, 'mcp', '--root', root], { env: cliEnv() });

async function scifactRoot(opts: McpBenchOptions): Promise<{ root: string; topic: string; chunks: number; queries: string[] }> {
  const full = loadBeir(join(BENCH_DATA, 'scifact'));
  const data = opts.smoke ? smokeSubset(full) : full;
  const tag = opts.smoke ? 'scifact-smoke' : 'scifact';
  const base = join(opts.workDir, 'quality', tag);
  const repo = await repoFromFiles(join(base, 'repo'), `scifact:${data.corpus.length}:${data.corpus[0]?.id}`, () => data.corpus.map((d) => documentFile('scifact', d)));
  const root = join(base, 'kb-none');
  const topic = 'topic-scifact';
  if (!topicReady(root, topic)) {
    await freshRootWithTopic(root, { topicId: topic, title: 'scifact benchmark corpus', url: repo.url, embedderFlag: 'none' }, stderrProgress(`mcp ${tag}`, opts.quiet));
  }
  const all = data.queries.map((q) => q.text);
  const queries: string[] = [];
  for (let i = 0; queries.length < opts.queries && all.length > 0; i++) queries.push(all[i % all.length]!);
  return { root, topic, chunks: await chunkCount(root, topic), queries };
}

async function startups(root: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const rpc = ourServer(root);
    await rpc.initialize();
    const list = await rpc.request('tools/list');
    times.push(performance.now() - t);
    if (list.tools.length !== 7) throw new Error(`expected 7 tools, got ${list.tools.length}`);
    await rpc.close();
  }
  return times;
}

async function calls(root: string, topic: string, questions: string[]): Promise<number[]> {
  const rpc = ourServer(root);
  try {
    await rpc.initialize();
    const ask = (q: string) => rpc.request('tools/call', { name: 'reference_search', arguments: { topic, question: q } });
    const first = await ask(questions[0]!); // waits for the warm-up (index preload) once
    if (first.isError) throw new Error(`reference_search failed: ${first.content[0].text}`);
    const times: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      const r = await ask(q);
      times.push(performance.now() - t);
      if (r.isError) throw new Error(`reference_search failed for "${q}": ${r.content[0].text}`);
    }
    return times;
  } finally {
    await rpc.close();
  }
}

async function coldCli(root: string, topic: string, questions: string[]): Promise<number[]> {
  const args = (q: string): string[] => ['search', q, '--topic', topic, '--json', '--embedder', 'none', '--no-server', '--root', root];
  const w = await runCli(args(questions[0]!));
  if (w.code !== 0) throw new Error(`search failed: ${w.stdout}${w.stderr}`);
  const times: number[] = [];
  for (const q of questions) {
    const r = await runCli(args(q));
    if (r.code !== 0) throw new Error(`search failed: ${r.stdout}`);
    times.push(r.ms);
  }
  return times;
}

export async function runMcpBench(opts: McpBenchOptions): Promise<BenchRecord[]> {
  checkBuilt();
  const command = opts.smoke ? 'npm run bench:smoke' : `npm run bench:mcp -- --queries ${opts.queries} --starts ${opts.starts} --cold ${opts.cold}`;
  const log = (m: string): void => {
    if (!opts.quiet) process.stderr.write(`[mcp] ${m}\n`);
  };
  const records: BenchRecord[] = [];
  const sf = await scifactRoot(opts);
  const dataset = opts.smoke ? 'smoke scifact' : 'scifact';
  const add = (mode: string, times: number[], chunks: number, ds = dataset, note?: string): void => {
    records.push({
      bench: 'latency',
      dataset: ds,
      mode,
      embedder: 'none',
      chunks,
      queries: times.length,
      p50_ms: round(percentile(times, 50)),
      p95_ms: round(percentile(times, 95)),
      mean_ms: round(mean(times)),
      ...stamp(command),
      ...(note ? { note } : {}),
    });
  };
  log(`SciFact topic: ${sf.chunks} chunks; ${opts.starts} start-ups…`);
  add('mcp start-up (to tools/list)', await startups(sf.root, opts.starts), sf.chunks, dataset, 'spawn `tkoma-ref mcp` → initialize → tools/list answered; a fresh process each time');
  log(`${sf.queries.length} reference_search calls over MCP stdio…`);
  add('mcp (stdio, reference_search)', await calls(sf.root, sf.topic, sf.queries), sf.chunks, dataset, 'tools/call round trip over stdio, one warm server, hand-written JSON-RPC client');
  log(`${Math.min(opts.cold, sf.queries.length)} cold CLI searches…`);
  add('cold', await coldCli(sf.root, sf.topic, sf.queries.slice(0, opts.cold)), sf.chunks, dataset, 'whole `search --json --no-server` process per query');

  for (const size of opts.latencyRoots ?? []) {
    const base = join(opts.workDir, 'latency', String(size));
    const root = join(base, 'kb');
    if (!topicReady(root, 'topic-bench')) {
      log(`no latency root for ${size} (run npm run bench:latency first); skipped`);
      continue;
    }
    const marker = join(base, 'kb.json');
    const chunks = existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { chunks: number }).chunks : await chunkCount(root, 'topic-bench');
    const label = `${Math.round(chunks / 1000)}k chunks`;
    log(`${label}: ${sf.queries.length} reference_search calls…`);
    add('mcp (stdio, reference_search)', await calls(root, 'topic-bench', sf.queries), chunks, label, 'tools/call round trip over stdio (SciFact questions over the node_modules corpus)');
  }
  return records;
}

export function printMcp(records: readonly BenchRecord[]): void {
  const verdict = (r: BenchRecord): string => {
    const p50 = r.p50_ms as number;
    const p95 = r.p95_ms as number;
    if (r.mode.startsWith('mcp start-up')) return p50 <= MCP_TARGETS.startupMs ? `≤ ${MCP_TARGETS.startupMs} ms ✓` : `≤ ${MCP_TARGETS.startupMs} ms ✗`;
    if (r.mode.startsWith('mcp (stdio')) return p50 <= MCP_TARGETS.p50Ms && p95 <= MCP_TARGETS.p95Ms ? 'p50 ≤ 5, p95 ≤ 20 ✓' : 'p50 ≤ 5, p95 ≤ 20 ✗';
    return '';
  };
  printTable(
    ['topic', 'chunks', 'path', 'n', 'p50 ms', 'p95 ms', 'mean ms', 'target'],
    records.map((r) => [r.dataset, String(r.chunks), r.mode, String(r.queries), String(r.p50_ms), String(r.p95_ms), String(r.mean_ms), verdict(r)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      queries: { type: 'string' },
      starts: { type: 'string' },
      cold: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'latency-roots': { type: 'string' },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
    strict: false,
  });
  const smoke = values.smoke === true;
  const t0 = performance.now();
  const records = await runMcpBench({
    queries: Number(values.queries ?? (smoke ? 20 : 300)),
    starts: Number(values.starts ?? (smoke ? 2 : 10)),
    cold: Number(values.cold ?? (smoke ? 3 : 30)),
    smoke,
    workDir: (values['work-dir'] as string | undefined) ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
    latencyRoots: typeof values['latency-roots'] === 'string' ? values['latency-roots'].split(',').map(Number) : [],
  });
  printMcp(records);
  saveRecords(records, outputsFor(smoke, values['out-dir'] as string | undefined));
  console.log(`mcp: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();
