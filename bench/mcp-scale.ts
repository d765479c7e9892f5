/**
 * The MCP server's first `reference_search` on a big root (issue 27), without qmd:
 *
 *   npx tsx bench/mcp-scale.ts --dir /tmp/mcpscale --chunks 100000 [--starts 3] [--bin bin/run.cjs]
 *
 * Builds the root once (SciFact repeated under copy-N/ until N chunks, as `bench:peers --chunks`
 * does, with the caps raised) and reuses it; then, `--starts` times, a fresh server: initialize,
 * one `reference_search` per question in turn. For the first call: wall time of the call alone,
 * the server's CPU (user + system from /proc: spawn to answer, and the call's own, from the
 * `initialize` answer to it) and resident memory after it.
 * `--bin A --bin B` alternates two builds start by start (A/B pairs). `--answers FILE` writes the
 * JSON of every call of the first start, to compare answers between builds.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadBeir } from './lib/beir.js';
import { BIN } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { allowLocalRepository } from './lib/kb.js';
import { load } from './lib/peer-runs.js';
import { StdioRpc } from './lib/rpc.js';
import { BENCH_DATA } from './lib/store.js';
import { scaledFiles } from './peers-scale.js';

const env = { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' };

/** The root at `dir/kb-N` with one topic of ~N chunks, made once (marker file) and reused. */
async function scaleRoot(dir: string, chunks: number, bin: string): Promise<{ kb: string; topic: string }> {
  const kb = join(dir, `kb-${chunks}`);
  const marker = join(dir, `kb-${chunks}.topic`);
  if (existsSync(marker)) return { kb, topic: readFileSync(marker, 'utf8').trim() };
  const plan = await scaledFiles(chunks);
  const repo = await repoFromFiles(join(dir, `repo-${chunks}`), `scifact-scale:${chunks}`, plan.files);
  process.stderr.write(`[mcp-scale] repository: ${repo.files} files, ~${plan.chunks} chunks; creating (load ${load()})\n`);
  execFileSync(process.execPath, [bin, 'init', '--root', kb, '--json'], { env, stdio: 'ignore' });
  allowLocalRepository(kb, repo.url);
  // The default caps (20,000 files, 512 MiB) would stop the create at a fraction of the corpus.
  appendFileSync(join(kb, 'tkoma-ref.toml'), `\n[limits]\nmax_files = 1000000\nmax_topic_bytes = ${16 * 2 ** 30}\n`);
  const t = performance.now();
  const out = execFileSync(process.execPath, [bin, 'topic', 'create', '--yes', '--json', '--embedder', 'none', '--title', 'scifact', '--git', repo.url, '--root', kb], {
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
  });
  const topic = (JSON.parse(out) as { topic_id: string }).topic_id;
  process.stderr.write(`[mcp-scale] created ${topic} in ${Math.round((performance.now() - t) / 1000)} s (load ${load()})\n`);
  writeFileSync(marker, topic);
  return { kb, topic };
}

/** User + system CPU of a process so far, ms (/proc/PID/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

function rssMb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1]) / 1024, hwm: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1]) / 1024 };
}

interface Start {
  bin: string;
  load: number;
  initMs: number;
  firstMs: number;
  cpuMs: number;
  /** The first call's own CPU: the server's CPU at its answer less that at the `initialize` answer. */
  callCpuMs: number;
  rssMb: number;
  hwmMb: number;
  laterMs: number[];
  answers: unknown[];
}

async function oneStart(bin: string, kb: string, topic: string, questions: string[], extra: string[]): Promise<Start> {
  const l = load();
  const t0 = performance.now();
  const rpc = new StdioRpc(process.execPath, [...extra, bin, 'mcp', '--root', kb], { env });
  try {
    await rpc.initialize();
    const t1 = performance.now();
    const initCpu = cpuMs(rpc.child.pid!);
    const answers: unknown[] = [];
    const times: number[] = [];
    let first: { cpu: number; mem: { rss: number; hwm: number } } | undefined;
    for (const q of questions) {
      const t = performance.now();
      const r = await rpc.request('tools/call', { name: 'reference_search', arguments: { topic, question: q, limit: 10 } }, 1_800_000);
      times.push(performance.now() - t);
      first ??= { cpu: cpuMs(rpc.child.pid!), mem: rssMb(rpc.child.pid!) };
      answers.push(r.structuredContent ?? r);
    }
    return { bin, load: l, initMs: t1 - t0, firstMs: times[0]!, cpuMs: first!.cpu, callCpuMs: first!.cpu - initCpu, rssMb: first!.mem.rss, hwmMb: first!.mem.hwm, laterMs: times.slice(1), answers };
  } finally {
    await rpc.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: '/tmp/mcpscale' },
      chunks: { type: 'string', default: '100000' },
      starts: { type: 'string', default: '3' },
      queries: { type: 'string', default: '3' },
      bin: { type: 'string', multiple: true },
      answers: { type: 'string' },
      'node-arg': { type: 'string', multiple: true },
      'build-only': { type: 'boolean', default: false },
      /** The build that makes the root (a copy, so rebuilding dist/ meanwhile cannot break it). */
      'create-bin': { type: 'string', default: BIN },
    },
  });
  const { kb, topic } = await scaleRoot(resolve(values.dir), Number(values.chunks), resolve(values['create-bin']));
  if (values['build-only']) return;
  const questions = loadBeir(join(BENCH_DATA, 'scifact')).queries.slice(0, Number(values.queries)).map((q) => q.text);
  const bins = (values.bin ?? [BIN]).map((b) => resolve(b));
  const all: Start[] = [];
  for (let i = 0; i < Number(values.starts); i++) {
    for (const bin of i % 2 === 0 ? bins : [...bins].reverse()) {
      const s = await oneStart(bin, kb, topic, questions, values['node-arg'] ?? []);
      all.push(s);
      const r = (x: number): string => x.toFixed(0);
      process.stdout.write(
        `${bin}  load ${s.load}  init ${r(s.initMs)} ms  first ${r(s.firstMs)} ms (cpu ${r(s.callCpuMs)})  cpu ${r(s.cpuMs)} ms  rss ${r(s.rssMb)} MB (hwm ${r(s.hwmMb)})  later ${s.laterMs.map(r).join(' ')} ms\n`,
      );
      if (values.answers && i === 0) writeFileSync(`${values.answers}.${bins.indexOf(bin)}.json`, JSON.stringify(s.answers, null, 1));
    }
  }
}

await main();
