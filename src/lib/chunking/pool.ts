/**
 * Chunking on several threads. Cutting code by its syntax tree is most of a large create's index
 * phase (tree-sitter parses ~12 s of a 10,970-file corpus here), and each file is independent,
 * so worker threads chunk files while the main thread reads and hashes the next ones. Several
 * workers also count the BM25 terms of the chunks they cut (index/chunk-terms.ts), which was most
 * of the main thread's work once the chunking had moved; one leaves that to the main thread
 * (countsInWorkers). Chunks come back as chunkFile gives them in the main thread; terms as packed
 * arrays that build the same segment as tokenizing them here.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { DEFAULT_BUILD } from '../index/bm25/segment-data.js';
import { ForeignTerms } from '../index/bm25/segment.js';
import { type CountedFile, learnTerms, type PackedTerms } from '../index/chunk-terms.js';
import { envSetting } from '../settings.js';
import { chunkFile } from './index.js';
import { isProsePath, languageForPath } from './paths.js';
import type { Chunk } from './types.js';
import { type ChunkWorkerData, treeSitterModule } from './code-grammars.js';
import { fromWire, type WireChunk } from './wire.js';

export interface ChunkJob {
  id: number;
  path: string;
  text: string;
}

export type ChunkReply = { id: number; chunks: WireChunk[] } | { id: number; error: string };

/** A worker's answer to one batch: per file its chunks (or why not), and all their terms when it counts them. */
export interface BatchReply {
  files: ChunkReply[];
  terms?: PackedTerms;
}

/** A file's chunks, with their BM25 terms when a worker thread counted them (else: count them here). */
export interface ChunkedFile {
  chunks: Chunk[];
  counted?: CountedFile;
}

/** Files go to a thread this many at a time: one message and one wake-up per batch, not per file. */
export const BATCH = 16;

/** Chunks one file: in a worker thread when the pool has them, else in this thread. */
export type Chunker = (path: string, text: string) => Promise<ChunkedFile>;

export interface ChunkPool {
  chunk: Chunker;
  /** Worker threads in use (0: everything is chunked in this thread). */
  readonly threads: number;
  /** Files whose chunks came back from a worker thread (not chunked here after a thread died). */
  readonly answered: number;
  /** Batches sent to the threads so far: a file chunk() queued stays unsent until this moves. */
  readonly batchesSent: number;
  /** True when chunk() would send this file to a thread now (else it is cut in this thread). */
  threaded(path: string): boolean;
  /** Sends a partly filled batch now: call it before waiting on a file's chunks. */
  flush(): void;
  /** Ends the threads; files they still hold are rejected, not cut here. Idempotent. */
  close(): Promise<void>;
}

/**
 * Below this many syntax-tree files a pool costs more than it saves: each worker starts its own
 * Node isolate and compiles the grammars again (~100–200 ms and ~30 MB each).
 */
export const MIN_FILES_FOR_WORKERS = 200;
const MAX_WORKERS = 4;

/** Files that chunkFile sends through tree-sitter: the ones worth another thread. */
export function parsesSyntax(path: string): boolean {
  return !isProsePath(path) && languageForPath(path) !== undefined;
}

/**
 * How many worker threads to chunk `syntaxFiles` tree-sitter files with: none for a handful of
 * files or on one core; otherwise one per core besides this one, at most MAX_WORKERS. This thread
 * keeps a core busy too: it reads and hashes every file, cuts prose and the languages the threads
 * do not take, writes the records and builds the segment. Each thread costs ~30 MB of peak
 * (its isolate and heap, its grammar, its WebAssembly memory): on two cores a second one took the
 * Dioxus create from 183 to 211 MiB, for more CPU. `setting` is TKOMA_REF_CHUNK_THREADS: the
 * threads chunking in all, this one included, so 1 keeps everything in this thread.
 */
