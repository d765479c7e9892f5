/**
 * Head to head with qmd, run alternately pair by pair on the same machine and the same data:
 *
 *   npm run bench:peers -- [--qmd PATH] [--pairs 3] [--queries 30] [--dataset scifact]
 *                          [--repo PATH] [--rows all|corpus|repo] [--chunks N [--scale-dir DIR]]
 *                          [--no-save]
 *
 * Installs nothing. Without a `qmd` binary on PATH (or given by --qmd) it says so and exits 0.
 * Pairs, embedder none on both sides, each side's own defaults otherwise:
 *   index   tkoma-ref `init` + `topic create --yes --embedder none` from a git copy of the corpus,
 *           against qmd `collection add DIR --name N --mask GLOB` of the same files into a fresh
 *           cache (qmd's `collection add` indexes the files itself; an `update` after it only
 *           rescans what is unchanged, so it is not counted);
 *   cold    one process per query: `tkoma-ref search Q --topic T --json --no-server --limit 10`
 *           against `qmd search Q --format json -n 10 -c N`, alternating query by query;
 *   warm    one running MCP server each, over stdio: our `reference_search {topic, question,
 *           limit}` against qmd's `query {searches: [{type: lex, query}], limit, rerank: false,
 *           collections}` (its BM25 path; no model is loaded), 10 and 100 hits, alternating
 *           call by call, `--pairs` rounds over the queries after one untimed call each;
 *   repo    a real repository (`--repo PATH`, a work tree or a bare git folder; default
 *           TKOMA_BENCH_REPO, else the Dioxus mirror this machine's fetch tool leaves in
 *           /work/.mirror; no repository: these rows are skipped): our create of its whole HEAD
 *           against qmd `collection add` with the glob of its commonest code extension and .md
 *           (rs and md for Dioxus), then both on just those files. Beside wall time and
 *           CPU, how long our process ran after its answer (the last byte of stdout to its exit).
 *   scale   `--chunks N` instead of the rows above: SciFact repeated to N chunks, one index pair,
 *           cold searches and each MCP server's first call (bench/peers-scale.ts).
 * Wall time as a user sees it (Node's start and qmd's launcher process included); peak RSS of
 * the largest process and CPU time (user + system, children included) through /usr/bin/time
 * when it is there, and for the MCP servers from /proc. CPU time and answer bytes move far less
 * with a busy neighbour than wall time. The hits each side returned are counted too: qmd ANDs
 * the terms and often returns fewer. The 1-minute load average of each
 * pair goes beside the figures: on a shared 2-core machine a ratio is only as good as the
 * quietest run. Records go to docs/benchmarks.json (bench `peers`) and docs/BENCHMARKS.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, delimiter, dirname, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadBeir } from './lib/beir.js';
import { BIN, checkBuilt } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { headCommit, repoFromGitHead } from './lib/git-tree-copy.js';
import { allowLocalRepository } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { treeCpuMs } from './lib/proc-cpu.js';
import { add, fmtMs, hitsIn, load, peerRecord, type Run, run, side, type Side, TIME } from './lib/peer-runs.js';
import { StdioRpc } from './lib/rpc.js';
import { percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, outputsFor, saveRecords, WORK_DIR } from './lib/store.js';
import { type DatasetName, documentFile } from './quality.js';


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

export { hitsIn, peerRecord };

/** run(), asynchronously, also timing the process's life after the last byte of its answer. */
function runWithTail(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run & { tailMs: number }> {
  const withTime = existsSync(TIME);
  const argv = withTime ? [TIME, '-f', 'PEAK_RSS_KB %M CPU_S %U %S', cmd, ...args] : [cmd, ...args];
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env: opts.env ?? process.env, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    let answered = t;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      answered = performance.now();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const end = performance.now();
      const kb = /PEAK_RSS_KB (\d+)/.exec(stderr)?.[1];
      const cpu = /CPU_S ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0) process.stderr.write(`[peers] ${cmd} ${args.slice(0, 3).join(' ')} … exited ${code}: ${stderr.slice(-400)}\n`);
      resolve({
        ms: answered - t,
        tailMs: end - answered,
        rssMb: kb ? Number(kb) / 1024 : null,
        cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : null,
        ok: code === 0,
        stdout,
      });
    });
  });
}

interface Setup {
  qmd: string;
  dataset: DatasetName;
  repoDir: string;
  repoUrl: string;
  mask: string;
  base: string;
  kb: string;
  qmdEnv: NodeJS.ProcessEnv;
  ours: NodeJS.ProcessEnv;
}

