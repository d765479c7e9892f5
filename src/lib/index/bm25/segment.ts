/**
 * How one BM25 segment is built from documents (the writer side). The in-memory shape a reader
 * needs (SegmentData) lives in segment-data.ts, so a search that only reads segments never loads
 * the builder or its term counter.
 */
import { closeSync, openSync } from 'node:fs';

import { TkomaError } from '../../errors.js';
import { encodeFront, encodeSegmentParts } from './format.js';
import { type Bm25BuildParams, type Bm25Doc, type Bm25Segment, DEFAULT_BUILD, SegmentData } from './segment-data.js';
import { mergeRuns, removeRuns, runTotals, writeRun } from './spill.js';
import { writeFully } from '../../regular-file.js';
import { TermCounter } from './term-count.js';
import { grown } from '../../typed-array.js';

function checkWeights(weights: readonly number[]): Float64Array {
  if (weights.length === 0 || weights.some((w) => !Number.isFinite(w) || w < 0)) {
    throw new TkomaError('INTERNAL', 'BM25 field weights must be finite and >= 0.', { fieldWeights: [...weights] });
  }
  return Float64Array.from(weights);
}

const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;

/**
 * Posting stream in document order: (term, tf) per posting, in fixed-size blocks; a doc's
 * postings are consecutive, so the stream's length after each doc (ends) gives their doc number
 * without storing it per posting (a third of the stream, which is alive together with the
 * assembled postings at a build's peak). Doubling one array held the old and the new copy at once
 * at every growth; blocks never copy and waste at most one partly filled block.
 */
class PostingStream {
  readonly terms: Uint32Array[] = [];
  readonly tfs: Float32Array[] = [];
  length = 0;
  /** ends[d]: the stream's length once the stream's doc d (its first is 0) was added. */
  ends = new Uint32Array(1 << 10);
  private term = new Uint32Array(0);
  private tf = new Float32Array(0);

  push(term: number, tf: number): void {
    const at = this.length & (BLOCK - 1);
    if (at === 0) {
      this.term = new Uint32Array(BLOCK);
      this.tf = new Float32Array(BLOCK);
      this.terms.push(this.term);
      this.tfs.push(this.tf);
    }
    this.term[at] = term;
    this.tf[at] = tf;
    this.length++;
  }

  /** Doc `d` (the next doc number) has all its postings pushed. */
  endDoc(d: number): void {
    if (d >= this.ends.length) this.ends = grown(this.ends, new Uint32Array(this.ends.length * 2));
    this.ends[d] = this.length;
  }
}

/**
 * Doc ids in order, as a few long strings and their offsets rather than a string per doc (a
 * million small strings held ~50 MB through a large create).
 */
class IdList {
  private readonly pieces: string[] = [];
  private pending: string[] = [];
  private ends = new Uint32Array(1 << 10);
  count = 0;

  push(id: string): void {
    if (this.count + 1 >= this.ends.length) this.ends = grown(this.ends, new Uint32Array(this.ends.length * 2));
    this.ends[this.count + 1] = this.ends[this.count]! + id.length;
    this.count++;
    this.pending.push(id);
    if (this.pending.length === 4096) {
      this.pieces.push(this.pending.join(''));
      this.pending = [];
    }
  }

  /** Every id back to back. */
  text(): string {
    return this.pieces.join('') + this.pending.join('');
  }

  /** UTF-16 offsets into text(): count + 1 of them. */
  offsets(): Uint32Array {
    return this.ends.slice(0, this.count + 1);
  }
}

/**
 * Builds one immutable segment. Each field is tokenized with the shared code-aware pipeline;
 * a doc's tf for a term is sum_f w_f * tf_f and its length sum_f w_f * len_f (BM25F with the
 * weights baked in, and stored so a reader can tell what it got). Doc numbers follow `docs`.
 */
export function buildSegment(docs: readonly Bm25Doc[], params: Bm25BuildParams = DEFAULT_BUILD): Bm25Segment {
  const builder = new SegmentBuilder(params);
  for (const doc of docs) builder.add(doc);
  return builder.finish();
}

/** Where a build spills its postings, and how many it holds before it does (spill.ts). */
export interface SpillOptions {
  /** Run files are named `<prefix>.run-<n>`; the build removes them. */
  prefix: string;
  /** Postings per run: 2M are 16 MB in the stream and as much again while one is written. */
  postings?: number;
}
// A spilling build keeps no set of its ids to refuse repeats (a million ids cost ~40 MB there):
// its caller's ids are unique by construction (a sync's `<path>#<ordinal>`, one run per path).

const SPILL_POSTINGS = 1 << 21;

/**
 * buildSegment one document at a time: a sync adds each file's chunks as soon as they are cut
 * instead of in one pass at the end, tokenized here (add) or already counted on the worker thread
 * that cut them (addCounted). Doc numbers follow the order of the calls; the result is the same
 * as buildSegment over the same docs.
 */
