/**
 * Retrieval quality through the real path:
 *
 *   npm run bench:quality -- [--dataset scifact|cosqa|all] [--embedder none,use-lite,auto] [--mode lexical,vector,hybrid] [--smoke]
 *
 * Each document becomes one file (`<id>.md` = `# title\n\ntext` for SciFact, `<id>.py` for CoSQA)
 * in a git repository; a knowledge root gets a topic created from it with `createTopic` (as
 * `topic create --yes`), then every query goes through `searchReferences` with a high limit; hits
 * are mapped back to document ids (best rank per document) and the top 10 scored. Work stays in
 * .bench-work/quality/ so reruns reuse the repository, the index and the embedding cache
 * (use-lite embeds ~10 chunks/s here: the first full run embeds for ~20 min).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { searchReferences, type SearchMode } from '../src/lib/search/search.js';
import { loadBeir, type BeirSet } from './lib/beir.js';
import { repoFromFiles } from './lib/corpus.js';
import { chunkCount, freshRootWithTopic, stderrProgress, topicReady } from './lib/kb.js';
import { evaluate, type Run } from './lib/metrics.js';
import type { BenchRecord } from './lib/records.js';
import { mean, percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, outputsFor, saveRecords, stamp, WORK_DIR } from './lib/store.js';
import { isMain } from './lib/main.js';

export type DatasetName = 'scifact' | 'cosqa';
export const DATASETS: readonly DatasetName[] = ['scifact', 'cosqa'];

export interface QualityOptions {
  datasets: readonly DatasetName[];
  embedders: readonly string[];
  /** Modes to measure; lexical only for embedder none. */
  modes?: readonly SearchMode[];
  smoke: boolean;
  workDir: string;
  /** Search result limit per query (high, so ten distinct documents survive chunk merging). */
  limit?: number;
  quiet?: boolean;
}

const SMOKE = { queries: 3, extraDocs: 10 };