/** Index pairs; returns our topic id (from the last create) with the figures. */
function indexPairs(s: Setup, pairs: number): { ours: Side; qmd: Side; loads: number[]; topic: string } {
  const out = { ours: side(), qmd: side(), loads: [] as number[], topic: '' };
  const cache = s.qmdEnv.XDG_CACHE_HOME!;
  for (let p = 0; p < pairs; p++) {
    out.loads.push(load());
    const ourTurn = (): void => {
      rmSync(s.kb, { recursive: true, force: true });
      if (!run(process.execPath, [BIN, 'init', '--root', s.kb, '--json'], { env: s.ours }).ok) throw new Error('tkoma-ref init failed');
      allowLocalRepository(s.kb, s.repoUrl);
      const r = run(process.execPath, [BIN, 'topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', s.dataset, '--git', s.repoUrl, '--root', s.kb], { env: s.ours });
      add(out.ours, r);
      out.topic = (JSON.parse(r.stdout) as { topic_id: string }).topic_id;
    };
    const qmdTurn = (): void => {
      rmSync(cache, { recursive: true, force: true });
      rmSync(s.qmdEnv.XDG_CONFIG_HOME!, { recursive: true, force: true });
      mkdirSync(cache, { recursive: true });
      add(out.qmd, run(s.qmd, ['collection', 'add', s.repoDir, '--name', s.dataset, '--mask', s.mask], { env: s.qmdEnv, cwd: s.base }));
    };
    // Alternate who goes first, so neither always runs on the warmer page cache.
    for (const turn of p % 2 === 0 ? [ourTurn, qmdTurn] : [qmdTurn, ourTurn]) turn();
    process.stderr.write(`[peers] index pair ${p + 1}: ours ${fmtMs(out.ours.ms.at(-1)!)}, qmd ${fmtMs(out.qmd.ms.at(-1)!)} (load ${out.loads.at(-1)})\n`);
  }
  return out;
}

type Pair = { ours: Side; qmd: Side; loads: number[] };

/** The same environment less NODE_EXTRA_CA_CERTS, which Node 20 reads at every start (Node 22 lazily). */
export function withoutExtraCa(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _dropped, ...rest } = env;
  return rest;
}

/**
 * Cold pairs, query by query, in the environment as given and (when it sets one) without
 * NODE_EXTRA_CA_CERTS: the variable costs our Node 20 ~40 ms of CPU per start and qmd's Node 22
 * nothing, and a user's machine seldom has it. The four runs of a query rotate their order.
 */
function coldPairs(s: Setup, topic: string, questions: string[]): { asIs: Pair; noCa: Pair | null } {
  const asIs: Pair = { ours: side(), qmd: side(), loads: [] };
  const noCa: Pair | null = s.ours.NODE_EXTRA_CA_CERTS ? { ours: side(), qmd: side(), loads: [] } : null;
  questions.forEach((q, i) => {
    if (i % 10 === 0) for (const p of [asIs, noCa]) p?.loads.push(load());
    const ours = (into: Pair, env: NodeJS.ProcessEnv) => (): void => {
      const r = run(process.execPath, [BIN, 'search', q, '--topic', topic, '--json', '--no-server', '--limit', '10', '--root', s.kb], { env });
      add(into.ours, r, hitsIn(r.stdout));
    };
    const qmd = (into: Pair, env: NodeJS.ProcessEnv) => (): void => {
      const r = run(s.qmd, ['search', q, '--format', 'json', '-n', '10', '-c', s.dataset], { env, cwd: s.base });
      add(into.qmd, r, hitsIn(r.stdout));
    };
    const turns = [ours(asIs, s.ours), qmd(asIs, s.qmdEnv)];
    if (noCa) turns.push(ours(noCa, withoutExtraCa(s.ours)), qmd(noCa, withoutExtraCa(s.qmdEnv)));
    for (let k = 0; k < turns.length; k++) turns[(i + k) % turns.length]!();
  });
  return { asIs, noCa };
}

/** One timed tools/call, with the server tree's CPU; the hits come from the structured content. */
async function timedCall(rpc: StdioRpc, name: string, args: Record<string, unknown>, into: Side): Promise<void> {
  const cpu0 = treeCpuMs(rpc.child.pid);
  const t = performance.now();
  const r = await rpc.request('tools/call', { name, arguments: args });
  into.ms.push(performance.now() - t);
  const cpu1 = treeCpuMs(rpc.child.pid);
  if (cpu0 !== null && cpu1 !== null) into.cpuMs.push(cpu1 - cpu0);
  if (r.isError) {
    into.failed++;
    process.stderr.write(`[peers] ${name} failed: ${JSON.stringify(r.content).slice(0, 300)}\n`);
  }
  const results = r.structuredContent?.results;
  into.hits.push(Array.isArray(results) ? results.length : -1);
  into.bytes.push(Buffer.byteLength(JSON.stringify(r)));
}

