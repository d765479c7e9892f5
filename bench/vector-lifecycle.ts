/**
 * The life of vectors on this machine (issue 10):
 *
 *   npm run bench:vectors -- [--corpora slice,full] [--embedders none,auto,use-lite,bge-int8,bge-fp32]
 *                            [--max-seconds 60] [--max-chunks N] [--rounds 4] [--queries 12] [--smoke]
 *                            [--no-latency | --latency-only] [--workers before=DIR,after=DIR[@NAME=value]]
 *                            [--latency-embedder use-lite|bge-int8|…] [--phase-seconds 30]
 *
 * 1. Time to searchable and to full vectors, per corpus and embedder. A fresh root records the
 *    embedder (`auto` = use-lite with chunk vectors decided by the model: topic notes only; the
 *    others with chunk vectors on), then the real `topic create --yes` runs (background worker
 *    off): its wall time is the time to searchable. Then the builder embeds what is pending, in
 *    this process, until done or a cap (`--max-seconds`, `--max-chunks`): full vectors of 65k
 *    chunks take hours here, so a capped run reports model start-up + pending ÷ measured rate,
 *    marked `extrapolated`. bge-int8/fp32 are random-weight ONNX models of exactly
 *    bge-small-en-v1.5's shape (bench/lib/bert-onnx.ts) through the transformers provider.
 * 2. Search latency while the background worker embeds vs idle (bench/lib/busy-latency.ts);
 *    `--workers` compares worker builds (copies of dist/ inside the project) phase by phase.
 *
 * Records go to the throughput and latency tables. Needs `npm run build` (the CLI and the worker
 * run from dist/).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { resolveEmbedder } from '../src/lib/embedding/root-embedder.js';
import { initRoot } from '../src/lib/store/root.js';
import { readConfig } from '../src/lib/store/config.js';
import { buildVectors } from '../src/lib/vectors/builder.js';
import { setEmbedder } from '../src/lib/vectors/choice.js';
import { chunkSetting, chunkVectorsFor, forgetStarted } from '../src/lib/vectors/space.js';
import { tinyModelAt } from '../test/helpers/tmp.js';
import { BGE_SMALL, writeBertShapedModel } from './lib/bert-onnx.js';
import { latencyWhileEmbedding } from './lib/busy-latency.js';
import { checkBuilt, runCli } from './lib/cli.js';
import { allowLocalRepository } from './lib/kb.js';
import { nodeModulesRepo, type Repo } from './lib/corpus.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { printTable, round } from './lib/stats.js';
import { outputsFor, PROJECT, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export const EMBEDDERS = ['none', 'auto', 'use-lite', 'bge-int8', 'bge-fp32', 'tiny'] as const;
export type EmbedderName = (typeof EMBEDDERS)[number];

export interface EmbedderSetup {
  name: EmbedderName;
  /** How the tables name it. */
  label: string;
  provider: string;
  chunks: 'on' | 'auto';
  /** Environment of every process that loads it (the model folder of the shaped models). */
  env: Record<string, string>;
}

/** The model folders the transformers rows load, written once under the work dir. */
export function setupFor(name: EmbedderName, workDir: string): EmbedderSetup {
  const models = join(workDir, 'models');
  const shaped = (quantized: boolean): string => {
    const dir = join(models, quantized ? 'int8' : 'fp32', 'bge-small-en-v1.5');
    if (!existsSync(join(dir, 'config.json'))) writeBertShapedModel(dir, BGE_SMALL, { quantized });
    return dir;
  };
  switch (name) {
    case 'none':
      return { name, label: 'none', provider: 'none', chunks: 'auto', env: {} };
    case 'auto':
      return { name, label: 'auto (use-lite, topic notes only)', provider: 'use-lite', chunks: 'auto', env: {} };
    case 'use-lite':
      return { name, label: 'use-lite, chunks on', provider: 'use-lite', chunks: 'on', env: {} };
    case 'bge-int8':
      return { name, label: 'bge-small shape int8, chunks on', provider: 'transformers', chunks: 'on', env: { TKOMA_REF_MODEL_DIR: shaped(true) } };
    case 'bge-fp32':
      return { name, label: 'bge-small shape fp32, chunks on', provider: 'transformers', chunks: 'on', env: { TKOMA_REF_MODEL_DIR: shaped(false) } };
    case 'tiny':
      mkdirSync(models, { recursive: true });
      return { name, label: 'tiny test model, chunks on', provider: 'transformers', chunks: 'on', env: { TKOMA_REF_MODEL_DIR: tinyModelAt(models, 'tiny-32', { hidden: 32 }) } };
  }
}

