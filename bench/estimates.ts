/**
 * Estimates an operator can trust (issue 26 part 3): for real repositories, phase 1's estimate
 * beside what the create then does.
 *
 *   npm run bench:estimates -- [--repo minisearch,qs,...] [--no-dioxus] [--dioxus PATH]
 *
 * The repositories: the repo-qa packages (installed packages committed as they are, see
 * bench/repo-qa.ts) and a whole framework repository (the Dioxus mirror bench:peers uses, or
 * --dioxus PATH / TKOMA_BENCH_REPO), smallest first. All go into ONE root, through the built
 * binary as an operator runs it: `topic create --json` (phase 1: the estimate), then the same
 * request with `--yes` (timed from spawn to exit). Each create records its rates in the root's
 * `.tkoma/estimates.json`, so the first estimate rests on the defaults and later ones on what this
 * machine measured; the row says which, and what the defaults alone would have said.
 * Targets: chunks within ±30%, time within ×2. Figures are printed as a markdown table with the
 * load average (the machines are shared); docs/BENCHMARKS.md keeps them in a hand-written section.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

import { isProsePath, isTestPath, languageForPath } from '../src/lib/chunking/paths.js';
import { BYTES_PER_CHUNK, DEFAULT_RATES } from '../src/lib/estimate/estimate.js';
import { loadHead } from '../src/lib/index/service.js';
import { checkBuilt, runCli } from './lib/cli.js';
import { type Repo, repoFromFiles } from './lib/corpus.js';
import { headCommit, repoFromGitHead } from './lib/git-tree-copy.js';
import { isMain } from './lib/main.js';
import { findRepo } from './peers.js';
import { loadQuestions, packageFiles } from './repo-qa.js';
import { mdTable } from './lib/report.js';
import { round } from './lib/stats.js';
import { WORK_DIR } from './lib/store.js';

export interface EstimateRow {
  repo: string;
  files: number;
  est_chunks: number;
  chunks: number;
  est_s: number;
  /** What the defaults alone would have said (the estimate of a root's first create). */
  default_s: number;
  actual_s: number;
  /** The create's own phases, as it recorded them (fetch + commit, index). */
  fetch_s: number;
  index_s: number;
  basis: string;
  load: number;
}

const CHUNK_BOUND = 0.3;
const TIME_FACTOR = 2;

/** The operator's tkoma-ref.toml: every bench repository's folder may be a source, committed. */
function allowFolders(root: string, folders: string[]): void {
  const list = folders.map((f) => JSON.stringify(realpathSync(f))).join(', ');
  appendFileSync(join(root, 'tkoma-ref.toml'), `\n[sources]\nlocal_roots = [${list}]\n`);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };
  execFileSync('git', ['commit', '-q', '-m', 'allow the bench repositories', '--', 'tkoma-ref.toml'], { cwd: root, env, stdio: 'ignore' });
}

function lastSample(root: string): { fetch_s: number; index_s: number } {
  const state = JSON.parse(readFileSync(join(root, '.tkoma', 'estimates.json'), 'utf8')) as { creates: { fetch_s: number; index_s: number }[] };
  return state.creates.at(-1)!;
}

/** Bytes per chunk the index really cut, per kind of file (code per grammar), beside the estimator's constants. */
export interface KindRow {
  kind: string;
  files: number;
  bytes: number;
  chunks: number;
  /** Files above 2 KB only: smaller ones give one chunk each whatever their size. */
  large_bytes: number;
  large_chunks: number;
  constant: number;
}

async function measuredKinds(root: string, topicIds: string[]): Promise<KindRow[]> {
  const rows = new Map<string, KindRow>();
  for (const id of topicIds) {
    const head = await loadHead(root, id);
    if (!head) continue;
    for (const [path, e] of head.files.entries()) {
      if (e.skipped) continue;
      const language = isProsePath(path) ? undefined : languageForPath(path);
      const test = language && isTestPath(path) ? ' (tests)' : '';
      const kind = isProsePath(path) ? 'prose' : language ? `code: ${language}${test}` : 'other';
      const constant = isProsePath(path) ? BYTES_PER_CHUNK.prose : language ? Math.round((BYTES_PER_CHUNK.byLanguage[language] ?? BYTES_PER_CHUNK.code) * (test ? BYTES_PER_CHUNK.testCode : 1)) : BYTES_PER_CHUNK.other;
      const r = rows.get(kind) ?? { kind, files: 0, bytes: 0, chunks: 0, large_bytes: 0, large_chunks: 0, constant };
      r.files++;
      r.bytes += e.size;
      r.chunks += e.chunkCount;
      if (e.size > 2048) {
        r.large_bytes += e.size;
        r.large_chunks += e.chunkCount;
      }
      rows.set(kind, r);
    }
  }
  return [...rows.values()].sort((a, b) => b.bytes - a.bytes);
}

