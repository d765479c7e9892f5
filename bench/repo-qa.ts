/**
 * Answers from real repositories (issue 12):
 *
 *   npm run bench:repo-qa -- [--repo minisearch,qs,...] [--embedder none] [--variant NAME] [--smoke] [--show]
 *                            [--role-boosts docs=1.1,example=1.1,test=0.8 --reuse --no-save]   (the role-prior sweep)
 *
 * bench/repo-qa/questions.json holds the questions a developer asks about seven real repositories
 * (installed packages with their READMEs, sources and tests: minisearch, qs, web-tree-sitter,
 * express, zod; retry and fast-json-stable-stringify for their example/ folders), each with the
 * files a person would open to answer it (grade 2 answers it, 1 helps), written from the docs
 * before any search ran. Each package is committed as it is into a
 * git repository (zod: its src/ and README, as its repository holds them) and fetched over
 * file:// through `topic create --yes`, the way a user would; every question goes through
 * `searchReferences` on that topic. Reported per repository:
 *   - top3: share of questions with a useful (graded) file among the first 3 hits a user sees
 *   - ndcg10: nDCG@10 over distinct files (best rank per file), graded
 *   - scraps3: share of the first 3 hits spanning fewer than 3 non-blank lines
 *   - dups3: share of questions whose first 3 hits hold the same text twice
 * `--variant NAME` labels the records (`lexical (NAME)`), so a run of older code (the "before"
 * figures) sits beside the current one. `--smoke`: one repository, three questions (seconds).
 * `--show`: print each question's top 3 hits.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { searchReferences } from '../src/lib/search/search.js';
import { repoFromFiles } from './lib/corpus.js';
import { freshRootWithTopic, stderrProgress, chunkCount, topicReady } from './lib/kb.js';
import { isMain } from './lib/main.js';
import { evaluate, type Qrels, type Run } from './lib/metrics.js';
import type { BenchRecord } from './lib/records.js';
import { mean, printTable, round } from './lib/stats.js';
import { outputsFor, PROJECT, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export interface RepoSpec {
  name: string;
  /** Folder under node_modules. */
  package: string;
  /** Path prefixes left out (nested installs). */
  exclude?: string[];
  /** When set, only these path prefixes are kept. */
  only?: string[];
}

export interface Question {
  id: string;
  repo: string;
  q: string;
  relevant: Record<string, number>;
}

export interface QuestionSet {
  repos: RepoSpec[];
  questions: Question[];
}

export const QUESTIONS_FILE = join(PROJECT, 'bench', 'repo-qa', 'questions.json');

export function loadQuestions(file = QUESTIONS_FILE): QuestionSet {
  const data = JSON.parse(readFileSync(file, 'utf8')) as QuestionSet;
  const names = new Set(data.repos.map((r) => r.name));
  for (const q of data.questions) if (!names.has(q.repo)) throw new Error(`question ${q.id}: unknown repo ${q.repo}`);
  return data;
}

/** The package's files as a repository would hold them (sorted, so reruns reuse the repo). */
export function* packageFiles(spec: RepoSpec, modules = join(PROJECT, 'node_modules')): Generator<[string, Buffer]> {
  const base = join(modules, spec.package);
  const walk = function* (dir: string): Generator<[string, Buffer]> {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const rel = relative(base, abs).split(sep).join('/');
      const st = statSync(abs);
      if (st.isDirectory()) {
        if (spec.exclude?.some((p) => `${rel}/`.startsWith(p))) continue;
        if (spec.only && !spec.only.some((p) => p.startsWith(`${rel}/`) || `${rel}/`.startsWith(p))) continue;
        yield* walk(abs);
      } else if (st.isFile()) {
        if (spec.exclude?.some((p) => rel.startsWith(p))) continue;
        if (spec.only && !spec.only.some((p) => rel === p || rel.startsWith(p))) continue;
        yield [rel, readFileSync(abs)];
      }
    }
  };
  yield* walk(base);
}

