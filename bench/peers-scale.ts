/**
 * bench:peers at scale (`npm run bench:peers -- --chunks 1000000 [--queries 10]`): SciFact's
 * documents repeated under copy-N/ folders until their chunks reach N, the same files on both
 * sides, one pair. Rows: the create against qmd `collection add` (wall, CPU, peak RSS), cold
 * searches alternated query by query, and each MCP server's first call (spawn to answer, and the
 * call alone) with the server's resident memory after it. Scale steps (100k, 300k, 1M) show how
 * each cost grows with the chunks.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { chunkFile } from '../src/lib/chunking/index.js';
import { loadBeir } from './lib/beir.js';
import { BIN, checkBuilt } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { allowLocalRepository } from './lib/kb.js';
import { add, fmtMs, hitsIn, load, peerRecord, run, side, type Side } from './lib/peer-runs.js';
import type { BenchRecord } from './lib/records.js';
import { StdioRpc } from './lib/rpc.js';
import { round } from './lib/stats.js';
import { BENCH_DATA } from './lib/store.js';
import { documentFile } from './quality.js';

/** SciFact's files, repeated under copy-N/ (copy 1 at the top) until their chunks reach `target`. */
export async function scaledFiles(target: number): Promise<{ files: () => Iterable<[string, string]>; chunks: number }> {
  const docs = loadBeir(join(BENCH_DATA, 'scifact')).corpus.map((d) => documentFile('scifact', d));
  const perDoc: number[] = [];
  for (const [path, text] of docs) perDoc.push((await chunkFile(path, text)).length);
  let chunks = 0;
  const plan: [number, number][] = []; // [copy, docs of it]
  for (let copy = 1; chunks < target; copy++) {
    let n = 0;
    while (n < docs.length && chunks < target) chunks += perDoc[n++]!;
    plan.push([copy, n]);
  }
  function* files(): Iterable<[string, string]> {
    for (const [copy, n] of plan) for (let i = 0; i < n; i++) yield [copy === 1 ? docs[i]![0] : `copy-${copy}/${docs[i]![0]}`, docs[i]![1]];
  }
  return { files, chunks };
}

/** A question's longest word of letters only: a term both sides find (qmd ANDs a query's terms). */
export const longestWord = (q: string): string => (q.match(/\p{L}+/gu) ?? [q]).reduce((a, b) => (b.length > a.length ? b : a));

/** Every pid of a process tree (Linux /proc). */
function treePids(pid: number): number[] {
  const out = [pid];
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) out.push(...treePids(Number(c)));
  } catch {
    // gone
  }
  return out;
}

/** The largest VmRSS / VmHWM in a process tree, MB. */
function treeMemMb(pid: number | undefined): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const p of pid === undefined ? [] : treePids(pid)) {
    try {
      const s = readFileSync(`/proc/${p}/status`, 'utf8');
      rss = Math.max(rss, Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024);
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024);
    } catch {
      // gone
    }
  }
  return { rss, hwm };
}

interface FirstCall {
  spawnToAnswerMs: number;
  callMs: number;
  rssMb: number;
  hwmMb: number;
  hits: number;
}

async function firstCall(rpc: StdioRpc, name: string, args: Record<string, unknown>, t0: number): Promise<FirstCall> {
  try {
    await rpc.initialize();
    const t = performance.now();
    const r = await rpc.request('tools/call', { name, arguments: args }, 1_800_000);
    const end = performance.now();
    const results = r.structuredContent?.results;
    const mem = treeMemMb(rpc.child.pid);
    return { spawnToAnswerMs: end - t0, callMs: end - t, rssMb: mem.rss, hwmMb: mem.hwm, hits: Array.isArray(results) ? results.length : -1 };
  } finally {
    await rpc.close();
  }
}

/**
 * `repoDir` (`--scale-dir DIR`: DIR/repo-N, as bench/mcp-scale.ts keeps them) reuses a repository
 * built before when its marker names the same files: at 1M it takes minutes and 2.8 GB to build.
 */
