/**
 * Where benchmark records go and how they get there: docs/benchmarks.json + docs/BENCHMARKS.md
 * for real runs, .bench-work/smoke-benchmarks.json + SMOKE-BENCHMARKS.md for smoke runs (which
 * must never touch docs/). Each script appends/replaces its records and regenerates the report.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type BenchRecord, type Machine, parseRecords, serializeRecords, upsertRecords } from './records.js';
import { renderReport } from './report.js';

export const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WORK_DIR = join(PROJECT, '.bench-work');
export const BENCH_DATA = process.env.TKOMA_BENCH_DIR ?? '/work/shared/bench';

export function machineInfo(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    model: (list[0]?.model ?? 'unknown').trim(),
    mem_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

export interface Outputs {
  json: string;
  md: string;
  smoke: boolean;
}

/** Real runs write docs/; smoke runs write .bench-work/ (or `dir`, for tests). */
export function outputsFor(smoke: boolean, dir?: string): Outputs {
  if (smoke) {
    const base = dir ?? WORK_DIR;
    return { json: join(base, 'smoke-benchmarks.json'), md: join(base, 'SMOKE-BENCHMARKS.md'), smoke };
  }
  const base = dir ?? join(PROJECT, 'docs');
  return { json: join(base, 'benchmarks.json'), md: join(base, 'BENCHMARKS.md'), smoke };
}

export function readRecords(file: string): BenchRecord[] {
  return existsSync(file) ? parseRecords(readFileSync(file, 'utf8')) : [];
}

/** Merges the new records into the file (same identity = replaced) and rewrites the report. */
export function saveRecords(incoming: readonly BenchRecord[], out: Outputs): BenchRecord[] {
  const all = upsertRecords(readRecords(out.json), incoming);
  mkdirSync(dirname(out.json), { recursive: true });
  writeFileSync(out.json, serializeRecords(all));
  regenerateReport(out, all);
  return all;
}

export function regenerateReport(out: Outputs, records = readRecords(out.json)): void {
  const source = relative(PROJECT, out.json).startsWith('..') ? out.json : relative(PROJECT, out.json);
  const md = renderReport(records, {
    title: out.smoke ? 'Benchmarks (smoke run)' : 'Benchmarks',
    source,
    preface: out.smoke ? '> Smoke run: a few documents and queries and tiny corpora, to keep the scripts working. These are not real figures.' : undefined,
  });
  mkdirSync(dirname(out.md), { recursive: true });
  writeFileSync(out.md, md + keptSections(out.md));
}

/** Hand-written sections (between these markers) survive a regeneration, appended at the end. */
export const KEEP_START = '<!-- hand-written: kept by bench/lib/store.ts -->';
export const KEEP_END = '<!-- end hand-written -->';

export function keptSections(file: string): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const start = text.indexOf(KEEP_START, at);
    if (start < 0) break;
    const end = text.indexOf(KEEP_END, start);
    if (end < 0) break;
    out.push(text.slice(start, end + KEEP_END.length));
    at = end + KEEP_END.length;
  }
  return out.length > 0 ? `\n${out.join('\n\n')}\n` : '';
}

/**
 * Common fields of a record made now on this machine. The 1-minute load average goes with it:
 * these machines are shared, and a busy neighbour slows every figure.
 */
export function stamp(command: string): Pick<BenchRecord, 'machine' | 'date' | 'command'> & { load_1m: number } {
  return { load_1m: Math.round(loadavg()[0]! * 10) / 10, machine: machineInfo(), date: new Date().toISOString(), command };
}
