/**
 * Indexing throughput, stage by stage, on a corpus of real files:
 *
 *   npm run bench:throughput -- [--max-files 20000] [--embed-sample 300] [--smoke]
 *
 * The corpus is every source/doc file of the installed packages (node_modules: ≥ 10,000 files
 * here) committed into a git repository in .bench-work/. Stages, each timed on its own:
 * fetch (the git fetch of a topic), chunk (chunkFile), lexical (building the BM25 index) and
 * lexical-save (serialising and writing it), embed (use-lite on an even sample of chunks through
 * the embedding cache, then the same chunks again to show nothing is embedded twice), and
 * create (the whole `topic create --yes --embedder none`: fetch, commit, chunk, index, save).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { chunkFile, roleForPath } from '../src/lib/chunking/index.js';
import { EmbeddingCache, embedWithCacheDetailed } from '../src/lib/embedding/cache.js';
import { createEmbedder } from '../src/lib/embedding/index.js';
import { buildSegment, encodeSegment } from '../src/lib/index/bm25/index.js';
import { type ChunkRecord, lexicalDocOf } from '../src/lib/index/service.js';
import { fetchGitSource } from '../src/lib/sources/git.js';
import { nodeModulesRepo } from './lib/corpus.js';
import { freshRootWithTopic, stderrProgress } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { peakRssMb, printTable, round } from './lib/stats.js';
import { outputsFor, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export interface ThroughputOptions {
  maxFiles: number;
  embedSample: number;
  smoke: boolean;
  workDir: string;
  quiet?: boolean;
  /** Skip the use-lite stage (tests that must not load the model). */
  skipEmbed?: boolean;
}

