/**
 * A batch of files' chunk terms, counted on the worker thread that cut them. Tokenizing was most
 * of the main thread's work in a large create once the chunking had moved to worker threads; now
 * each worker counts the terms of the chunks it cuts and sends them as a few flat arrays (as
 * thousands of small objects, the structured clone would cost the main thread about what they
 * save), and the main thread only translates term numbers and pushes postings
 * (SegmentBuilder.addCounted). Cheap to import: every worker thread loads it.
 */
import type { Chunk } from '../chunking/types.js';
import { DEFAULT_BUILD } from './bm25/segment-data.js';
import type { ForeignTerms } from './bm25/segment.js';
import { TermCounter } from './bm25/term-count.js';
import { lexicalFields } from './lexical-fields.js';
import { grown } from '../typed-array.js';

/** The terms of a batch's chunks, counted in a worker thread with DEFAULT_BUILD's weights. */
export interface PackedTerms {
  /** Terms this thread numbered since its previous batch, back to back, in number order. */
  newTerms: string;
  /** End offset in newTerms of each of those terms. */
  newTermEnds: Uint32Array;
  /** Per chunk of the batch, file by file: its weighted length. */
  docLen: Float64Array;
  /** Per chunk: how many distinct terms it has (its run in `terms` and `tfs`). */
  docTerms: Uint32Array;
  /** Per distinct term of each chunk: the term's number in this thread's numbering. */
  terms: Uint32Array;
  /** Its weighted frequency in the chunk, as a float32 (what a segment stores). */
  tfs: Float32Array;
}

/** A typed array grown by doubling: numbers kept unboxed, in one elements kind. */
class Growable<A extends Float64Array | Float32Array | Uint32Array> {
  n = 0;
  constructor(
    private a: A,
    private readonly make: (n: number) => A,
  ) {}

  push(x: number): void {
    if (this.n === this.a.length) {
      this.a = grown(this.a, this.make(this.n * 2));
    }
    this.a[this.n++] = x;
  }

  /** What was pushed since the last take, in an array of its own size. */
  take(): A {
    const out = this.a.slice(0, this.n) as A;
    this.n = 0;
    return out;
  }
}

/**
 * The worker side: counts whole files' chunks and packs each batch's terms for the main thread.
 * Typed arrays rather than number arrays: arrays made anew for each batch went from small
 * integers to doubles as they filled, and each change of elements kind deoptimised addFile (the
 * Dioxus create's chunk thread compiled it seven times).
 */
export class ChunkTermPacker {
  private readonly counter = new TermCounter(Float64Array.from(DEFAULT_BUILD.fieldWeights));
  /** Terms of the numbering already sent (the main thread keeps them in order). */
  private sent = 0;
  private readonly docLen = new Growable(new Float64Array(1024), (n) => new Float64Array(n));
  private readonly docTerms = new Growable(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly terms = new Growable(new Uint32Array(1 << 15), (n) => new Uint32Array(n));
  /** Each tf rounded once to a float32 as it is stored, as a segment stores it. */
  private readonly tfs = new Growable(new Float32Array(1 << 15), (n) => new Float32Array(n));

  /** Counts every chunk of the file at `path`, in order. */
  addFile(path: string, chunks: readonly Chunk[]): void {
    const { counter, docLen, docTerms, terms, tfs } = this;
    for (const c of chunks) {
      docLen.push(counter.count(lexicalFields(c, path, c.text)));
      const { ids, length } = counter.touched;
      docTerms.push(length);
      for (let i = 0; i < length; i++) {
        const t = ids[i]!;
        terms.push(t);
        tfs.push(counter.takeTf(t));
      }
    }
  }

  /** The batch counted since the last take(), and the buffers worth transferring instead of copying. */
  take(): { packed: PackedTerms; transfer: ArrayBuffer[] } {
    const names = this.counter.vocab.names;
    const fresh = names.slice(this.sent);
    this.sent = names.length;
    const newTermEnds = new Uint32Array(fresh.length);
    let end = 0;
    fresh.forEach((n, i) => (newTermEnds[i] = end += n.length));
    const packed: PackedTerms = {
      newTerms: fresh.join(''),
      newTermEnds,
      docLen: this.docLen.take(),
      docTerms: this.docTerms.take(),
      terms: this.terms.take(),
      tfs: this.tfs.take(),
    };
    const transfer = [packed.newTermEnds, packed.docLen, packed.docTerms, packed.terms, packed.tfs].map((a) => a.buffer as ArrayBuffer);
    return { packed, transfer };
  }
}

/** Appends a batch's new terms to the main thread's copy of its worker's numbering. */
export function learnTerms(table: ForeignTerms, packed: PackedTerms): void {
  let start = 0;
  for (const end of packed.newTermEnds) {
    table.names.push(packed.newTerms.slice(start, end));
    start = end;
  }
}

/** One file's share of a packed batch: chunks [chunk0, chunk0 + n) and their postings from post0. */
export interface CountedFile {
  table: ForeignTerms;
  packed: PackedTerms;
  chunk0: number;
  post0: number;
}