/** Environment of the CLI processes: the recorded embedder decides, no worker starts on its own. */
export function lifecycleEnv(setup: EmbedderSetup): Record<string, string> {
  return { ...setup.env, TKOMA_REF_EMBEDDER: '', TKOMA_REF_VECTOR_WORKER: 'off' };
}

/** Runs `fn` with these variables set, then puts the environment back as it was. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** A new root recording the embedder, then the real `topic create`; its wall time is time to searchable. */
export async function createRecorded(
  root: string,
  repo: Repo,
  setup: EmbedderSetup,
  topicId: string,
): Promise<{ seconds: number; files: number; chunks: number }> {
  rmSync(root, { recursive: true, force: true });
  await initRoot(root);
  allowLocalRepository(root, repo.url);
  await withEnv(lifecycleEnv(setup), () =>
    setEmbedder(root, { provider: setup.provider, ...(setup.provider === 'none' ? {} : { chunks: setup.chunks }) }, { startWorker: false }),
  );
  const args = ['topic', 'create', '--yes', '--json', '--topic-id', topicId, '--title', `Vectors bench ${topicId}`, '--git', repo.url, '--root', root];
  const r = await runCli(args, { env: lifecycleEnv(setup) });
  if (r.code !== 0) throw new Error(`topic create failed (${r.code}): ${r.stdout}${r.stderr}`);
  return { seconds: r.ms / 1000, files: Number(r.json?.file_count ?? repo.files), chunks: Number(r.json?.chunk_count ?? 0) };
}

export interface FullVectors {
  /** Texts the builder had to embed (notes + distinct pending chunks). */
  pending: number;
  embedded: number;
  loadSeconds: number;
  embedSeconds: number;
  rate: number;
  /** Model start-up + all of it; extrapolated from the rate when a cap stopped the run. */
  seconds: number;
  extrapolated: boolean;
  chunkVectors: boolean;
}

const MIN_MEASURED = 33;

/** Builds the pending vectors in this process (the worker's builder, without nice) up to the caps. */
export async function buildCapped(root: string, setup: EmbedderSetup, caps: { maxSeconds: number; maxChunks: number }): Promise<FullVectors> {
  return withEnv(lifecycleEnv(setup), async () => {
    const t0 = performance.now();
    const { embedder, reason } = await resolveEmbedder(root);
    if (!embedder) throw new Error(`${setup.label} did not start: ${reason ?? '?'}`);
    // Some models load lazily on their first text: that belongs to start-up, not to the rate.
    await embedder.embedDocuments(['warm-up']);
    const loadSeconds = (performance.now() - t0) / 1000;
    const chunkVectors = chunkVectorsFor(chunkSetting(await readConfig(root)), embedder.key);
    let pending = 0;
    let done = 0;
    const started = performance.now();
    const report = await buildVectors(root, {
      embedder,
      chunks: chunkVectors,
      onProgress: (p) => {
        pending = Math.max(pending, p.total);
        done = p.done;
      },
      // A rate needs a few batches whatever the caps say.
      shouldStop: () => done >= MIN_MEASURED && (performance.now() - started > caps.maxSeconds * 1000 || done >= caps.maxChunks),
    });
    // Started models are shared per process: the next row must start its own, not get this closed one.
    await embedder.close();
    forgetStarted();
    const embedSeconds = (performance.now() - started) / 1000;
    const rate = report.embedded > 0 ? report.embedded / embedSeconds : 0;
    const extrapolated = report.stopped === true;
    const seconds = loadSeconds + (extrapolated && rate > 0 ? pending / rate : embedSeconds);
    return { pending, embedded: report.embedded, loadSeconds, embedSeconds, rate, seconds, extrapolated, chunkVectors };
  });
}

