/**
 * Query latency at three topic sizes:
 *
 *   npm run bench:latency -- [--sizes 1000,10000,100000] [--queries 100] [--smoke]
 *
 * Topics of ~1k, ~10k and ~100k chunks are made from the node_modules corpus (real files; past
 * the corpus's size the files repeat under copy-N/ folders), each created with `createTopic`
 * (embedder none). Queries are the CoSQA web-search questions ("python check if a file is
 * readonly"): real code-search questions. Per size:
 *   cold: one whole `node bin/run.cjs search … --json --embedder none` process per query;
 *   warm: through a `tkoma-ref serve` process when the build has one: requests straight over
 *         its socket ("warm (serve, socket)": the warm query) and whole CLI processes that it
 *         answers ("warm (serve, CLI)"); without serve, a child process that loads the index
 *         once and runs `searchReferences` repeatedly ("warm (in-process)").
 * p50/p95 over every query after one untimed warm-up; peak RSS of the process that answered.
 * Needs `npm run build` (the CLI runs from dist/).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { chunkFile } from '../src/lib/chunking/index.js';
import { checkBuilt, cliEnv, runCli, spawnCli } from './lib/cli.js';
import { nodeModulesFiles, repoFromFiles } from './lib/corpus.js';
import { freshRootWithTopic, stderrProgress, topicReady } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { mean, peakRssMb, percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, outputsFor, PROJECT, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export interface LatencyOptions {
  sizes: readonly number[];
  queries: number;
  smoke: boolean;
  workDir: string;
  quiet?: boolean;
}

const TOPIC = 'topic-bench';

export function sizeLabel(chunks: number, smoke: boolean): string {
  if (smoke) return `smoke ${chunks} chunks`;
  return chunks >= 1000 ? `${Math.round(chunks / 1000)}k chunks` : `${chunks} chunks`;
}

/** Real files, in corpus order, until their chunks reach `target`; the corpus repeats under copy-N/. */
export async function* filesForChunks(target: number, source: () => Iterable<[string, string]>): AsyncGenerator<[string, string]> {
  let total = 0;
  for (let copy = 1; total < target; copy++) {
    let any = false;
    for (const [path, text] of source()) {
      if (total >= target) return;
      any = true;
      const rel = copy === 1 ? path : `copy-${copy}/${path}`;
      total += (await chunkFile(rel, text)).length;
      yield [rel, text];
    }
    if (!any) return;
  }
}

export function loadQuestions(n: number): string[] {
  const lines = readFileSync(join(BENCH_DATA, 'cosqa', 'queries.jsonl'), 'utf8').split('\n').filter(Boolean);
  return lines.slice(0, n).map((l) => (JSON.parse(l) as { text: string }).text);
}

async function topicFor(workDir: string, target: number, quiet: boolean): Promise<{ root: string; chunks: number; files: number }> {
  const base = join(workDir, 'latency', `${target}`);
  // Rebuilt only when missing: choosing the files means chunking them all.
  const repo = await repoFromFiles(join(base, 'repo'), `latency:${target}`, () => filesForChunks(target, () => nodeModulesFiles(Number.POSITIVE_INFINITY)));
  const root = join(base, 'kb');
  const markerFile = join(base, 'kb.json');
  const marker = existsSync(markerFile) ? (JSON.parse(readFileSync(markerFile, 'utf8')) as { repo: string; chunks: number; files: number }) : null;
  if (marker && marker.repo === `${repo.files}` && topicReady(root, TOPIC)) return { root, chunks: marker.chunks, files: marker.files };
  const res = await freshRootWithTopic(root, { topicId: TOPIC, title: `Latency ${target}`, url: repo.url, embedderFlag: 'none' }, stderrProgress(`latency ${target}`, quiet));
  writeFileSync(markerFile, JSON.stringify({ repo: `${repo.files}`, chunks: res.chunk_count, files: res.file_count }));
  return { root, chunks: res.chunk_count, files: res.file_count };
}

/** Whether this build has the long-running query server the CLI talks to. */
export function hasServe(): boolean {
  return existsSync(join(PROJECT, 'dist', 'commands', 'serve.js'));
}

interface Timings {
  times: number[];
  rssMb: number;
}

async function coldRuns(root: string, questions: string[], measureRss = true): Promise<Timings> {
  const args = (q: string): string[] => ['search', q, '--topic', TOPIC, '--json', '--embedder', 'none', '--root', root];
  const first = await runCli(args(questions[0]!)); // warm-up: page cache, a last index sync
  if (first.code !== 0) throw new Error(`search failed: ${first.stdout}${first.stderr}`);
  const times: number[] = [];
  for (const q of questions) {
    const r = await runCli(args(q));
    if (r.code !== 0) throw new Error(`search failed for "${q}": ${r.stdout}`);
    times.push(r.ms);
  }
  let rss = 0;
  if (measureRss) for (const q of questions.slice(0, 3)) rss = Math.max(rss, (await runCli(args(q), { measureRss: true })).rssMb ?? 0);
  return { times, rssMb: rss };
}