export class SegmentBuilder {
  private readonly weights: Float64Array;
  private readonly ids = new IdList();
  /** Ids so far, to refuse a repeat; none kept when spilling (see SpillOptions). */
  private readonly seen: Set<string> | null;
  private readonly counter: TermCounter;
  /** Per foreign numbering: its term number -> this build's + 1 (0: not looked up yet). */
  private readonly foreign = new Map<ForeignTerms, Uint32Array>();
  private stream = new PostingStream();
  private docLen = new Float32Array(1 << 10);
  /** Run files spilled so far, and the first doc of the stream in memory. */
  private readonly runs: string[] = [];
  private docBase = 0;

  /**
   * With `spill`, postings past a run's worth go to run files, merged by writeFile: the build then
   * holds a run of postings, whatever its size. finish() is for builds that never spilled.
   */
  constructor(
    params: Bm25BuildParams = DEFAULT_BUILD,
    private readonly spill?: SpillOptions,
  ) {
    this.weights = checkWeights(params.fieldWeights);
    this.counter = new TermCounter(this.weights);
    this.seen = spill ? null : new Set();
  }

  /** True once postings went to run files: the segment can then only be written (writeFile). */
  get spilled(): boolean {
    return this.runs.length > 0;
  }

  add(doc: Bm25Doc): void {
    this.checkNew(doc.id);
    if (doc.fields.length > this.weights.length) {
      throw new TkomaError('INTERNAL', 'A BM25 doc has more fields than there are field weights.', {
        id: doc.id,
        fields: doc.fields.length,
        weights: this.weights.length,
      });
    }
    const d = this.newDoc(doc.id);
    const { counter, stream } = this;
    this.setLength(d, counter.count(doc.fields));
    const { ids, length } = counter.touched;
    for (let i = 0; i < length; i++) stream.push(ids[i]!, counter.takeTf(ids[i]!));
    this.endDoc(d);
  }

  /**
   * A doc counted by another TermCounter with the same weights (a chunk worker's): its distinct
   * terms terms[from..to) in `table`'s numbering, their weighted tfs, and its weighted length.
   * Gives the same segment as add() of the same fields: only the term numbers are translated.
   */
  addCounted(id: string, len: number, table: ForeignTerms, terms: Uint32Array, tfs: Float32Array, from: number, to: number): void {
    if (!sameWeights(table.weights, this.weights)) {
      throw new TkomaError('INTERNAL', 'Terms counted with other BM25 field weights than this build.', { id });
    }
    this.checkNew(id);
    const d = this.newDoc(id);
    this.setLength(d, len);
    let map = this.foreign.get(table);
    if (!map || map.length < table.names.length) {
      const grown = new Uint32Array(Math.max(table.names.length, (map?.length ?? 0) * 2, 1024));
      if (map) grown.set(map);
      this.foreign.set(table, (map = grown));
    }
    const { vocab } = this.counter;
    for (let i = from; i < to; i++) {
      const local = terms[i]!;
      let t = map[local]!;
      if (t === 0) map[local] = t = vocab.intern(table.names[local]!) + 1;
      this.stream.push(t - 1, tfs[i]!);
    }
    this.endDoc(d);
  }

  private endDoc(d: number): void {
    this.stream.endDoc(d - this.docBase);
    if (this.spill && this.stream.length >= (this.spill.postings ?? SPILL_POSTINGS)) this.spillRun();
  }

  private spillRun(): void {
    const file = `${this.spill!.prefix}.run-${this.runs.length}`;
    this.runs.push(file); // first: discard() removes a run that failed half-written
    const s = this.stream;
    writeRun(file, { terms: s.terms, tfs: s.tfs, blockSize: BLOCK, length: s.length, ends: s.ends, docBase: this.docBase }, this.counter.vocab.names);
    this.docBase = this.ids.count;
    this.stream = new PostingStream();
  }

  /** Removes the run files of a build that will not be written. */
  discard(): void {
    removeRuns(this.runs.splice(0));
  }