export interface LifecycleOptions {
  corpora: readonly ('slice' | 'full')[];
  embedders: readonly EmbedderName[];
  maxSeconds: number;
  maxChunks: number;
  rounds: number;
  queries: number;
  latency: boolean;
  /** Worker builds to compare in the latency part (`label=dist-dir`), default the current dist/. */
  workers?: { label: string; dist: string; env?: Record<string, string> }[];
  /** Seconds each latency phase lasts at least (default one pass over the questions). */
  phaseSeconds?: number;
  /** The worker's embedder in the latency part (default use-lite with chunk vectors on). */
  latencyEmbedder?: EmbedderName;
  smoke: boolean;
  workDir: string;
  /** Hears each record as soon as it is measured (the full run takes long: keep what is done). */
  onRecord?: (r: BenchRecord) => void;
}

export const SIZES = { slice: 1413, full: 10_970, smoke: 30 } as const;

function commandOf(o: LifecycleOptions): string {
  if (o.smoke) return 'npm run bench:smoke';
  if (o.embedders.length === 0) {
    const workers = o.workers ? ` --workers ${o.workers.map((w) => `${w.label}=${relative(PROJECT, w.dist)}${w.env ? `@${Object.entries(w.env)[0]!.join('=')}` : ''}`).join(',')}` : '';
    return `npm run bench:vectors -- --latency-only --rounds ${o.rounds} --queries ${o.queries}${o.phaseSeconds ? ` --phase-seconds ${o.phaseSeconds}` : ''}${o.latencyEmbedder ? ` --latency-embedder ${o.latencyEmbedder}` : ''}${workers}`;
  }
  return `npm run bench:vectors -- --corpora ${o.corpora.join(',')} --embedders ${o.embedders.join(',')} --max-seconds ${o.maxSeconds}${o.latency ? '' : ' --no-latency'}`;
}

