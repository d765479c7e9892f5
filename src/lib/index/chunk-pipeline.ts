/**
 * The chunk-and-tokenize half of a topic sync. The sync reads and hashes files in path order
 * and hands each to add(); a pool of threads cuts them and counts their BM25 terms
 * (chunking/pool.ts) while this thread finishes the ones already cut, in the same order: chunk
 * records, and their terms into the segment being built. Same records, same doc order, same
 * segment bytes as cutting and tokenizing one file after another in this thread.
 */
import { applyExpansions, type Expansion } from '../chunking/includes.js';
import { BATCH, type ChunkedFile, type ChunkPool } from '../chunking/pool.js';
import { SegmentBuilder, type SpillOptions } from './bm25/segment.js';
import type { FileEntry, FileTable } from './file-table.js';
import { type ChunkRecord, lexicalDocOf } from './segments.js';

/**
 * Files handed to the pool ahead of the one being finished, per thread: bounds memory. More than
 * a batch, so the file being waited for has nearly always been sent (finishOne sends it when files
 * cut in this thread came after it and left its batch part filled). Deep
 * enough that one thread's queue outlasts the other's large file (a 200 KB bundle parses for
 * ~150 ms) and this thread's pauses: at 4 batches the threads of a 10,970-file create sat idle
 * 0.9-1.9 s each waiting for files, at 12 batches 0.7-1.0 s (a few hundred KB more in flight).
 */
const AHEAD = 12 * BATCH;

/** Chunks cut before the sync read the file (chunking/ahead.ts), for the bytes it read. */
export interface CutAhead {
  take(path: string, sha256: string): Promise<ChunkedFile> | undefined;
}

interface InFlight {
  path: string;
  entry: FileEntry;
  chunks: Promise<ChunkedFile> | null;
  includes?: { text: string; expansions: Expansion[] };
  /** Taken from the chunks cut ahead: their text is bounded there, not by AHEAD. */
  ahead?: true;
  /** The pool's batchesSent when this file was queued in a batch not sent yet. */
  batch?: number;
}

export class ChunkPipeline {
  /** Every chunk record so far, in doc order (unless a sink takes them). */
  readonly fresh: ChunkRecord[] = [];
  /** Handed over by finish(). */
  private lex: SegmentBuilder | null;
  private readonly inFlight: InFlight[] = [];
  /** Files in flight not taken from the chunks cut ahead. */
  private queued = 0;
  /** Chunk records finished so far. */
  private count = 0;

  /** `files` is the new head's file table: each file's entry lands there when it is finished. */
  constructor(
    private readonly pool: ChunkPool,
    private readonly gen: number,
    private readonly files: FileTable,
    /** Takes each record in doc order instead of `fresh`, which then stays empty. */
    private readonly sink: (r: ChunkRecord) => void = (r) => this.fresh.push(r),
    /** Where the BM25 build spills its postings past a run's worth (bm25/spill.ts). */
    spill?: SpillOptions,
    /** Files already cut while they were fetched: used when the bytes read are the ones cut. */
    private readonly ahead?: CutAhead,
  ) {
    this.lex = new SegmentBuilder(undefined, spill);
  }

  /**
   * One file, in order: `text` is null for a file that gets no chunks (binary, too large).
   * `expansions`: a page's resolved includes, applied to its chunks' texts once they are cut.
   */
  async add(path: string, entry: FileEntry, text: string | null, expansions: Expansion[] = []): Promise<void> {
    const file: InFlight = { path, entry, chunks: null, ...(text !== null && expansions.length > 0 ? { includes: { text, expansions } } : {}) };
    if (text !== null) {
      const cut = this.ahead?.take(path, entry.sha256);
      if (cut) {
        file.chunks = cut;
        file.ahead = true;
      } else {
        const batch = this.pool.threaded(path) ? this.pool.batchesSent : undefined;
        file.chunks = this.pool.chunk(path, text);
        if (batch !== undefined && this.pool.batchesSent === batch) file.batch = batch;
      }
      // Handled in finish(); this keeps a rejection from counting as unhandled meanwhile.
      file.chunks.catch(() => undefined);
    }
    this.inFlight.push(file);
    if (!file.ahead) this.queued++;
    while (this.queued > AHEAD * Math.max(1, this.pool.threads)) await this.finishOne();
  }

  /**
   * Finishes every file still in flight; the BM25 build of the records, done (to finish or write:
   * SegmentWriter.finish), or null when there are none.
   */
  async finish(): Promise<SegmentBuilder | null> {
    this.pool.flush(); // the last files may sit in a batch not sent yet
    while (this.inFlight.length > 0) await this.finishOne();
    const lex = this.lex!;
    this.lex = null;
    if (this.count > 0) return lex;
    lex.discard();
    return null;
  }

  /** Removes what the BM25 build spilled, when the segment will not be written. */
  discard(): void {
    this.lex?.discard();
  }

  private async finishOne(): Promise<void> {
    const { path, entry, chunks, includes, ahead, batch } = this.inFlight.shift()!;
    if (!ahead) this.queued--;
    // Still in the pool's unsent batch: files cut elsewhere (here, or ahead) came after it, not enough to fill it.
    if (batch !== undefined && this.pool.batchesSent === batch) this.pool.flush();
    let file: ChunkedFile | undefined;
    let records: ChunkRecord[] = [];
    if (chunks) {
      try {
        file = await chunks;
        // Expanded texts are not the ones a worker counted terms for (prose is cut here anyway).
        if (includes) file = { chunks: applyExpansions(includes.text, file.chunks, includes.expansions) };
        records = file.chunks.map((c, i) => ({ ...c, path, role: entry.role, id: `${path}#${i}` }));
      } catch {
        entry.skipped = 'unchunkable'; // one odd file must not stop the topic's index
      }
    }
    entry.chunkCount = records.length;
    if (records.length > 0) {
      entry.seg = this.gen;
      entry.start = this.count; // records reach the segment in this order, after the ones so far
    }
    const lex = this.lex!;
    const counted = file?.counted;
    if (counted) {
      // Counted by the worker that cut the file: only the term numbers are this thread's work.
      const { table, packed, chunk0 } = counted;
      let post = counted.post0;
      for (let i = 0; i < records.length; i++) {
        const n = packed.docTerms[chunk0 + i]!;
        lex.addCounted(records[i]!.id, packed.docLen[chunk0 + i]!, table, packed.terms, packed.tfs, post, post + n);
        post += n;
      }
    } else {
      for (const r of records) lex.add(lexicalDocOf(r, r.text));
    }
    for (const r of records) this.sink(r);
    this.count += records.length;
    this.files.set(path, entry);
  }
}