/** Peak RSS of a live process, from /proc (Linux), in MB. */
function procPeakMb(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The compiled socket client: its build id matches the dist/ server's (a tsx-run copy would not). */
async function distClient(): Promise<typeof import('../src/lib/serve/client.js')> {
  return (await import(pathToFileURL(join(PROJECT, 'dist', 'lib', 'serve', 'client.js')).href)) as typeof import('../src/lib/serve/client.js');
}

/**
 * A `serve` process for the root, then the same questions two ways: straight over its socket
 * (the warm query itself: round trip plus the server's work) and as whole CLI processes that
 * the server answers (what an agent shelling out pays).
 */
async function serveRuns(root: string, questions: string[]): Promise<{ socket: Timings; cli: Timings }> {
  const server = spawnCli(['serve', '--json', '--embedder', 'none', '--root', root]);
  try {
    await server.next((l) => l?.type === 'serving', 300_000);
    const { tryServer } = await distClient();
    const env = cliEnv();
    const args = { question: questions[0]!, topic: TOPIC, embedderFlag: 'none' };
    let why = '';
    const onFallback = (reason: string): void => {
      why = reason;
    };
    // The first answer waits for the server's index preload.
    if ((await tryServer(root, 'search', args, { env, replyTimeoutMs: 600_000, onFallback })) === undefined) throw new Error(`serve did not answer: ${why}`);
    const socketTimes: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      const res = await tryServer(root, 'search', { ...args, question: q }, { env, onFallback });
      socketTimes.push(performance.now() - t);
      if (res === undefined) throw new Error(`serve did not answer "${q}": ${why}`);
    }
    const cli = await coldRuns(root, questions, false);
    const rss = procPeakMb(server.child.pid);
    return { socket: { times: socketTimes, rssMb: rss }, cli: { times: cli.times, rssMb: rss } };
  } finally {
    await server.stop();
  }
}

/** Runs this script as a child that loads the index once and answers every question in-process. */
function inProcessRuns(root: string, questions: string[]): Promise<Timings> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT, 'bench', 'latency.ts'), '--warm-child', root], {
      cwd: PROJECT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`warm child exited ${code}`));
      resolve(JSON.parse(out) as Timings);
    });
    child.stdin.end(JSON.stringify(questions));
  });
}

/** The child side of inProcessRuns: questions on stdin, timings on stdout. */
async function warmChild(root: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const questions = JSON.parse(Buffer.concat(chunks).toString('utf8')) as string[];
  const { searchReferences } = await import('../src/lib/search/search.js');
  const ask = (q: string) => searchReferences(root, { question: q, topic: TOPIC, embedderFlag: 'none' });
  await ask(questions[0]!); // loads the index: the warm path pays this once
  const times: number[] = [];
  for (const q of questions) {
    const t = performance.now();
    await ask(q);
    times.push(performance.now() - t);
  }
  process.stdout.write(JSON.stringify({ times, rssMb: peakRssMb() } satisfies Timings));
}

export async function runLatency(opts: LatencyOptions): Promise<BenchRecord[]> {
  checkBuilt();
  const questions = loadQuestions(opts.queries);
  const command = opts.smoke ? 'npm run bench:smoke' : `npm run bench:latency -- --sizes ${opts.sizes.join(',')} --queries ${opts.queries}`;
  const records: BenchRecord[] = [];
  for (const target of opts.sizes) {
    const topic = await topicFor(opts.workDir, target, opts.quiet ?? false);
    const label = sizeLabel(target, opts.smoke);
    const add = (mode: string, t: Timings, note?: string): void => {
      records.push({
        bench: 'latency',
        dataset: label,
        mode,
        embedder: 'none',
        chunks: topic.chunks,
        files: topic.files,
        queries: t.times.length,
        p50_ms: round(percentile(t.times, 50)),
        p95_ms: round(percentile(t.times, 95)),
        mean_ms: round(mean(t.times)),
        peak_rss_mb: round(t.rssMb, 0),
        ...stamp(command),
        ...(note ? { note } : {}),
      });
    };
    if (!opts.quiet) process.stderr.write(`[latency] ${label}: ${topic.chunks} chunks in ${topic.files} files; ${questions.length} queries cold…\n`);
    add('cold', await coldRuns(topic.root, questions), 'whole process: Node start-up, the search fast path (no oclif), index load, search, JSON out');
    if (!opts.quiet) process.stderr.write(`[latency] ${label}: warm…\n`);
    if (hasServe()) {
      const served = await serveRuns(topic.root, questions);
      add('warm (serve, socket)', served.socket, 'a request over the serve socket (round trip + search in the server); RSS is the server');
      add('warm (serve, CLI)', served.cli, 'a whole `search --json` process per query, answered by the serve process (Node + oclif start-up included)');
    } else {
      add('warm (in-process)', await inProcessRuns(topic.root, questions), 'no serve command in this build: one process, index loaded once, repeated searchReferences');
    }
  }
  return records;
}

export function printLatency(records: readonly BenchRecord[]): void {
  printTable(
    ['topic', 'chunks', 'path', 'queries', 'p50 ms', 'p95 ms', 'peak RSS MB'],
    records.map((r) => [r.dataset, String(r.chunks), r.mode, String(r.queries), String(r.p50_ms), String(r.p95_ms), String(r.peak_rss_mb)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      queries: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
      'warm-child': { type: 'string' },
    },
  });
  if (values['warm-child']) return warmChild(values['warm-child']);
  const smoke = values.smoke!;
  const t0 = performance.now();
  const records = await runLatency({
    sizes: (values.sizes ?? (smoke ? '150' : '1000,10000,100000')).split(',').map(Number),
    queries: Number(values.queries ?? (smoke ? 5 : 100)),
    smoke,
    workDir: values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
  });
  printLatency(records);
  saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`latency: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();