export async function runThroughput(opts: ThroughputOptions): Promise<BenchRecord[]> {
  const log = (m: string): void => {
    if (!opts.quiet) process.stderr.write(`[throughput] ${m}\n`);
  };
  const repo = await nodeModulesRepo(opts.workDir, opts.maxFiles);
  const dataset = opts.smoke ? `node_modules sample (${repo.files} files)` : `node_modules (${repo.files.toLocaleString('en-US')} files)`;
  const command = opts.smoke ? 'npm run bench:smoke' : `npm run bench:throughput -- --max-files ${opts.maxFiles} --embed-sample ${opts.embedSample}`;
  const records: BenchRecord[] = [];
  const add = (mode: string, embedder: string, m: Record<string, number>, note?: string): void => {
    records.push({ bench: 'throughput', dataset, mode, embedder, ...m, peak_rss_mb: round(peakRssMb(), 0), ...stamp(command), ...(note ? { note } : {}) });
  };

  // fetch: a fresh clone of the corpus repository, files written out as the topic would hold them.
  const dest = join(opts.workDir, 'throughput-fetch');
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  log(`fetch ${repo.files} files…`);
  let t = performance.now();
  const fetched = await fetchGitSource({ url: repo.url }, dest);
  let s = (performance.now() - t) / 1000;
  const files = fetched.files.map((f) => f.path).sort();
  add('fetch', 'none', { files: files.length, seconds: round(s, 2), files_per_s: round(files.length / s) });

  // chunk: reading the files is not timed, chunking is (grammar loading included).
  log('chunk…');
  const texts = files.map((p) => [p, readFileSync(join(dest, p), 'utf8')] as const);
  const chunks: ChunkRecord[] = [];
  let ms = 0;
  for (const [path, text] of texts) {
    t = performance.now();
    const out = await chunkFile(path, text);
    ms += performance.now() - t;
    const role = roleForPath(path);
    out.forEach((c, i) => chunks.push({ ...c, path, role, id: `${path}#${i}` }));
  }
  s = ms / 1000;
  add('chunk', 'none', { files: files.length, chunks: chunks.length, seconds: round(s, 2), files_per_s: round(files.length / s), chunks_per_s: round(chunks.length / s) });

  // lexical: the production BM25 index over every chunk, then writing it as the index does.
  log(`lexical index of ${chunks.length} chunks…`);
  t = performance.now();
  const lexical = buildSegment(chunks.map((c) => lexicalDocOf(c, c.text)));
  s = (performance.now() - t) / 1000;
  add('lexical', 'none', { files: files.length, chunks: chunks.length, seconds: round(s, 2), files_per_s: round(files.length / s), chunks_per_s: round(chunks.length / s) });
  t = performance.now();
  const bytes = encodeSegment(lexical);
  writeFileSync(join(opts.workDir, 'throughput-lexical.lex'), bytes);
  s = (performance.now() - t) / 1000;
  add('lexical-save', 'none', { chunks: chunks.length, seconds: round(s, 2), chunks_per_s: round(chunks.length / s), bytes_mb: round(bytes.length / 2 ** 20) });
  rmSync(join(opts.workDir, 'throughput-lexical.lex'), { force: true });

  // embed: an even sample, through the same cache the index uses; the second pass must embed nothing.
  if (!opts.skipEmbed) {
    const n = Math.min(opts.embedSample, chunks.length);
    const step = chunks.length / n;
    const sample = Array.from({ length: n }, (_, i) => chunks[Math.floor(i * step)]!);
    const embedder = (await createEmbedder({ provider: 'use-lite' }))!;
    await embedder.embedDocuments(['warm-up']); // model load is not throughput
    const cacheDir = join(opts.workDir, 'throughput-embed-cache');
    rmSync(cacheDir, { recursive: true, force: true });
    log(`embed ${n} chunks with use-lite…`);
    const items = sample.map((c) => ({ hash: c.hash, text: c.text }));
    t = performance.now();
    const first = await embedWithCacheDetailed(embedder, new EmbeddingCache(cacheDir), items);
    s = (performance.now() - t) / 1000;
    const again = await embedWithCacheDetailed(embedder, new EmbeddingCache(cacheDir), items);
    const chars = sample.reduce((a, c) => a + c.text.length, 0);
    add('embed', embedder.key.split(':')[0]!, {
      chunks: n,
      embedded: first.embedded,
      seconds: round(s, 2),
      chunks_per_s: round(first.embedded / s, 2),
      mean_chunk_chars: Math.round(chars / n),
      reembedded_on_rerun: again.embedded,
    });
    rmSync(cacheDir, { recursive: true, force: true });
  }
  rmSync(dest, { recursive: true, force: true });

  // create: the whole user-visible path, lexical only.
  log('topic create (end to end, embedder none)…');
  const root = join(opts.workDir, 'throughput-kb');
  t = performance.now();
  const created = await freshRootWithTopic(root, { topicId: 'topic-corpus', title: 'Installed packages', url: repo.url, embedderFlag: 'none' }, stderrProgress('throughput create', opts.quiet));
  s = (performance.now() - t) / 1000;
  add('create', 'none', { files: created.file_count, chunks: created.chunk_count, seconds: round(s, 2), files_per_s: round(created.file_count / s), chunks_per_s: round(created.chunk_count / s) });
  rmSync(root, { recursive: true, force: true });
  return records;
}

export function printThroughput(records: readonly BenchRecord[]): void {
  printTable(
    ['stage', 'files', 'chunks', 's', 'files/s', 'chunks/s', 'peak RSS MB'],
    records.map((r) => [r.mode, String(r.files ?? ''), String(r.chunks ?? ''), String(r.seconds), String(r.files_per_s ?? ''), String(r.chunks_per_s ?? ''), String(r.peak_rss_mb)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'max-files': { type: 'string' },
      'embed-sample': { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const smoke = values.smoke!;
  const t0 = performance.now();
  const records = await runThroughput({
    maxFiles: Number(values['max-files'] ?? (smoke ? 80 : 20_000)),
    embedSample: Number(values['embed-sample'] ?? (smoke ? 3 : 300)),
    smoke,
    workDir: values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
  });
  printThroughput(records);
  saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`throughput: ${records.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (isMain(import.meta.url)) await main();