/** Lines that hold something other than whitespace. */
function meaningfulLines(text: string): number {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

export interface RepoQaOptions {
  repos?: readonly string[];
  embedder?: string;
  variant?: string;
  smoke?: boolean;
  show?: boolean;
  workDir: string;
  quiet?: boolean;
  questionsFile?: string;
  /** Role multipliers to measure (the sweep behind fusion.ts's ROLE_BOOSTS). */
  roleBoosts?: Partial<Record<'docs' | 'example' | 'code' | 'test', number>>;
  /** Reuse an existing topic built by an earlier run (sweeps). */
  reuse?: boolean;
}

/** The command that reproduces a run, as the report prints it. */
function commandLine(opts: RepoQaOptions): string {
  const args: string[] = [];
  if (opts.smoke) args.push('--smoke');
  if (opts.variant) args.push(`--variant '${opts.variant}'`);
  if (opts.roleBoosts) args.push(`--role-boosts ${Object.entries(opts.roleBoosts).map(([k, v]) => `${k}=${v}`).join(',')}`);
  return `npm run bench:repo-qa${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

export async function runRepoQa(opts: RepoQaOptions): Promise<BenchRecord[]> {
  const set = loadQuestions(opts.questionsFile);
  const embedder = opts.embedder ?? 'none';
  let repos = set.repos.filter((r) => !opts.repos || opts.repos.includes(r.name));
  if (opts.smoke) repos = repos.filter((r) => r.name === 'express');
  const records: BenchRecord[] = [];
  for (const spec of repos) {
    let questions = set.questions.filter((q) => q.repo === spec.name);
    if (opts.smoke) questions = questions.slice(0, 3);
    const base = join(opts.workDir, 'repo-qa', spec.name);
    const files = [...packageFiles(spec)];
    const repo = await repoFromFiles(join(base, 'repo'), `${spec.name}:${files.length}:${files.reduce((n, [, c]) => n + c.length, 0)}`, () => files);
    const root = join(base, `kb-${embedder}-${opts.variant ?? 'current'}`);
    const topicId = `topic-${spec.name}`;
    const progress = stderrProgress(`repo-qa ${spec.name}`, opts.quiet);
    // A fresh topic unless asked to reuse: the point is to measure the current fetch + chunking.
    if (!opts.reuse || !topicReady(root, topicId)) await freshRootWithTopic(root, { topicId, title: `${spec.name} repository`, url: repo.url, embedderFlag: embedder }, progress);
    if (!topicReady(root, topicId)) throw new Error(`topic ${topicId} missing`);
    const chunks = await chunkCount(root, topicId);
    const run: Run = new Map();
    const qrels: Qrels = new Map();
    let top3 = 0;
    let scraps = 0;
    let shown = 0;
    let dups = 0;
    const times: number[] = [];
    for (const q of questions) {
      qrels.set(q.id, new Map(Object.entries(q.relevant)));
      const t = performance.now();
      const res = await searchReferences(root, { question: q.q, topic: topicId, limit: 30, mode: embedder === 'none' ? 'lexical' : 'hybrid', embedderFlag: embedder, maxChars: 4000, ...(opts.roleBoosts ? { roleBoosts: opts.roleBoosts } : {}) });
      times.push(performance.now() - t);
      run.set(q.id, res.results.map((h) => h.path));
      const first = res.results.slice(0, 3);
      if (first.some((h) => (q.relevant[h.path] ?? 0) > 0)) top3++;
      for (const h of first) {
        shown++;
        if (meaningfulLines(h.snippet) < 3) scraps++;
      }
      const texts = first.map((h) => h.snippet.replace(/\s+/g, ' ').trim());
      if (new Set(texts).size < texts.length) dups++;
      if (opts.show) {
        console.log(`\n${q.id} ${q.q}  [${Object.keys(q.relevant).join(', ')}]`);
        for (const h of first) {
          const ok = (q.relevant[h.path] ?? 0) > 0 ? '✓' : ' ';
          console.log(`  ${ok} ${h.path}:${h.start_line}-${h.end_line}  ${h.role}  ${h.title.slice(0, 60)}`);
        }
      }
    }
    const ev = evaluate(run, qrels);
    const n = questions.length;
    records.push({
      bench: 'repo-qa',
      dataset: spec.name,
      mode: opts.variant ? `lexical (${opts.variant})` : 'lexical',
      embedder,
      top3: round(top3 / n, 3),
      ndcg10: round(ev.ndcg10, 3),
      scraps3: round(scraps / Math.max(1, shown), 3),
      dups3: round(dups / n, 3),
      queries: n,
      files: files.length,
      chunks,
      query_mean_ms: round(mean(times)),
      ...stamp(commandLine(opts)),
      ...(opts.smoke ? { note: 'smoke subset' } : {}),
    });
  }
  if (!opts.smoke && repos.length > 1) {
    const all = records.filter((r) => r.bench === 'repo-qa');
    const total = all.reduce((s, r) => s + (r.queries as number), 0);
    const w = (k: string): number => round(all.reduce((s, r) => s + (r[k] as number) * (r.queries as number), 0) / total, 3);
    records.push({
      ...all[0]!,
      dataset: 'all repositories',
      top3: w('top3'),
      ndcg10: w('ndcg10'),
      scraps3: w('scraps3'),
      dups3: w('dups3'),
      queries: total,
      files: all.reduce((s, r) => s + (r.files as number), 0),
      chunks: all.reduce((s, r) => s + (r.chunks as number), 0),
      query_mean_ms: w('query_mean_ms'),
    });
  }
  return records;
}

export function printRepoQa(records: readonly BenchRecord[]): void {
  printTable(
    ['repository', 'mode', 'top-3 useful', 'nDCG@10', 'scraps@3', 'dup@3', 'questions', 'files', 'chunks', 'ms/query'],
    records.map((r) => [r.dataset, r.mode, String(r.top3), String(r.ndcg10), String(r.scraps3), String(r.dups3), String(r.queries), String(r.files), String(r.chunks), String(r.query_mean_ms)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repo: { type: 'string' },
      embedder: { type: 'string', default: 'none' },
      variant: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      show: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
      'no-save': { type: 'boolean', default: false },
      'role-boosts': { type: 'string' },
      reuse: { type: 'boolean', default: false },
    },
  });
  const roleBoosts = values['role-boosts']
    ? Object.fromEntries(values['role-boosts'].split(',').map((kv) => { const [k, v] = kv.split('='); return [k!, Number(v)]; }))
    : undefined;
  const smoke = values.smoke!;
  const workDir = values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR);
  const t0 = performance.now();
  const records = await runRepoQa({
    repos: values.repo?.split(','),
    embedder: values.embedder,
    variant: values.variant,
    smoke,
    show: values.show,
    workDir,
    roleBoosts,
    reuse: values.reuse,
  });
  printRepoQa(records);
  if (!values['no-save']) saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`repo-qa: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();