export async function runScaleRows(opts: { qmd: string; chunks: number; queries: number; workDir: string; repoDir?: string }): Promise<BenchRecord[]> {
  checkBuilt();
  const base = join(opts.workDir, 'peers', `scale-${opts.chunks}`);
  const t0 = performance.now();
  const plan = await scaledFiles(opts.chunks);
  const repo = await repoFromFiles(opts.repoDir ?? join(base, 'repo'), `scifact-scale:${opts.chunks}`, plan.files);
  mkdirSync(base, { recursive: true }); // the commands' cwd, not made by the repository when it is elsewhere
  process.stderr.write(`[peers] scale ${opts.chunks}: ${repo.files} files, ~${plan.chunks} chunks (repository ready in ${fmtMs(performance.now() - t0)})\n`);
  const cache = join(base, 'qmd-cache');
  const qmdEnv = { ...process.env, XDG_CACHE_HOME: cache, XDG_CONFIG_HOME: join(base, 'qmd-config'), NO_COLOR: '1' };
  const ours = { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' };
  const kb = join(base, 'kb');
  const name = 'scifact';
  const version = run(opts.qmd, ['--version'], { env: qmdEnv, cwd: base }).stdout.trim();
  const command = `npm run bench:peers -- --qmd PATH --chunks ${opts.chunks} --queries ${opts.queries}`;
  const dataset = `scifact ×${Math.ceil(repo.files / 5183)} (${repo.files.toLocaleString('en-US')} files, ~${plan.chunks.toLocaleString('en-US')} chunks)`;
  const note = (what: string) => ({ dataset, command, note: `${version}; ${what}` });

  // Index: one pair, qmd first (the page cache then favours us, which the CPU figure does not care about).
  const index = { ours: side(), qmd: side(), loads: [load()] };
  rmSync(cache, { recursive: true, force: true });
  rmSync(qmdEnv.XDG_CONFIG_HOME, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  add(index.qmd, run(opts.qmd, ['collection', 'add', repo.dir, '--name', name, '--mask', '**/*.md'], { env: qmdEnv, cwd: base }));
  process.stderr.write(`[peers] scale qmd index: ${fmtMs(index.qmd.ms[0]!)} (load ${load()})\n`);
  rmSync(kb, { recursive: true, force: true });
  if (!run(process.execPath, [BIN, 'init', '--root', kb, '--json'], { env: ours }).ok) throw new Error('tkoma-ref init failed');
  allowLocalRepository(kb, repo.url);
  // The default caps (20,000 files, 512 MiB) would stop the create at a fraction of the corpus.
  appendFileSync(join(kb, 'tkoma-ref.toml'), `\n[limits]\nmax_files = 1000000\nmax_topic_bytes = ${16 * 2 ** 30}\n`);
  const created = run(process.execPath, [BIN, 'topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', name, '--git', repo.url, '--root', kb], { env: ours });
  add(index.ours, created);
  const topic = (JSON.parse(created.stdout) as { topic_id: string; chunk_count?: number }).topic_id;
  process.stderr.write(`[peers] scale our index: ${fmtMs(index.ours.ms[0]!)} (load ${load()})\n`);

  const questions = loadBeir(join(BENCH_DATA, 'scifact')).queries.slice(0, opts.queries).map((q) => q.text);
  const coldRows = (qs: string[]): { ours: Side; qmd: Side; loads: number[] } => {
    const cold = { ours: side(), qmd: side(), loads: [] as number[] };
    qs.forEach((q, i) => {
      cold.loads.push(load());
      const a = (): void => {
        const r = run(process.execPath, [BIN, 'search', q, '--topic', topic, '--json', '--no-server', '--limit', '10', '--root', kb], { env: ours });
        add(cold.ours, r, hitsIn(r.stdout));
      };
      const b = (): void => {
        const r = run(opts.qmd, ['search', q, '--format', 'json', '-n', '10', '-c', name], { env: qmdEnv, cwd: base });
        add(cold.qmd, r, hitsIn(r.stdout));
      };
      for (const turn of i % 2 === 0 ? [a, b] : [b, a]) turn();
    });
    return cold;
  };
  const cold = coldRows(questions);
  // qmd ANDs a query's terms, so a whole SciFact claim mostly finds nothing there: one word each
  // makes both sides find and build 10 hits.
  const words = questions.map(longestWord);
  const coldWord = coldRows(words);

  const mcpLoads = [load()];
  const q0 = words[0]!;
  let t = performance.now();
  const ourFirst = await firstCall(new StdioRpc(process.execPath, [BIN, 'mcp', '--root', kb], { env: ours }), 'reference_search', { topic, question: q0, limit: 10 }, t);
  t = performance.now();
  const qmdFirst = await firstCall(new StdioRpc(opts.qmd, ['mcp'], { env: qmdEnv, cwd: base }), 'query', { searches: [{ type: 'lex', query: q0 }], limit: 10, rerank: false, collections: [name] }, t);
  const mcp = (f: FirstCall): Side => ({ ...side(), ms: [f.callMs], rssMb: [f.rssMb], hits: [f.hits] });
  const mcpRec = peerRecord('MCP server, first call', { ours: mcp(ourFirst), qmd: mcp(qmdFirst), loads: mcpLoads }, note('a fresh server: initialize, then one search of 10 hits for the first question\'s longest word; RSS is the server tree\'s resident memory after it'));
  Object.assign(mcpRec, {
    ours_spawn_to_answer_ms: round(ourFirst.spawnToAnswerMs),
    qmd_spawn_to_answer_ms: round(qmdFirst.spawnToAnswerMs),
    ours_hwm_mb: round(ourFirst.hwmMb, 0),
    qmd_hwm_mb: round(qmdFirst.hwmMb, 0),
  });
  const rec = [
    peerRecord('index at scale', index, note('one pair, qmd first: tkoma-ref init + topic create --yes --embedder none from file:// git, against qmd collection add (fresh cache)')),
    peerRecord('cold search at scale, 10 hits', cold, note('one process per query, alternated')),
    peerRecord('cold search at scale, one word, 10 hits', coldWord, note(`one process per query, alternated; each question's longest word (${words.slice(0, 3).join(', ')}…)`)),
    mcpRec,
  ];
  for (const r of rec) r.chunks = plan.chunks;
  return rec;
}