export async function runLifecycle(o: LifecycleOptions): Promise<BenchRecord[]> {
  checkBuilt();
  const records: BenchRecord[] = [];
  const keep = (...rs: BenchRecord[]): void => {
    records.push(...rs);
    for (const r of rs) o.onRecord?.(r);
  };
  const corpora = o.smoke ? (['smoke'] as const) : o.corpora;
  for (const corpus of corpora) {
    const repo = await nodeModulesRepo(o.workDir, SIZES[corpus]);
    const dataset = `node_modules ${corpus === 'full' ? '' : `${corpus} `}(${repo.files.toLocaleString('en-US')} files)`;
    for (const name of o.embedders) {
      const setup = setupFor(name, o.workDir);
      const root = join(o.workDir, 'vectors', `${corpus}-${name}`, 'kb');
      const made = await createRecorded(root, repo, setup, 'topic-vectors');
      process.stderr.write(`[vectors] ${dataset} ${setup.label}: searchable in ${made.seconds.toFixed(1)} s (${made.chunks} chunks)\n`);
      const base = { bench: 'throughput' as const, dataset, embedder: setup.label, ...stamp(commandOf(o)) };
      keep({ ...base, mode: 'searchable (topic create)', files: made.files, chunks: made.chunks, seconds: round(made.seconds, 1), ...(o.smoke ? { note: 'smoke' } : {}) });
      if (setup.provider === 'none') continue;
      const full = await buildCapped(root, setup, { maxSeconds: o.maxSeconds, maxChunks: o.maxChunks });
      process.stderr.write(`[vectors]   ${full.embedded}/${full.pending} embedded in ${full.embedSeconds.toFixed(1)} s (+${full.loadSeconds.toFixed(1)} s start-up)\n`);
      keep({
        ...base,
        mode: 'full vectors (after searchable)',
        files: made.files,
        chunks: full.pending,
        seconds: round(full.seconds, 1),
        chunks_per_s: round(full.rate, 1),
        measured_texts: full.embedded,
        measured_s: round(full.embedSeconds, 1),
        model_start_s: round(full.loadSeconds, 1),
        note: [
          full.chunkVectors ? 'topic notes + chunks' : 'topic notes only',
          full.extrapolated ? `extrapolated: ${full.embedded} of ${full.pending} texts measured, in this process at normal priority` : 'measured to the end',
          o.smoke ? 'smoke' : '',
        ]
          .filter(Boolean)
          .join('; '),
      });
    }
  }
  if (o.latency) {
    // use-lite with chunk vectors on: thousands of chunks pending, so the worker embeds all along.
    const setup = setupFor(o.smoke ? 'tiny' : (o.latencyEmbedder ?? 'use-lite'), o.workDir);
    const repo = await nodeModulesRepo(o.workDir, o.smoke ? SIZES.smoke : SIZES.slice);
    const root = join(o.workDir, 'vectors', 'busy-latency', 'kb');
    const made = await createRecorded(root, repo, setup, 'topic-vectors');
    const dataset = `node_modules ${o.smoke ? 'smoke' : 'slice'} (${made.files.toLocaleString('en-US')} files)`;
    const busy = {
      rounds: o.rounds,
      queries: o.queries,
      command: commandOf(o),
      root,
      topic: 'topic-vectors',
      dataset,
      embedder: `worker: ${setup.label}`,
      chunks: made.chunks,
      env: lifecycleEnv(setup),
      ...(o.workers ? { workers: o.workers } : {}),
      ...(o.phaseSeconds ? { phaseSeconds: o.phaseSeconds } : {}),
    };
    keep(...(await latencyWhileEmbedding(busy)));
  }
  return records;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpora: { type: 'string', default: 'slice,full' },
      embedders: { type: 'string' },
      'max-seconds': { type: 'string' },
      'max-chunks': { type: 'string' },
      rounds: { type: 'string' },
      queries: { type: 'string' },
      'no-latency': { type: 'boolean', default: false },
      'latency-only': { type: 'boolean', default: false },
      workers: { type: 'string' },
      'latency-embedder': { type: 'string' },
      'phase-seconds': { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const smoke = values.smoke!;
  const embedders = (values['latency-only'] ? '' : (values.embedders ?? (smoke ? 'none,tiny' : 'none,auto,use-lite,bge-int8,bge-fp32'))).split(',').filter(Boolean) as EmbedderName[];
  for (const e of embedders) if (!EMBEDDERS.includes(e)) throw new Error(`unknown embedder ${e} (${EMBEDDERS.join(', ')})`);
  const corpora = values.corpora!.split(',') as ('slice' | 'full')[];
  for (const c of corpora) if (c !== 'slice' && c !== 'full') throw new Error(`unknown corpus ${c} (slice, full)`);
  const opts: LifecycleOptions = {
    corpora,
    embedders,
    ...(values['phase-seconds'] ? { phaseSeconds: Number(values['phase-seconds']) } : {}),
    ...(values['latency-embedder'] ? { latencyEmbedder: values['latency-embedder'] as EmbedderName } : {}),
    maxSeconds: Number(values['max-seconds'] ?? (smoke ? 10 : 60)),
    maxChunks: Number(values['max-chunks'] ?? Number.POSITIVE_INFINITY),
    rounds: Number(values.rounds ?? (smoke ? 1 : 4)),
    queries: Number(values.queries ?? (smoke ? 2 : 12)),
    latency: !values['no-latency'],
    ...(values.workers
      ? {
          workers: values.workers.split(',').map((w) => {
            // label=dist-dir[@NAME=value]: a worker build and an environment variable of its own.
            const m = /^([^=]+)=([^@]+)(?:@([A-Z_]+)=(.*))?$/.exec(w);
            if (!m) throw new Error(`--workers takes label=dist-dir[@NAME=value],… (got ${w})`);
            return { label: m[1]!, dist: resolve(m[2]!), ...(m[3] ? { env: { [m[3]]: m[4]! } } : {}) };
          }),
        }
      : {}),
    smoke,
    workDir: values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
  };
  const t0 = performance.now();
  const out = outputsFor(smoke, values['out-dir']);
  const records = await runLifecycle({ ...opts, onRecord: (r) => saveRecords([r], out) });
  printTable(
    ['corpus', 'embedder', 'measure', 'chunks', 'seconds', 'p50 ms', 'p95 ms', 'note'],
    records.map((r) => [r.dataset, r.embedder, r.mode, String(r.chunks ?? ''), String(r.seconds ?? ''), String(r.p50_ms ?? ''), String(r.p95_ms ?? ''), r.note ?? '']),
  );
  console.log(`vectors: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();