async function warmPairs(s: Setup, topic: string, questions: string[], rounds: number, limits: readonly number[]) {
  const ours = new StdioRpc(process.execPath, [BIN, 'mcp', '--root', s.kb], { env: s.ours });
  const qmd = new StdioRpc(s.qmd, ['mcp'], { env: s.qmdEnv, cwd: s.base });
  const out = new Map(limits.map((l) => [l, { ours: side(), qmd: side(), loads: [] as number[] }]));
  try {
    await Promise.all([ours.initialize(), qmd.initialize()]);
    const ourArgs = (q: string, limit: number) => ({ topic, question: q, limit });
    const qmdArgs = (q: string, limit: number) => ({ searches: [{ type: 'lex', query: q }], limit, rerank: false, collections: [s.dataset] });
    // One untimed call each: our server's index preload, qmd's database open.
    await timedCall(ours, 'reference_search', ourArgs(questions[0]!, 10), side());
    await timedCall(qmd, 'query', qmdArgs(questions[0]!, 10), side());
    for (let round = 0; round < rounds; round++) {
      for (const limit of limits) {
        const o = out.get(limit)!;
        o.loads.push(load());
        for (const [i, q] of questions.entries()) {
          const a = () => timedCall(ours, 'reference_search', ourArgs(q, limit), o.ours);
          const b = () => timedCall(qmd, 'query', qmdArgs(q, limit), o.qmd);
          for (const turn of (i + round) % 2 === 0 ? [a, b] : [b, a]) await turn();
        }
      }
    }
  } finally {
    await Promise.all([ours.close(), qmd.close()]);
  }
  return out;
}

export async function runPeers(opts: { qmd: string; pairs: number; queries: number; dataset: DatasetName; workDir: string }): Promise<BenchRecord[]> {
  checkBuilt();
  const data = loadBeir(join(BENCH_DATA, opts.dataset));
  const base = join(opts.workDir, 'peers', opts.dataset);
  const files = (): [string, string][] => data.corpus.map((d) => documentFile(opts.dataset, d));
  const repo = await repoFromFiles(join(base, 'repo'), `${opts.dataset}:${data.corpus.length}:${data.corpus[0]?.id}`, files);
  const cache = join(base, 'qmd-cache');
  const s: Setup = {
    qmd: opts.qmd,
    dataset: opts.dataset,
    repoDir: repo.dir,
    repoUrl: repo.url,
    mask: `**/*${extname(files()[0]![0])}`,
    base,
    kb: join(base, 'kb'),
    qmdEnv: { ...process.env, XDG_CACHE_HOME: cache, XDG_CONFIG_HOME: join(base, 'qmd-config'), NO_COLOR: '1' },
    ours: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' },
  };
  const version = run(opts.qmd, ['--version'], { env: s.qmdEnv, cwd: base }).stdout.trim();
  const command = `npm run bench:peers -- --qmd PATH --pairs ${opts.pairs} --queries ${opts.queries}${opts.dataset === 'scifact' ? '' : ` --dataset ${opts.dataset}`}`;
  const dataset = `${opts.dataset} (${data.corpus.length.toLocaleString('en-US')} docs)`;
  const note = (what: string): { dataset: string; command: string; note: string } => ({ dataset, command, note: `${version}; ${what}` });

  const index = indexPairs(s, opts.pairs);
  const questions = data.queries.slice(0, opts.queries).map((q) => q.text);
  process.stderr.write(`[peers] ${questions.length} cold searches each…\n`);
  const cold = coldPairs(s, index.topic, questions);
  process.stderr.write(`[peers] warm: ${opts.pairs} rounds × ${questions.length} MCP calls each, 10 and 100 hits…\n`);
  const warm = await warmPairs(s, index.topic, questions, opts.pairs, [10, 100]);
  const nodeStart = Array.from({ length: 5 }, () => run(process.execPath, ['-e', '0']).ms);

  return [
    peerRecord('index from scratch', index, note('tkoma-ref init + topic create --yes --embedder none from file:// git, against qmd collection add (fresh cache)')),
    peerRecord('cold search, 10 hits', cold.asIs, note(`one process per query (\`node -e 0\`: ${fmtMs(percentile(nodeStart, 50))}); qmd through its bin launcher, which starts a second Node`)),
    ...(cold.noCa ? [peerRecord('cold search, 10 hits, no NODE_EXTRA_CA_CERTS', cold.noCa, note('as the row above, both sides without NODE_EXTRA_CA_CERTS (set on this machine, seldom on a user\'s)'))] : []),
    ...[10, 100].map((l) => peerRecord(`warm MCP, ${l} hits`, warm.get(l)!, note('tools/call round trip over stdio: reference_search against qmd query with one lex search, rerank false'))),
  ];
}