export async function runEstimates(opts: { repos?: string[]; dioxus?: string | null; workDir: string }): Promise<{ rows: EstimateRow[]; kinds: KindRow[] }> {
  checkBuilt();
  const base = join(opts.workDir, 'estimates');
  const repos: { name: string; repo: Repo }[] = [];
  for (const spec of loadQuestions().repos.filter((r) => !opts.repos || opts.repos.includes(r.name))) {
    const files = [...packageFiles(spec)];
    const repo = await repoFromFiles(join(base, 'repos', spec.name), `${spec.name}:${files.length}:${files.reduce((n, [, c]) => n + c.length, 0)}`, () => files);
    repos.push({ name: spec.name, repo });
  }
  repos.sort((a, b) => a.repo.files - b.repo.files);
  if (opts.dioxus) {
    process.stderr.write(`[estimates] committing ${opts.dioxus} HEAD into a bench repository…\n`);
    repos.push({ name: 'dioxus (whole repository)', repo: await repoFromGitHead(join(base, 'repos', 'dioxus'), opts.dioxus, () => true, 'whole') });
  }
  const root = join(base, 'kb');
  rmSync(root, { recursive: true, force: true });
  const init = await runCli(['init', '--root', root, '--json']);
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  allowFolders(root, [dirname(repos[0]!.repo.dir)]);

  const rows: EstimateRow[] = [];
  for (const [i, { name, repo }] of repos.entries()) {
    const args = ['topic', 'create', '--json', '--root', root, '--title', `${name} repository`, '--topic-id', `topic-${i}`, '--git', repo.url];
    const load = round(loadavg()[0]!, 1);
    const phase1 = await runCli(args);
    if (phase1.code !== 4 || !phase1.json?.estimate) throw new Error(`${name}: phase 1 gave no estimate (exit ${phase1.code}): ${phase1.stderr}`);
    const est = phase1.json.estimate as { files: number; chunks: number; searchable_seconds: number; rates: { basis: string; creates: number } };
    process.stderr.write(`[estimates] ${name}: ${phase1.json.estimate.summary}; creating…\n`);
    const create = await runCli([...args, '--yes']);
    if (create.code !== 0) throw new Error(`${name}: create failed (exit ${create.code}): ${create.stderr}`);
    const sample = lastSample(root);
    rows.push({
      repo: name,
      files: create.json.file_count,
      est_chunks: est.chunks,
      chunks: create.json.chunk_count,
      est_s: est.searchable_seconds,
      default_s: round(DEFAULT_RATES.start_s + DEFAULT_RATES.fetch_base_s + est.files / DEFAULT_RATES.files_per_s + DEFAULT_RATES.index_base_s + est.chunks / DEFAULT_RATES.chunks_per_s, 1),
      actual_s: round(create.ms / 1000, 1),
      fetch_s: round(sample.fetch_s, 1),
      index_s: round(sample.index_s, 1),
      basis: est.rates.basis === 'default' ? 'defaults' : `${est.rates.creates} creates`,
      load,
    });
    process.stderr.write(`[estimates] ${name}: ${create.json.chunk_count} chunks in ${round(create.ms / 1000, 1)} s\n`);
  }
  return { rows, kinds: await measuredKinds(root, repos.map((_, i) => `topic-${i}`)) };
}

const within = (r: EstimateRow): { chunks: boolean; time: boolean } => ({
  chunks: Math.abs(r.est_chunks / Math.max(1, r.chunks) - 1) <= CHUNK_BOUND,
  time: r.actual_s / r.est_s <= TIME_FACTOR && r.est_s / r.actual_s <= TIME_FACTOR,
});

export function printKinds(kinds: KindRow[]): void {
  const table = mdTable(
    ['kind of file', 'files', 'MB', 'chunks', 'bytes/chunk', 'bytes/chunk, files > 2 KB', 'estimator\'s bytes/chunk'],
    kinds.filter((k) => k.chunks >= 20).map((k) => [k.kind, String(k.files), String(round(k.bytes / 2 ** 20, 2)), String(k.chunks), String(Math.round(k.bytes / k.chunks)), k.large_chunks ? String(Math.round(k.large_bytes / k.large_chunks)) : '–', String(k.constant)]),
  );
  process.stdout.write(`\nWhat the index cut, per kind of file (kinds with 20+ chunks):\n\n${table}\n`);
}

export function printRows(rows: EstimateRow[]): void {
  const table = mdTable(
    ['repository', 'files', 'est. chunks', 'chunks', 'chunks est/actual', 'est. s (rates from)', 'defaults\' s', 'actual s (fetch+commit / index)', 'time actual/est', 'targets', 'load 1m'],
    rows.map((r) => {
      const w = within(r);
      return [
        r.repo,
        r.files,
        r.est_chunks,
        r.chunks,
        round(r.est_chunks / Math.max(1, r.chunks), 2),
        `${r.est_s} (${r.basis})`,
        r.default_s,
        `${r.actual_s} (${r.fetch_s} / ${r.index_s})`,
        round(r.actual_s / r.est_s, 2),
        `${w.chunks ? 'chunks ok' : 'CHUNKS OFF'}, ${w.time ? 'time ok' : 'TIME OFF'}`,
        String(r.load),
      ].map(String);
    }),
  );
  process.stdout.write(`${table}\n`);
  const ok = rows.filter((r) => within(r).chunks && within(r).time).length;
  process.stdout.write(`\n${ok} of ${rows.length} repositories within both targets (chunks ±${CHUNK_BOUND * 100}%, time ×${TIME_FACTOR}).\n`);
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { repo: { type: 'string' }, 'no-dioxus': { type: 'boolean', default: false }, dioxus: { type: 'string' } } });
  const dioxus = values['no-dioxus'] ? null : findRepo(values.dioxus);
  if (!values['no-dioxus'] && !dioxus) process.stdout.write('bench:estimates: no Dioxus repository (--dioxus PATH, TKOMA_BENCH_REPO, or the mirror): whole-repository row skipped.\n');
  if (dioxus && !headCommit(dioxus)) throw new Error(`not a git repository: ${dioxus}`);
  const { rows, kinds } = await runEstimates({ ...(values.repo ? { repos: values.repo.split(',') } : {}), dioxus, workDir: WORK_DIR });
  printRows(rows);
  printKinds(kinds);
}