  /**
   * Writes the segment's file (encodeSegmentParts' bytes of the segment finish() would give) to
   * `file`; the builder takes no more docs after this. A spilled build merges its runs into it.
   */
  writeFile(file: string): void {
    if (!this.spilled) {
      const fd = openSync(file, 'w');
      try {
        for (const part of encodeSegmentParts(this.finish())) writeFully(fd, part, null);
      } finally {
        closeSync(fd);
      }
      return;
    }
    if (this.stream.length > 0) this.spillRun();
    this.stream = new PostingStream();
    this.counter.release();
    this.foreign.clear();
    const { ids, runs } = this;
    const { sorted, rank, termOffsets } = sortTerms(this.counter.vocab.names);
    const totals = runTotals(runs, rank.length);
    const postStart = new Uint32Array(sorted.length + 1);
    for (let t = 0; t < rank.length; t++) postStart[rank[t]! + 1] = totals[t]!;
    for (let r = 0; r < sorted.length; r++) postStart[r + 1]! += postStart[r]!;
    const postings = postStart[sorted.length]!;
    const front = encodeFront({
      docCount: ids.count,
      termCount: sorted.length,
      postings,
      fieldWeights: this.weights,
      docLen: this.docLen.subarray(0, ids.count),
      idText: ids.text(),
      idOffsets: ids.offsets(),
      terms: sorted.join(''),
      termOffsets,
      postStart,
    });
    const L = front.at;
    const fd = openSync(file, 'w');
    try {
      writeFully(fd, front.head, 0);
      mergeRuns(runs, rank, fd, L.postDocs, L.postTf);
      // The padding after each posting section, then ids and terms: the file ends with them.
      writeFully(fd, new Uint8Array(L.postTf - (L.postDocs + 4 * postings)), L.postDocs + 4 * postings);
      writeFully(fd, new Uint8Array(L.ids - (L.postTf + 4 * postings)), L.postTf + 4 * postings);
      writeFully(fd, front.idBytes, L.ids);
      writeFully(fd, front.termBytes, L.terms);
    } finally {
      closeSync(fd);
    }
    this.discard();
  }

  private checkNew(id: string): void {
    if (this.seen?.has(id)) {
      throw new TkomaError('INTERNAL', `Duplicate id in one BM25 segment: ${id}`, { id });
    }
  }

  /** Numbers a doc whose id checkNew passed. */
  private newDoc(id: string): number {
    this.seen?.add(id);
    this.ids.push(id);
    return this.ids.count - 1;
  }

  private setLength(d: number, len: number): void {
    if (d >= this.docLen.length) this.docLen = grown(this.docLen, new Float32Array(this.docLen.length * 2));
    this.docLen[d] = len;
  }

  /** The segment; the builder takes no more docs after this. */
  finish(): Bm25Segment {
    if (this.spilled) throw new TkomaError('INTERNAL', 'A BM25 build that spilled its postings can only be written to a file.');
    this.counter.release();
    this.foreign.clear();
    this.seen?.clear();
    const { ids } = this;
    return assemble(ids.text(), ids.offsets(), this.weights, this.docLen.slice(0, ids.count), this.counter.vocab.names, this.stream);
  }
}

/**
 * The term names of a numbering made in another thread, in its order: names[n] is its term n.
 * It grows as that thread reports new terms; `weights` are the field weights it counted with.
 */
export class ForeignTerms {
  readonly names: string[] = [];
  constructor(readonly weights: Float64Array) {}
}

function sameWeights(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** The vocabulary sorted, each term's place in it (rank[t]), and the sorted terms' offsets. */
function sortTerms(names: readonly string[]): { sorted: string[]; rank: Uint32Array; termOffsets: Uint32Array } {
  const sorted = names.slice().sort();
  const rank = new Uint32Array(names.length);
  const byName = new Map<string, number>();
  names.forEach((n, i) => byName.set(n, i));
  const termOffsets = new Uint32Array(sorted.length + 1);
  for (let r = 0; r < sorted.length; r++) {
    rank[byName.get(sorted[r]!)!] = r;
    termOffsets[r + 1] = termOffsets[r]! + sorted[r]!.length;
  }
  return { sorted, rank, termOffsets };
}

/** Sorts the vocabulary and regroups the document-ordered stream by term (a counting sort). */
function assemble(
  idText: string,
  idOffsets: Uint32Array,
  weights: Float64Array,
  docLen: Float32Array,
  names: string[],
  stream: PostingStream,
): SegmentData {
  const { sorted, rank, termOffsets } = sortTerms(names);
  const n = stream.length;
  const blockSize = (b: number): number => Math.min(BLOCK, n - b * BLOCK);
  const postStart = new Uint32Array(sorted.length + 1);
  stream.terms.forEach((terms, b) => {
    for (let i = 0, end = blockSize(b); i < end; i++) postStart[rank[terms[i]!]! + 1]!++;
  });
  for (let r = 0; r < sorted.length; r++) postStart[r + 1]! += postStart[r]!;
  const cursor = postStart.slice(0, sorted.length);
  const postDocs = new Uint32Array(n);
  const postTf = new Float32Array(n);
  const { ends } = stream;
  let doc = 0;
  stream.terms.forEach((terms, b) => {
    const tfs = stream.tfs[b]!;
    for (let i = 0, end = blockSize(b), g = b * BLOCK; i < end; i++, g++) {
      while (g >= ends[doc]!) doc++; // docs without postings end where the previous one did
      const at = cursor[rank[terms[i]!]!]!++;
      postDocs[at] = doc;
      postTf[at] = tfs[i]!;
    }
  });
  return new SegmentData(idText, idOffsets, weights, docLen, sorted.join(''), termOffsets, postStart, postDocs, postTf);
}