/** Where the whole-repository rows find their repository: the flag, TKOMA_BENCH_REPO, the Dioxus mirror. */
export function findRepo(flag: string | undefined, env = process.env.TKOMA_BENCH_REPO): string | null {
  const candidates = flag ? [flag] : [env, '/work/.mirror/DioxusLabs+dioxus/repo'].filter((c): c is string => Boolean(c));
  return candidates.find((c) => headCommit(c) !== null) ?? null;
}

/** The commonest extension of the files that qmd would index as code ("rs" for Dioxus). */
const CODE_EXT = /\.(rs|ts|tsx|js|py|go|java|rb|c|cc|cpp|h|cs|kt|swift|php)$/;

function mainCodeExtension(source: string): string {
  const names = spawnSync('git', [`--git-dir=${existsSync(join(source, '.git')) ? join(source, '.git') : source}`, 'ls-tree', '-r', '--name-only', 'HEAD'], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 }).stdout.split('\n');
  const counts = new Map<string, number>();
  for (const n of names) {
    const ext = CODE_EXT.exec(n)?.[1];
    if (ext) counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'ts';
}

/**
 * Whole-repository rows: our create of every file of `source`'s HEAD against qmd on its code and
 * markdown (what qmd indexes of it), then both on the same code and markdown files only.
 */
