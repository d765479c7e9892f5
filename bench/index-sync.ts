/**
 * Incremental sync: one file changed in a 10,000-file topic, time until search reflects it.
 *
 *   npm run bench:index-sync -- [--files 10000] [--runs 5] [--smoke]
 *
 * The topic is created (embedder none) from the node_modules corpus. Each run appends a new,
 * unique word to one file, then:
 *   command: one `node bin/run.cjs search <word> --json` process; edit → exit, and its top hit must
 *            be the edited file;
 *   watch:   a running `watch --json` process; edit → its `sync` event for the topic, then a
 *            `search --json` process must find the word (both times recorded).
 * Needs `npm run build` (the CLI runs from dist/).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { checkBuilt, runCli, spawnCli } from './lib/cli.js';
import { nodeModulesRepo } from './lib/corpus.js';
import { freshRootWithTopic, stderrProgress, topicReady } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { percentile, printTable, round } from './lib/stats.js';
import { outputsFor, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export interface SyncOptions {
  files: number;
  runs: number;
  smoke: boolean;
  workDir: string;
  quiet?: boolean;
}

const TOPIC = 'topic-corpus';

/** A word no file holds: letters only, so the code-aware tokenizer keeps it whole. */
export function uniqueWord(seed: number): string {
  let x = (seed * 2654435761 + Date.now()) >>> 0;
  let w = 'zq';
  for (let i = 0; i < 10; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    w += String.fromCharCode(97 + ((x >>> 16) % 26));
  }
  return w;
}

/** Files to edit, spread over the topic and over kinds of file (docs and code). */
export function pickFiles(paths: readonly string[], runs: number): string[] {
  const usable = paths.filter((p) => /\.(md|ts|js|mjs|cjs|py|json)$/.test(p) && !p.endsWith('.json'));
  const out: string[] = [];
  for (let i = 0; i < runs; i++) out.push(usable[Math.floor(((i + 0.5) * usable.length) / runs)]!);
  return out;
}

function appendWord(abs: string, word: string): void {
  const text = abs.endsWith('.md') ? `\n\nBenchmark marker ${word}.\n` : `\n// benchmark marker ${word}\n`;
  appendFileSync(abs, text);
}

async function searchFinds(root: string, word: string, path: string): Promise<{ ms: number; ok: boolean; detail: string }> {
  const r = await runCli(['search', word, '--topic', TOPIC, '--json', '--embedder', 'none', '--limit', '3', '--root', root]);
  const top = r.json?.results?.[0]?.path as string | undefined;
  return { ms: r.ms, ok: r.code === 0 && top === path, detail: r.code === 0 ? `top hit ${top}` : r.stdout.slice(0, 300) };
}

export async function runSync(opts: SyncOptions): Promise<BenchRecord[]> {
  checkBuilt();
  const log = (m: string): void => {
    if (!opts.quiet) process.stderr.write(`[sync] ${m}\n`);
  };
  const repo = await nodeModulesRepo(opts.workDir, opts.files);
  const root = join(opts.workDir, 'sync', `kb-${repo.files}`);
  if (!topicReady(root, TOPIC)) {
    await freshRootWithTopic(root, { topicId: TOPIC, title: 'Installed packages', url: repo.url, embedderFlag: 'none' }, stderrProgress('sync create', opts.quiet));
  }
  const dir = join(root, 'references', TOPIC);
  const manifest = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { path: string }).path);
  const targets = pickFiles(manifest, opts.runs * 2);
  // Bring the index up to date (earlier runs' edits) so each run measures one change.
  const warm = await runCli(['search', 'warm up', '--topic', TOPIC, '--json', '--embedder', 'none', '--root', root]);
  if (warm.code !== 0) throw new Error(`search failed: ${warm.stdout}${warm.stderr}`);

  const dataset = `${repo.files.toLocaleString('en-US')}-file topic`;
  const command = opts.smoke ? 'npm run bench:smoke' : `npm run bench:index-sync -- --files ${opts.files} --runs ${opts.runs}`;
  const record = (mode: string, times: number[], note?: string): BenchRecord => ({
    bench: 'sync',
    dataset,
    mode,
    embedder: 'none',
    files: manifest.length,
    runs: times.length,
    median_ms: round(percentile(times, 50)),
    max_ms: round(Math.max(...times)),
    min_ms: round(Math.min(...times)),
    ...stamp(command),
    ...(note ? { note } : {}),
  });

  // (a) through a command: the edit, then one search process.
  const command_ms: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const path = targets[i]!;
    const word = uniqueWord(i);
    const t = performance.now();
    appendWord(join(dir, path), word);
    const found = await searchFinds(root, word, path);
    const ms = performance.now() - t;
    if (!found.ok) throw new Error(`search did not reflect the edit of ${path} (${found.detail})`);
    command_ms.push(ms);
    log(`command run ${i + 1}: ${path} searchable after ${Math.round(ms)} ms`);
  }

  // (b) through watch: the edit, its sync event, then a search process.
  const watch = spawnCli(['watch', '--json', '--embedder', 'none', '--reconcile-seconds', '3600', '--root', root]);
  const syncMs: number[] = [];
  const searchableMs: number[] = [];
  try {
    // Start-up (file watching, the first reconcile) is not what is measured: wait generously.
    await watch.next((l) => l?.type === 'ready', 900_000);
    await watch.next((l) => l?.type === 'reconcile', 900_000);
    for (let i = 0; i < opts.runs; i++) {
      const path = targets[opts.runs + i]!;
      const word = uniqueWord(100 + i);
      const t = performance.now();
      const synced = watch.next((l) => l?.type === 'sync' && Array.isArray(l.topics) && l.topics.includes(TOPIC) && (l.report?.topics?.[TOPIC]?.changed ?? 0) > 0, 600_000);
      appendWord(join(dir, path), word);
      await synced;
      const tSync = performance.now() - t;
      const found = await searchFinds(root, word, path);
      const tSearch = performance.now() - t;
      if (!found.ok) throw new Error(`search after watch's sync did not reflect ${path} (${found.detail})`);
      syncMs.push(tSync);
      searchableMs.push(tSearch);
      log(`watch run ${i + 1}: synced after ${Math.round(tSync)} ms, searched by ${Math.round(tSearch)} ms`);
    }
  } finally {
    await watch.stop();
  }
  return [
    record('command (edit → search process exits)', command_ms),
    record('watch (edit → sync event)', syncMs, 'debounce 200 ms included; a warm process answers from here'),
    record('watch (edit → sync → search process exits)', searchableMs),
  ];
}

export function printSync(records: readonly BenchRecord[]): void {
  printTable(
    ['path', 'runs', 'median ms', 'max ms'],
    records.map((r) => [r.mode, String(r.runs), String(r.median_ms), String(r.max_ms)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      files: { type: 'string' },
      runs: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const smoke = values.smoke!;
  const t0 = performance.now();
  const records = await runSync({
    files: Number(values.files ?? (smoke ? 60 : 10_000)),
    runs: Number(values.runs ?? (smoke ? 2 : 5)),
    smoke,
    workDir: values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
  });
  printSync(records);
  saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`sync: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();