export function workerCount(syntaxFiles: number, cores: number, setting?: number): number {
  if (setting !== undefined) return Math.max(0, setting - 1);
  if (syntaxFiles < MIN_FILES_FOR_WORKERS || cores < 2) return 0;
  return Math.min(cores - 1, MAX_WORKERS);
}

/**
 * Whether the worker threads count their chunks' BM25 terms: only when there are several. With
 * one (two cores) the main thread waited on it for most of a code create, and counting there
 * instead took the Dioxus .rs/.md create from 2.79–2.92 to 2.33–2.65 s and its CPU down ~0.2 s
 * (4 alternated pairs; the whole repository: same wall, −0.3 s CPU, −10 MiB peak): the worker
 * parses, this thread counts while it waits, and no packed terms are copied and translated. With
 * more threads this one would be the bottleneck, as it was before counting moved to them.
 */
export function countsInWorkers(threads: number): boolean {
  return threads >= 2;
}

const chunkHere = (path: string, text: string): Promise<ChunkedFile> => chunkFile(path, text).then((chunks) => ({ chunks }));

const inline: ChunkPool = { chunk: chunkHere, threads: 0, answered: 0, batchesSent: 0, threaded: () => false, flush: () => {}, close: async () => {} };

export interface PoolOptions {
  /**
   * Heap limit of each worker thread, in MiB (default: Node's). A thread that reaches it dies
   * and its files are chunked in this thread instead.
   */
  heapMb?: number;
}

/**
 * The languages whose files go to the threads: those with MIN_FILES_FOR_WORKERS files or more.
 * A grammar costs every thread that meets it its load (kotlin's: ~20 MB and ~0.2 s), so the
 * few files of the other languages are cut in this thread, each of their grammars loaded once.
 * The Dioxus repository: 878 Rust files to the threads; 54 JavaScript, 13 TypeScript, 7 Swift,
 * 4 Kotlin and 4 shell files here. `all` (TKOMA_REF_CHUNK_THREADS set): every file may go.
 */
export function pooledLanguages(paths: readonly string[], all = false): Set<string> {
  const counts = new Map<string, number>();
  for (const p of paths) {
    if (!parsesSyntax(p)) continue;
    const language = languageForPath(p)!;
    counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => all || n >= MIN_FILES_FOR_WORKERS).map(([language]) => language));
}

/** A pool sized for these paths (see workerCount and pooledLanguages); close() it when done. */
export function startChunkPool(paths: readonly string[], options: PoolOptions = {}): ChunkPool {
  const setting = envSetting('chunkThreads');
  const languages = pooledLanguages(paths, setting !== undefined);
  const n = workerCount(paths.filter((p) => parsesSyntax(p) && languages.has(languageForPath(p)!)).length, availableParallelism(), setting);
  return n === 0 ? inline : new WorkerPool(n, options, languages);
}

/**
 * Young generation of each worker thread, in MiB. V8 gives a thread's heap the main thread's
 * defaults, and a chunk thread's garbage (each file's text, syntax nodes, chunk strings) grew its
 * semi-spaces to their 16 MiB maximum: 25-30 MiB of each thread's ~50 MiB heap was young space,
 * ~40 MiB of the Dioxus create's ~300 MiB peak over two threads. At 2 MiB the threads scavenge more
 * often, each scavenge cheap (what survives a file is its reply), and peak at ~24 MiB of heap.
 */
const WORKER_YOUNG_MB = 2;

