/**
 * What bench:peers and its scale rows share: one timed run of a command (wall, CPU, peak RSS
 * through /usr/bin/time), one side's runs of a measurement, and the record of a pair.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

import type { BenchRecord } from './records.js';
import { mean, percentile, round } from './stats.js';
import { stamp } from './store.js';

export const TIME = '/usr/bin/time';

export interface Run {
  ms: number;
  rssMb: number | null;
  /** User + system CPU of the command and every child it waited for (/usr/bin/time). */
  cpuMs: number | null;
  ok: boolean;
  stdout: string;
}

/** One side's runs of one measurement: times, peak RSS, hits returned, answer sizes. */
export interface Side {
  ms: number[];
  rssMb: number[];
  hits: number[];
  /** Bytes of each answer (stdout, or the JSON-RPC result): what was built and serialised. */
  bytes: number[];
  /** CPU milliseconds of each run: moves far less with the load than wall time. */
  cpuMs: number[];
  failed: number;
}

export const side = (): Side => ({ ms: [], rssMb: [], hits: [], bytes: [], cpuMs: [], failed: 0 });

/** Runs one command to completion: wall time, and peak RSS through /usr/bin/time when present. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Run {
  const withTime = existsSync(TIME);
  const spawnOpts = { env: opts.env ?? process.env, cwd: opts.cwd, encoding: 'utf8' as const, maxBuffer: 64 * 2 ** 20 };
  const t = performance.now();
  const r = withTime ? spawnSync(TIME, ['-f', 'PEAK_RSS_KB %M CPU_S %U %S', cmd, ...args], spawnOpts) : spawnSync(cmd, args, spawnOpts);
  const ms = performance.now() - t;
  const kb = /PEAK_RSS_KB (\d+)/.exec(r.stderr ?? '')?.[1];
  const cpu = /CPU_S ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (r.status !== 0) process.stderr.write(`[peers] ${cmd} ${args.slice(0, 3).join(' ')} … exited ${r.status}: ${(r.stderr ?? '').slice(-400)}\n`);
  return { ms, rssMb: kb ? Number(kb) / 1024 : null, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : null, ok: r.status === 0, stdout: r.stdout ?? '' };
}

export function add(s: Side, r: Run, hits?: number): void {
  s.ms.push(r.ms);
  if (r.rssMb !== null) s.rssMb.push(r.rssMb);
  if (r.cpuMs !== null) s.cpuMs.push(r.cpuMs);
  if (hits !== undefined) {
    s.hits.push(hits);
    s.bytes.push(Buffer.byteLength(r.stdout));
  }
  if (!r.ok) s.failed++;
}

/** Hits in a search answer: ours `{results: [...]}`, qmd's a bare array; -1 when unreadable. */
export function hitsIn(stdout: string): number {
  try {
    const v = JSON.parse(stdout) as unknown;
    if (Array.isArray(v)) return v.length;
    const results = (v as { results?: unknown })?.results;
    return Array.isArray(results) ? results.length : -1;
  } catch {
    return -1;
  }
}

export const load = (): number => round(loadavg()[0]!, 2);
export const fmtMs = (ms: number): string => (ms >= 1000 ? `${round(ms / 1000, 2)} s` : `${round(ms, 1)} ms`);

/** One `peers` record from the two sides of a measurement. */
export function peerRecord(
  mode: string,
  pair: { ours: Side; qmd: Side; loads: number[] },
  extra: { dataset: string; command: string; note: string },
): BenchRecord {
  const p50 = (xs: number[]): number => percentile(xs, 50);
  const peak = (xs: number[]): number | undefined => (xs.length ? round(Math.max(...xs), 0) : undefined);
  const hits = (xs: number[]): number | undefined => (xs.length ? round(mean(xs), 1) : undefined);
  const rec: BenchRecord = {
    bench: 'peers',
    dataset: extra.dataset,
    mode,
    embedder: 'none',
    runs: pair.ours.ms.length,
    ours_p50_ms: round(p50(pair.ours.ms)),
    qmd_p50_ms: round(p50(pair.qmd.ms)),
    ratio: round(p50(pair.ours.ms) / p50(pair.qmd.ms), 2),
    ours_min_ms: round(Math.min(...pair.ours.ms)),
    qmd_min_ms: round(Math.min(...pair.qmd.ms)),
    ours_peak_rss_mb: peak(pair.ours.rssMb),
    qmd_peak_rss_mb: peak(pair.qmd.rssMb),
    ours_mean_hits: hits(pair.ours.hits),
    qmd_mean_hits: hits(pair.qmd.hits),
    // Means, not medians: /proc counts CPU in 10 ms ticks, so one warm call is mostly 0 or 10.
    ours_cpu_ms: pair.ours.cpuMs.length ? round(mean(pair.ours.cpuMs)) : undefined,
    qmd_cpu_ms: pair.qmd.cpuMs.length ? round(mean(pair.qmd.cpuMs)) : undefined,
    ours_mean_bytes: pair.ours.bytes.length ? Math.round(mean(pair.ours.bytes)) : undefined,
    qmd_mean_bytes: pair.qmd.bytes.length ? Math.round(mean(pair.qmd.bytes)) : undefined,
    failed: pair.ours.failed + pair.qmd.failed,
    load_min: Math.min(...pair.loads),
    load_max: Math.max(...pair.loads),
    ...stamp(extra.command),
    note: extra.note,
  };
  for (const k of Object.keys(rec)) if (rec[k] === undefined) delete rec[k];
  return rec;
}

