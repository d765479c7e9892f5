/**
 * Search latency while the background vector worker embeds, against idle, on the same root with
 * the same questions: rounds alternate idle/busy (A B, B A, …) so a neighbour's load falls on
 * both. Busy = the real worker (dist/lib/vectors/worker.js, nice 19, as create/refresh start it)
 * building use-lite chunk vectors, timed only once its log shows it embedding; between busy
 * phases it is SIGKILLed, and the next one resumes from the embedding cache. Two paths: cold (a
 * whole `search --no-server` process) and warm (one request over a running `serve`'s socket),
 * interleaved; a phase repeats the questions for `phaseSeconds`, long enough to span the worker's
 * periodic applies (each one makes readers reload the topic).
 * The worker's log gives how long each apply held the index lock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

import { loadQuestions } from '../latency.js';
import { cliEnv, runCli, spawnCli } from './cli.js';
import type { BenchRecord } from './records.js';
import { percentile, round } from './stats.js';
import { PROJECT, stamp } from './store.js';

const EMBEDDING = /\] (docs|code) \d+\/\d+/;
const APPLY = /apply: index lock held (\d+) ms/g;

interface Worker {
  child: ChildProcess;
  exited: Promise<void>;
  logFrom: number;
}

/** The worker as requestVectors starts it, its output appended to .tkoma/vectors.log. */
function startWorker(root: string, env: Record<string, string>, distDir: string): Worker {
  const log = openSync(join(root, '.tkoma', 'vectors.log'), 'a');
  try {
    const child = spawn(process.execPath, [join(distDir, 'lib', 'vectors', 'worker.js'), root], {
      env: { ...process.env, ...env, TKOMA_REF_ROOT: root },
      stdio: ['ignore', log, log],
    });
    return { child, exited: new Promise((r) => child.once('exit', () => r())), logFrom: sizeOf(join(root, '.tkoma', 'vectors.log')) };
  } finally {
    closeSync(log);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until the worker's log, past `offset`, shows a batch embedded (its model is loaded); stops when it exits. The limit is a hang net, as vitest's (issue 30: no clock decides on a busy machine). */
async function embeddingStarted(root: string, offset: number, w: Worker, timeoutMs = 900_000): Promise<boolean> {
  const file = join(root, '.tkoma', 'vectors.log');
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (EMBEDDING.test(readFileSync(file, 'utf8').slice(offset))) return true;
    if (w.child.exitCode !== null) return false;
    await sleep(200);
  }
  throw new Error(`the vector worker did not start embedding within ${timeoutMs / 1000} s`);
}

async function distClient(): Promise<typeof import('../../src/lib/serve/client.js')> {
  return (await import(pathToFileURL(join(PROJECT, 'dist', 'lib', 'serve', 'client.js')).href)) as typeof import('../../src/lib/serve/client.js');
}

interface Samples {
  cold: number[];
  warm: number[];
  /** p50 of each phase, in order, to show the spread. */
  coldRounds: number[];
  warmRounds: number[];
  loads: number[];
}

const empty = (): Samples => ({ cold: [], warm: [], coldRounds: [], warmRounds: [], loads: [] });

export interface BusyOptions {
  rounds: number;
  queries: number;
  command: string;
  /** A root whose recorded embedder leaves chunk vectors pending, with this one topic. */
  root: string;
  topic: string;
  /** How the tables name the corpus and the worker's embedder. */
  dataset: string;
  embedder: string;
  chunks: number;
  /** Each phase repeats the questions until it has lasted this long (0: one pass). */
  phaseSeconds?: number;
  /** Environment of the CLI, the server and the worker. */
  env: Record<string, string>;
  /**
   * Builds of the worker to compare (a copy of an older dist/ inside the project, so it finds
   * node_modules): each gets its own busy phase in every round, in rotating order.
   */
  workers?: { label: string; dist: string; env?: Record<string, string> }[];
}

export async function latencyWhileEmbedding(o: BusyOptions): Promise<BenchRecord[]> {
  const { root, env, topic: TOPIC } = o;
  const questions = loadQuestions(o.queries);
  const server = spawnCli(['serve', '--json', '--root', root], env);
  const workers = o.workers ?? [{ label: '', dist: join(PROJECT, 'dist') }];
  const idle = empty();
  const busy = workers.map(() => empty());
  /** Each worker's stretches of the log (its apply lines). */
  const spans: [number, number][][] = workers.map(() => []);
  let earlyExit = 0;
  try {
    await server.next((l) => l?.type === 'serving', 300_000);
    const { tryServer } = await distClient();
    const clientEnv = cliEnv(env);
    const ask = async (q: string): Promise<number> => {
      let why = '';
      const t = performance.now();
      const res = await tryServer(root, 'search', { question: q, topic: TOPIC, mode: 'lexical' }, { env: clientEnv, replyTimeoutMs: 600_000, onFallback: (r) => (why = r) });
      if (res === undefined) throw new Error(`serve did not answer: ${why}`);
      return performance.now() - t;
    };
    const cold = async (q: string): Promise<number> => {
      const r = await runCli(['search', q, '--topic', TOPIC, '--json', '--no-server', '--mode', 'lexical', '--root', root], { env });
      if (r.code !== 0) throw new Error(`search failed: ${r.stdout}${r.stderr}`);
      return r.ms;
    };
    await ask(questions[0]!); // the server's preload
    await cold(questions[0]!); // page cache
    // -1 = idle, else the worker's index; the order rotates so each state takes every slot.
    const states = [-1, ...workers.keys()];
    for (let n = 0; n < o.rounds; n++) {
      for (const state of [...states.slice(n % states.length), ...states.slice(0, n % states.length)]) {
        const s = state < 0 ? idle : busy[state]!;
        let w: Worker | null = null;
        if (state >= 0) {
          const offset = sizeOf(join(root, '.tkoma', 'vectors.log'));
          w = startWorker(root, { ...env, ...workers[state]!.env }, workers[state]!.dist);
          if (!(await embeddingStarted(root, offset, w))) earlyExit++;
        }
        const c: number[] = [];
        const h: number[] = [];
        // At least one pass; then more until the phase has lasted long enough to hold applies.
        const until = performance.now() + (o.phaseSeconds ?? 0) * 1000;
        do {
          for (const q of questions) {
            c.push(await cold(q));
            h.push(await ask(q));
          }
        } while (performance.now() < until);
        if (w) {
          if (w.child.exitCode !== null) earlyExit++;
          w.child.kill('SIGKILL');
          await w.exited;
          spans[state]!.push([w.logFrom, sizeOf(join(root, '.tkoma', 'vectors.log'))]);
        }
        s.cold.push(...c);
        s.warm.push(...h);
        s.coldRounds.push(round(percentile(c, 50), 0));
        s.warmRounds.push(round(percentile(h, 50), 1));
        s.loads.push(round(loadavg()[0]!, 1));
      }
    }
  } finally {
    await server.stop();
  }
  const log = readFileSync(join(root, '.tkoma', 'vectors.log'), 'utf8');
  const holdsOf = (k: number): Record<string, number> => {
    const holds = spans[k]!.flatMap(([a, b]) => [...log.slice(a, b).matchAll(APPLY)].map((m) => Number(m[1])));
    return { applies: holds.length, lock_held_p50_ms: round(percentile(holds, 50), 0), lock_held_max_ms: holds.length ? Math.max(...holds) : 0 };
  };
  const out: BenchRecord[] = [];
  for (const path of ['cold', 'warm'] as const) {
    const i = idle[path];
    const pathLabel = path === 'cold' ? 'cold (search --no-server, lexical)' : 'warm (serve, socket, lexical)';
    const base = { bench: 'latency' as const, dataset: o.dataset, embedder: o.embedder, chunks: o.chunks, ...stamp(o.command) };
    const rounds = (s: Samples): string => `p50 per phase ${(path === 'cold' ? s.coldRounds : s.warmRounds).join(' · ')} ms; load ${s.loads.join(' · ')}`;
    out.push({ ...base, mode: `${pathLabel}, idle`, queries: i.length, p50_ms: round(percentile(i, 50)), p95_ms: round(percentile(i, 95)), note: rounds(idle) });
    for (const [k, w] of workers.entries()) {
      const b = busy[k]![path];
      out.push({
        ...base,
        mode: `${pathLabel}, while embedding${w.label ? ` (${w.label})` : ''}`,
        queries: b.length,
        p50_ms: round(percentile(b, 50)),
        p95_ms: round(percentile(b, 95)),
        p50_vs_idle: round(percentile(b, 50) / percentile(i, 50), 2),
        p95_vs_idle: round(percentile(b, 95) / percentile(i, 95), 2),
        ...holdsOf(k),
        note: `${rounds(busy[k]!)}${earlyExit ? `; a worker finished early ${earlyExit}×: not busy the whole phase` : ''}`,
      });
    }
  }
  return out;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