/** Running from the TypeScript sources (tests, benchmarks under tsx): the worker needs tsx too. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

interface Pending {
  resolve: (file: ChunkedFile) => void;
  reject: (err: Error) => void;
  job: ChunkJob;
}

class WorkerPool implements ChunkPool {
  private readonly workers: { worker: Worker; pending: Map<number, Pending>; table: ForeignTerms }[] = [];
  private nextId = 0;
  answered = 0;
  batchesSent = 0;
  private closed = false;

  constructor(
    readonly threads: number,
    { heapMb }: PoolOptions,
    /** Languages whose files the threads cut; other syntax files are cut here. */
    private readonly languages: ReadonlySet<string>,
  ) {
    const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, ...(heapMb === undefined ? {} : { maxOldGenerationSizeMb: heapMb }) };
    // Before any thread compiles a grammar: V8's flags are the process's (wasm-tier.ts).
    const workerData: ChunkWorkerData = { treeSitter: treeSitterModule(true), countTerms: countsInWorkers(threads) };
    for (let i = 0; i < threads; i++) {
      const worker = FROM_SOURCE
        ? // `--import tsx` in execArgv does not reach a worker's own entry on Node 20; registering does.
          new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(new URL('./chunk-worker.ts', import.meta.url).href)}); })`, {
            eval: true,
            resourceLimits,
            workerData,
          })
        : new Worker(new URL('./chunk-worker.js', import.meta.url), { resourceLimits, workerData });
      // The worker numbers terms once for its whole life; this is that numbering's names.
      const slot = { worker, pending: new Map<number, Pending>(), table: new ForeignTerms(Float64Array.from(DEFAULT_BUILD.fieldWeights)) };
      worker.on('message', ({ files, terms }: BatchReply) => {
        if (terms) learnTerms(slot.table, terms);
        let chunk0 = 0;
        let post0 = 0;
        for (const reply of files) {
          // Not counted there: the pipeline counts this file's terms itself.
          const counted = terms && 'chunks' in reply ? { table: slot.table, packed: terms, chunk0, post0 } : undefined;
          if (terms && 'chunks' in reply) {
            for (let c = 0; c < reply.chunks.length; c++) post0 += terms.docTerms[chunk0 + c]!;
            chunk0 += reply.chunks.length;
          }
          const p = slot.pending.get(reply.id);
          if (!p) continue;
          slot.pending.delete(reply.id);
          this.answered++;
          if ('chunks' in reply) p.resolve({ chunks: fromWire(p.job.path, p.job.text, reply.chunks), counted });
          else p.reject(new Error(reply.error));
        }
      });
      // A thread that dies (out of memory in a grammar, say) must not lose its files: they are
      // chunked here instead, and nothing more is sent to it. Once the pool is closed nobody
      // waits for them (an error ended the work): they are dropped, not cut here before the exit.
      const orphan = (): void => {
        const i = this.workers.indexOf(slot);
        if (i >= 0) this.workers.splice(i, 1);
        for (const p of slot.pending.values()) {
          if (this.closed) p.reject(new Error('the chunk pool is closed'));
          else chunkHere(p.job.path, p.job.text).then(p.resolve, p.reject);
        }
        slot.pending.clear();
      };
      worker.on('error', orphan);
      worker.on('exit', orphan);
      this.workers.push(slot);
    }
  }

  private batch: Pending[] = [];

  threaded(path: string): boolean {
    return this.workers.length > 0 && !(parsesSyntax(path) && !this.languages.has(languageForPath(path)!));
  }

  chunk(path: string, text: string): Promise<ChunkedFile> {
    if (!this.threaded(path)) return chunkHere(path, text);
    const job: ChunkJob = { id: this.nextId++, path, text };
    const done = new Promise<ChunkedFile>((resolve, reject) => this.batch.push({ resolve, reject, job }));
    if (this.batch.length >= BATCH) this.flush();
    return done;
  }

  flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    // The least busy thread; ties go to the first.
    let slot = this.workers[0];
    for (const w of this.workers) if (slot && w.pending.size < slot.pending.size) slot = w;
    this.batchesSent++;
    if (!slot) {
      for (const p of batch) chunkHere(p.job.path, p.job.text).then(p.resolve, p.reject);
      return;
    }
    for (const p of batch) slot.pending.set(p.job.id, p);
    slot.worker.postMessage(batch.map((p) => p.job));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.batch.splice(0)) p.reject(new Error('the chunk pool is closed'));
    const slots = this.workers.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