/** Smoke subset: a few judged queries, their relevant documents and some distractors. */
export function smokeSubset(data: BeirSet, queries = SMOKE.queries, extraDocs = SMOKE.extraDocs): BeirSet {
  const picked = data.queries.filter((q) => data.qrels.has(q.id)).slice(0, queries);
  const wanted = new Set<string>();
  for (const q of picked) for (const id of data.qrels.get(q.id)!.keys()) wanted.add(id);
  data.corpus.slice(0, extraDocs).forEach((d) => wanted.add(d.id));
  return {
    corpus: data.corpus.filter((d) => wanted.has(d.id)),
    queries: picked,
    qrels: new Map(picked.map((q) => [q.id, data.qrels.get(q.id)!])),
  };
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const docExt = (set: DatasetName): string => (set === 'cosqa' ? '.py' : '.md');

/** The file a document becomes, as a user would save it. */
export function documentFile(set: DatasetName, doc: { id: string; title: string; text: string }): [string, string] {
  if (!SAFE_ID.test(doc.id)) throw new Error(`document id ${JSON.stringify(doc.id)} is not a safe file name`);
  const body = set === 'cosqa' ? `${doc.text}\n` : `# ${doc.title.trim() || doc.id}\n\n${doc.text}\n`;
  return [`${doc.id}${docExt(set)}`, body];
}

/** Hit path → document id; hits outside the corpus files (none expected) are dropped. */
export function docIdOfPath(set: DatasetName, path: string): string | null {
  const ext = docExt(set);
  return path.endsWith(ext) && !path.includes('/') ? path.slice(0, -ext.length) : null;
}

function commandFor(set: DatasetName, embedder: string, smoke: boolean): string {
  return `npm run bench:${smoke ? 'smoke' : `quality -- --dataset ${set} --embedder ${embedder}`}`;
}

export async function runQuality(opts: QualityOptions): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  const limit = opts.limit ?? 100;
  for (const set of opts.datasets) {
    const full = loadBeir(join(BENCH_DATA, set));
    const data = opts.smoke ? smokeSubset(full) : full;
    const tag = opts.smoke ? `${set}-smoke` : set;
    const base = join(opts.workDir, 'quality', tag);
    const repo = await repoFromFiles(join(base, 'repo'), `${set}:${data.corpus.length}:${data.corpus[0]?.id}`, () =>
      data.corpus.map((d) => documentFile(set, d)),
    );
    for (const embedder of opts.embedders) {
      // `auto`: what a new root gives by default: use-lite recorded, chunk vectors as the model
      // decides (none for use-lite: topic notes only), searched in the default mode.
      const isAuto = embedder === 'auto';
      const root = join(base, `kb-${embedder}`);
      const topicId = `topic-${set}`;
      const progress = stderrProgress(`quality ${tag} ${embedder}`, opts.quiet);
      // How long the topic took to create is kept beside the root, so a rerun that reuses the
      // root still reports it (with the date it was measured).
      const createdFile = `${root}.created.json`;
      let created: { create_s?: number; chunks: number; date?: string };
      if (!topicReady(root, topicId)) {
        const t = performance.now();
        const spec = { topicId, title: `${set} benchmark corpus`, url: repo.url, embedderFlag: isAuto ? 'use-lite' : embedder, ...(isAuto ? { chunks: 'auto' as const } : {}) };
        const res = await freshRootWithTopic(root, spec, progress);
        created = { create_s: round((performance.now() - t) / 1000), chunks: res.chunk_count, date: new Date().toISOString() };
        writeFileSync(createdFile, JSON.stringify(created));
      } else if (existsSync(createdFile)) {
        created = JSON.parse(readFileSync(createdFile, 'utf8')) as typeof created;
      } else {
        created = { chunks: await chunkCount(root, topicId) };
      }
      const modes = embedder === 'none' ? (['lexical'] as const) : isAuto ? (['hybrid'] as const) : (opts.modes ?? (['lexical', 'vector', 'hybrid'] as const));
      for (const mode of modes) {
        if (embedder === 'none' && mode !== 'lexical') continue;
        const run: Run = new Map();
        const times: number[] = [];
        let vectorNote: string | undefined;
        for (const q of data.queries) {
          const t = performance.now();
          const res = await searchReferences(root, { question: q.text, topic: topicId, limit, ...(isAuto ? {} : { mode, embedderFlag: embedder }) });
          times.push(performance.now() - t);
          if (mode !== 'lexical' && !res.vector_search.available) vectorNote = res.vector_search.reason;
          const ids: string[] = [];
          for (const h of res.results) {
            const id = docIdOfPath(set, h.path);
            if (id !== null) ids.push(id);
          }
          run.set(q.id, ids);
        }
        const ev = evaluate(run, data.qrels);
        records.push({
          bench: 'quality',
          dataset: set,
          mode,
          embedder: isAuto ? 'auto (use-lite, notes only)' : embedder,
          ndcg10: round(ev.ndcg10, 4),
          recall10: round(ev.recall10, 4),
          mrr10: round(ev.mrr10, 4),
          queries: ev.queries,
          docs: data.corpus.length,
          chunks: created.chunks,
          ...(mode === modes[0] && created.create_s !== undefined ? { create_s: created.create_s } : {}),
          query_mean_ms: round(mean(times)),
          query_p95_ms: round(percentile(times, 95)),
          ...stamp(commandFor(set, embedder, opts.smoke)),
          ...(vectorNote ? { note: `vector search unavailable: ${vectorNote}` } : opts.smoke ? { note: 'smoke subset' } : {}),
        });
      }
    }
  }
  return records;
}

export function printQuality(records: readonly BenchRecord[]): void {
  printTable(
    ['dataset', 'embedder', 'mode', 'nDCG@10', 'R@10', 'MRR@10', 'queries', 'ms/query'],
    records.map((r) => [r.dataset, r.embedder, r.mode, String(r.ndcg10), String(r.recall10), String(r.mrr10), String(r.queries), String(r.query_mean_ms)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', default: 'all' },
      embedder: { type: 'string', default: 'none,use-lite' },
      mode: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const datasets = values.dataset === 'all' ? DATASETS : (values.dataset!.split(',') as DatasetName[]);
  for (const d of datasets) if (!DATASETS.includes(d)) throw new Error(`unknown dataset ${d} (scifact, cosqa, all)`);
  const smoke = values.smoke!;
  const embedders = values.embedder!.split(',').filter(Boolean);
  const modes = values.mode?.split(',') as SearchMode[] | undefined;
  const workDir = values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR);
  const t0 = performance.now();
  const records = await runQuality({ datasets, embedders, modes, smoke, workDir });
  printQuality(records);
  saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`quality: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();