export async function runRepoRows(opts: { qmd: string; pairs: number; source: string; workDir: string }): Promise<BenchRecord[]> {
  checkBuilt();
  const name = basename(opts.source === join(dirname(opts.source), 'repo') ? dirname(opts.source) : opts.source).replace(/^.*\+/, '').toLowerCase();
  const ext = mainCodeExtension(opts.source);
  const mask = `**/*.{${ext},md}`;
  const sameFile = (p: string): boolean => p.endsWith(`.${ext}`) || p.endsWith('.md');
  const base = join(opts.workDir, 'peers', `repo-${name}`);
  const whole = await repoFromGitHead(join(base, 'whole'), opts.source, () => true, 'whole');
  const same = await repoFromGitHead(join(base, 'same'), opts.source, sameFile, `same:${ext}`);
  const cache = join(base, 'qmd-cache');
  const qmdEnv = { ...process.env, XDG_CACHE_HOME: cache, XDG_CONFIG_HOME: join(base, 'qmd-config'), NO_COLOR: '1' };
  const ours = { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' };
  const kb = join(base, 'kb');
  const version = run(opts.qmd, ['--version'], { env: qmdEnv, cwd: base }).stdout.trim();
  const command = `npm run bench:peers -- --qmd PATH --rows repo --pairs ${opts.pairs} --repo PATH`;
  const records: BenchRecord[] = [];
  for (const [mode, repo] of [
    ['index whole repository', whole],
    [`index the same .${ext}/.md files`, same],
  ] as const) {
    const pair = { ours: side(), qmd: side(), loads: [] as number[] };
    const tails: number[] = [];
    for (let p = 0; p < opts.pairs; p++) {
      pair.loads.push(load());
      const ourTurn = async (): Promise<void> => {
        rmSync(kb, { recursive: true, force: true });
        if (!run(process.execPath, [BIN, 'init', '--root', kb, '--json'], { env: ours }).ok) throw new Error('tkoma-ref init failed');
        allowLocalRepository(kb, repo.url);
        const r = await runWithTail(process.execPath, [BIN, 'topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', name, '--git', repo.url, '--root', kb], { env: ours });
        add(pair.ours, r);
        tails.push(r.tailMs);
      };
      const qmdTurn = async (): Promise<void> => {
        rmSync(cache, { recursive: true, force: true });
        rmSync(qmdEnv.XDG_CONFIG_HOME, { recursive: true, force: true });
        mkdirSync(cache, { recursive: true });
        add(pair.qmd, run(opts.qmd, ['collection', 'add', repo.dir, '--name', name, '--mask', mask], { env: qmdEnv, cwd: base }));
      };
      for (const turn of p % 2 === 0 ? [ourTurn, qmdTurn] : [qmdTurn, ourTurn]) await turn();
      process.stderr.write(`[peers] ${mode} pair ${p + 1}: ours ${fmtMs(pair.ours.ms.at(-1)!)} (+${fmtMs(tails.at(-1)!)} after the answer), qmd ${fmtMs(pair.qmd.ms.at(-1)!)} (load ${pair.loads.at(-1)})\n`);
    }
    const rec = peerRecord(mode, pair, {
      dataset: `${name} (${repo.files.toLocaleString('en-US')} files)`,
      command,
      note: `${version}; tkoma-ref init + topic create --yes --embedder none of every file from file:// git (ours: answer = last byte of stdout), against qmd collection add --mask '${mask}' (fresh cache)`,
    });
    rec.ours_tail_ms_max = round(Math.max(...tails));
    records.push(rec);
  }
  return records;
}

export function printPeers(records: readonly BenchRecord[]): void {
  const cell = (r: BenchRecord, who: 'ours' | 'qmd'): string => {
    const ms = r[`${who}_p50_ms`] as number;
    const rss = r[`${who}_peak_rss_mb`];
    return `${fmtMs(ms)}${typeof rss === 'number' ? `, ${rss} MiB` : ''}`;
  };
  printTable(
    ['measurement', 'runs', 'tkoma-ref p50', 'qmd p50', 'ratio', 'hits (ours / qmd)', 'answer bytes (ours / qmd)', 'CPU ms, mean (ours / qmd)', 'ours after its answer (max)', 'failed', 'load (1 min)'],
    records.map((r) => [
      r.mode,
      String(r.runs),
      cell(r, 'ours'),
      cell(r, 'qmd'),
      `${r.ratio}×`,
      `${r.ours_mean_hits ?? '–'} / ${r.qmd_mean_hits ?? '–'}`,
      `${r.ours_mean_bytes ?? '–'} / ${r.qmd_mean_bytes ?? '–'}`,
      `${r.ours_cpu_ms ?? '–'} / ${r.qmd_cpu_ms ?? '–'}`,
      typeof r.ours_tail_ms_max === 'number' ? fmtMs(r.ours_tail_ms_max) : '–',
      String(r.failed),
      `${r.load_min}–${r.load_max}`,
    ]),
  );
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      qmd: { type: 'string' },
      pairs: { type: 'string', default: '3' },
      queries: { type: 'string', default: '30' },
      dataset: { type: 'string', default: 'scifact' },
      repo: { type: 'string' },
      rows: { type: 'string', default: 'all' },
      'no-save': { type: 'boolean', default: false },
      chunks: { type: 'string' },
      'scale-dir': { type: 'string' },
    },
  });
  const qmd = findQmd(values.qmd);
  if (!qmd) {
    process.stdout.write(`bench:peers: no qmd binary ${values.qmd ? `at ${values.qmd}` : 'on PATH'} (give one with --qmd PATH); nothing measured, nothing installed.\n`);
    process.exit(0);
  }
  if (values.dataset !== 'scifact' && values.dataset !== 'cosqa') throw new Error(`unknown dataset ${values.dataset} (scifact, cosqa)`);
  if (!['all', 'corpus', 'repo'].includes(values.rows)) throw new Error(`unknown --rows ${values.rows} (all, corpus, repo)`);
  const records: BenchRecord[] = [];
  if (values.chunks) {
    const { runScaleRows } = await import('./peers-scale.js');
    records.push(...(await runScaleRows({ qmd, chunks: Number(values.chunks), queries: Number(values.queries), workDir: WORK_DIR, repoDir: values['scale-dir'] && join(values['scale-dir'], `repo-${values.chunks}`) })));
  } else if (values.rows !== 'repo') records.push(...(await runPeers({ qmd, pairs: Number(values.pairs), queries: Number(values.queries), dataset: values.dataset, workDir: WORK_DIR })));
  if (values.rows !== 'corpus' && !values.chunks) {
    const source = findRepo(values.repo);
    if (source) records.push(...(await runRepoRows({ qmd, pairs: Number(values.pairs), source, workDir: WORK_DIR })));
    else process.stdout.write(`bench:peers: no git repository ${values.repo ? `at ${values.repo}` : '(--repo PATH, TKOMA_BENCH_REPO, or /work/.mirror/DioxusLabs+dioxus/repo)'}: whole-repository rows skipped.\n`);
  }
  printPeers(records);
  if (!values['no-save']) saveRecords(records, outputsFor(false));
}
