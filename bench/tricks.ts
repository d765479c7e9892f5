/**
 * What each speed trick buys on the path it serves (issue 30: a trick that buys less than 5% of
 * its path's time is removed). Alternated A/B pairs, who goes first alternating too, on one
 * SciFact root: A with every trick, B with one turned off.
 *
 *   npm run bench:tricks -- [--pairs 15] [--creates 3] [--docs 5183]
 *
 * Cold search (one process per query, `search --topic ID --json --no-server --limit 10`):
 *   bundle + code cache  B: TKOMA_REF_NO_BUNDLE=1 (the separate ES modules)
 *   code cache           B: TKOMA_REF_CODE_CACHE=off (the bundle compiled afresh)
 *   fast path            B: TKOMA_REF_NO_FAST_PATH=1 (oclif parses every search)
 *   find prefetch        B: TKOMA_REF_TRICKS_OFF=prefetch
 *   TOML subset reader   B: TKOMA_REF_TRICKS_OFF=toml-subset (smol-toml reads the root's files)
 * Create (`init` + `topic create --yes --embedder none` from a file:// copy):
 *   young generation     B: TKOMA_REF_TRICKS_OFF=young-generation (peak RSS is what it serves)
 *
 * Wall time, CPU (user + system, children included) and peak RSS come from /usr/bin/time. Prints
 * the table; nothing is saved (the figures go into docs/BENCHMARKS.md by hand, with the load).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { loadBeir } from './lib/beir.js';
import { BIN, checkBuilt } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { isMain } from './lib/main.js';
import { percentile } from './lib/stats.js';
import { BENCH_DATA, WORK_DIR } from './lib/store.js';

interface Timed {
  ms: number;
  cpuMs: number;
  rssMb: number;
  code: number;
}

/** One whole process under /usr/bin/time: wall, CPU and peak RSS as a user's shell would see them. */
function timed(args: string[], env: Record<string, string>): Timed {
  const r = spawnSync('/usr/bin/time', ['-f', '@@time %e %U %S %M', process.execPath, BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', TKOMA_REF_EMBEDDER: 'none', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const m = /@@time ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`no timing for ${args.join(' ')}: ${r.stderr}`);
  return { ms: Number(m[1]) * 1000, cpuMs: (Number(m[2]) + Number(m[3])) * 1000, rssMb: Number(m[4]) / 1024, code: r.status ?? -1 };
}

const TRICKS: { name: string; path: 'search' | 'create'; off: Record<string, string> }[] = [
  { name: 'bundle + code cache', path: 'search', off: { TKOMA_REF_NO_BUNDLE: '1' } },
  { name: 'code cache', path: 'search', off: { TKOMA_REF_CODE_CACHE: 'off' } },
  { name: 'fast path', path: 'search', off: { TKOMA_REF_NO_FAST_PATH: '1' } },
  { name: 'find prefetch', path: 'search', off: { TKOMA_REF_TRICKS_OFF: 'prefetch' } },
  { name: 'TOML subset reader', path: 'search', off: { TKOMA_REF_TRICKS_OFF: 'toml-subset' } },
  { name: 'young generation held', path: 'create', off: { TKOMA_REF_TRICKS_OFF: 'young-generation' } },
];

interface Row {
  trick: string;
  path: string;
  runs: number;
  on: Timed[];
  off: Timed[];
}

function summary(rows: Row[]): void {
  const p50 = (xs: Timed[], k: keyof Timed): number => percentile(xs.map((x) => x[k]), 50);
  const mean = (xs: Timed[], k: keyof Timed): number => xs.reduce((s, x) => s + x[k], 0) / xs.length;
  console.log('| trick | path | pairs | wall p50 on / off (ms) | buys | CPU mean on / off (ms) | buys | peak RSS on / off (MiB) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const w = [p50(r.on, 'ms'), p50(r.off, 'ms')] as const;
    const c = [mean(r.on, 'cpuMs'), mean(r.off, 'cpuMs')] as const;
    const m = [p50(r.on, 'rssMb'), p50(r.off, 'rssMb')] as const;
    const pct = (a: number, b: number): string => `${(((b - a) / b) * 100).toFixed(1)}%`;
    console.log(`| ${r.trick} | ${r.path} | ${r.runs} | ${w[0].toFixed(0)} / ${w[1].toFixed(0)} | ${pct(w[0], w[1])} | ${c[0].toFixed(0)} / ${c[1].toFixed(0)} | ${pct(c[0], c[1])} | ${m[0].toFixed(0)} / ${m[1].toFixed(0)} |`);
  }
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const arg = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const pairs = arg('pairs', 15);
  const creates = arg('creates', 3);
  const docs = arg('docs', 5183);
  checkBuilt();
  const set = loadBeir(join(BENCH_DATA, 'scifact'));
  const work = join(WORK_DIR, 'tricks');
  mkdirSync(work, { recursive: true });
  const chosen = set.corpus.slice(0, docs);
  const repo = await repoFromFiles(join(work, 'repo'), `scifact-${chosen.length}`, function* () {
    for (const d of chosen) yield [`docs/${d.id}.md`, `# ${d.title}\n\n${d.text}\n`];
  });
  const fresh = (root: string): void => {
    rmSync(root, { recursive: true, force: true });
    if (timed(['init', '--root', root], {}).code !== 0) throw new Error('init failed');
    // The operator allows this local repository, as a user would (older builds ignore the section).
    writeFileSync(join(root, 'tkoma-ref.toml'), `\n[sources]\nlocal_roots = [${JSON.stringify(join(work, 'repo'))}]\n[network]\nallow = ["127.0.0.1"]\n`, { flag: 'a' });
  };
  const createArgs = (root: string): string[] => ['topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', 'SciFact', '--git', repo.url, '--root', root];
  const root = join(work, 'kb');
  fresh(root);
  const made = timed(createArgs(root), {});
  if (made.code !== 0) throw new Error('topic create failed');
  const questions = set.queries.slice(0, pairs).map((q) => q.text);
  const rows: Row[] = [];
  const load: number[] = [loadavg()[0]!];
  for (const t of TRICKS) {
    const row: Row = { trick: t.name, path: t.path === 'search' ? 'cold search, 10 hits' : 'topic create', runs: 0, on: [], off: [] };
    const n = t.path === 'search' ? pairs : creates;
    for (let i = 0; i < n; i++) {
      const run = (off: boolean): Timed => {
        const env = off ? t.off : {};
        if (t.path === 'search') return timed(['search', questions[i % questions.length]!, '--topic', 'topic-scifact', '--json', '--no-server', '--limit', '10', '--root', root], env);
        const r = join(work, `kb-create-${off ? 'b' : 'a'}`);
        fresh(r);
        return timed(createArgs(r), env);
      };
      // A warm-up of each side first, so a code cache the B side skips is written for A.
      if (i === 0 && t.path === 'search') {
        run(false);
        run(true);
      }
      const first = i % 2 === 0;
      const a = first ? run(false) : run(true);
      const b = first ? run(true) : run(false);
      row.on.push(first ? a : b);
      row.off.push(first ? b : a);
      row.runs++;
    }
    rows.push(row);
    load.push(loadavg()[0]!);
    process.stderr.write(`${t.name}: done\n`);
  }
  console.log(`\nSciFact (${chosen.length} docs), ${new Date().toISOString().slice(0, 16)} UTC, load (1 min) ${Math.min(...load).toFixed(2)}-${Math.max(...load).toFixed(2)}\n`);
  summary(rows);
}

if (isMain(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
