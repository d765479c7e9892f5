/**
 * Head to head with qmd, run alternately pair by pair on the same machine and the same data:
 *
 *   npm run bench:peers -- [--qmd PATH] [--pairs 3] [--queries 30] [--dataset scifact]
 *
 * Installs nothing. Without a `qmd` binary on PATH (or given by --qmd) it says so and exits 0.
 * Pairs, embedder none on both sides:
 *   index   tkoma-ref `init` + `topic create --yes --embedder none` from a git copy of the corpus,
 *           against qmd `collection add` + `update` of the same files (a fresh cache each time);
 *   cold    one process per query: `tkoma-ref search Q --json --no-server` against
 *           `qmd search Q --json -n 10`, alternating query by query.
 * Wall time of the whole command (Node's own start included, as a user sees it), and peak RSS
 * when /usr/bin/time is there. The load average is printed beside the figures: on a shared
 * 2-core machine a ratio is only as good as the quietest run.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadBeir } from './lib/beir.js';
import { BIN } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { isMain } from './lib/main.js';
import { percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, WORK_DIR } from './lib/store.js';
import { type DatasetName, documentFile } from './quality.js';

const TIME = '/usr/bin/time';

/** The qmd binary: the flag's path, else the first `qmd` on PATH; null when there is none. */
export function findQmd(flag: string | undefined, path = process.env.PATH ?? ''): string | null {
  const candidates = flag ? [flag] : path.split(delimiter).filter(Boolean).map((d) => join(d, 'qmd'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

interface Run {
  ms: number;
  rssMb: number | null;
  ok: boolean;
}

/** Runs one command to completion: wall time, and peak RSS through /usr/bin/time when present. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const withTime = existsSync(TIME);
  const t = performance.now();
  const r = withTime
    ? spawnSync(TIME, ['-f', 'PEAK_RSS_KB %M', cmd, ...args], { env, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
    : spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const ms = performance.now() - t;
  const kb = /PEAK_RSS_KB (\d+)/.exec(r.stderr ?? '')?.[1];
  if (r.status !== 0) process.stderr.write(`[peers] ${cmd} ${args.slice(0, 3).join(' ')} … exited ${r.status}: ${(r.stderr ?? '').slice(-400)}\n`);
  return { ms, rssMb: kb ? Number(kb) / 1024 : null, ok: r.status === 0 };
}

const load = (): string => loadavg()[0]!.toFixed(2);
const fmtMs = (ms: number): string => (ms >= 1000 ? `${round(ms / 1000, 2)} s` : `${round(ms, 0)} ms`);
const fmtRss = (mb: number | null): string => (mb === null ? '–' : `${round(mb, 0)} MiB`);

export async function runPeers(opts: { qmd: string; pairs: number; queries: number; dataset: DatasetName; workDir: string }): Promise<void> {
  const data = loadBeir(join(BENCH_DATA, opts.dataset));
  const base = join(opts.workDir, 'peers', opts.dataset);
  const repo = await repoFromFiles(join(base, 'repo'), `${opts.dataset}:${data.corpus.length}:${data.corpus[0]?.id}`, () =>
    data.corpus.map((d) => documentFile(opts.dataset, d)),
  );
  const node = process.execPath;
  const kb = join(base, 'kb');
  const cache = join(base, 'qmd-cache');
  const qmdEnv = { ...process.env, XDG_CACHE_HOME: cache, XDG_CONFIG_HOME: join(cache, 'config') };
  const ours = { ...process.env, TKOMA_REF_EMBEDDER: 'none' };

  const index: { ours: Run[]; qmd: Run[]; loads: string[] } = { ours: [], qmd: [], loads: [] };
  for (let p = 0; p < opts.pairs; p++) {
    index.loads.push(load());
    rmSync(kb, { recursive: true, force: true });
    const init = run(node, [BIN, 'init', '--root', kb, '--json'], ours);
    if (!init.ok) throw new Error('tkoma-ref init failed');
    index.ours.push(run(node, [BIN, 'topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', opts.dataset, '--git', repo.url, '--root', kb], ours));
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    const add = run(opts.qmd, ['collection', 'add', repo.dir, '--name', opts.dataset, '--mask', '**/*.md'], qmdEnv);
    const update = run(opts.qmd, ['update'], qmdEnv);
    index.qmd.push({ ms: add.ms + update.ms, rssMb: Math.max(add.rssMb ?? 0, update.rssMb ?? 0) || null, ok: add.ok && update.ok });
    process.stderr.write(`[peers] index pair ${p + 1}: ours ${fmtMs(index.ours.at(-1)!.ms)}, qmd ${fmtMs(index.qmd.at(-1)!.ms)} (load ${index.loads.at(-1)})\n`);
  }

  const questions = data.queries.slice(0, opts.queries).map((q) => q.text);
  const cold: { ours: Run[]; qmd: Run[]; loads: string[] } = { ours: [], qmd: [], loads: [] };
  questions.forEach((q, i) => {
    if (i % 10 === 0) cold.loads.push(load());
    // Alternate who goes first, so neither always runs on a warmer page cache.
    const a = (): number => cold.ours.push(run(node, [BIN, 'search', q, '--json', '--no-server', '--root', kb], ours));
    const b = (): number => cold.qmd.push(run(opts.qmd, ['search', q, '--json', '-n', '10', '-c', opts.dataset], qmdEnv));
    for (const side of i % 2 === 0 ? [a, b] : [b, a]) side();
  });
  const nodeStart = Array.from({ length: 5 }, () => run(node, ['-e', '0']).ms);

  const med = (xs: Run[]): number => percentile(xs.map((x) => x.ms), 50);
  const peak = (xs: Run[]): number | null => (xs.some((x) => x.rssMb !== null) ? Math.max(...xs.map((x) => x.rssMb ?? 0)) : null);
  const ratio = (a: number, b: number): string => `${round(a / b, 2)}×`;
  const rows = [
    ['index from scratch (median of pairs)', fmtMs(med(index.ours)), fmtRss(peak(index.ours)), fmtMs(med(index.qmd)), fmtRss(peak(index.qmd)), ratio(med(index.ours), med(index.qmd)), index.loads.join(', ')],
    ['cold search --json, one process per query (p50)', fmtMs(med(cold.ours)), fmtRss(peak(cold.ours)), fmtMs(med(cold.qmd)), fmtRss(peak(cold.qmd)), ratio(med(cold.ours), med(cold.qmd)), cold.loads.join(', ')],
  ];
  printTable(['measurement', 'tkoma-ref', 'peak RSS', 'qmd', 'peak RSS', 'ratio (lower is ours faster)', 'load average (1 min)'], rows);
  const failed = [...index.ours, ...index.qmd, ...cold.ours, ...cold.qmd].filter((r) => !r.ok).length;
  process.stdout.write(`\n\`node -e 0\`: ${fmtMs(percentile(nodeStart, 50))}; ${opts.pairs} index pairs, ${questions.length} queries; failed runs: ${failed}\n`);
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      qmd: { type: 'string' },
      pairs: { type: 'string', default: '3' },
      queries: { type: 'string', default: '30' },
      dataset: { type: 'string', default: 'scifact' },
    },
  });
  const qmd = findQmd(values.qmd);
  if (!qmd) {
    process.stdout.write(`bench:peers: no qmd binary ${values.qmd ? `at ${values.qmd}` : 'on PATH'} (give one with --qmd PATH); nothing measured, nothing installed.\n`);
    process.exit(0);
  }
  if (values.dataset !== 'scifact' && values.dataset !== 'cosqa') throw new Error(`unknown dataset ${values.dataset} (scifact, cosqa)`);
  await runPeers({ qmd, pairs: Number(values.pairs), queries: Number(values.queries), dataset: values.dataset, workDir: WORK_DIR });
}
