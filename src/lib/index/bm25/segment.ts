/**
 * How one BM25 segment is built from documents (the writer side). The in-memory shape a reader
 * needs (SegmentData) lives in segment-data.ts, so a search that only reads segments never loads
 * the builder or its term counter.
 */
import { TkomaError } from '../../errors.js';
import { type Bm25BuildParams, type Bm25Doc, type Bm25Segment, DEFAULT_BUILD, SegmentData } from './segment-data.js';
import { TermCounter } from './term-count.js';

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
  /** ends[d]: the stream's length once doc d was added. */
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
    if (d >= this.ends.length) this.ends = grow(this.ends, new Uint32Array(this.ends.length * 2));
    this.ends[d] = this.length;
  }
}

function grow<T extends Uint32Array | Float32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
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

/**
 * buildSegment one document at a time: a sync adds each file's chunks as soon as they are cut
 * instead of in one pass at the end, tokenized here (add) or already counted on the worker thread
 * that cut them (addCounted). Doc numbers follow the order of the calls; the result is the same
 * as buildSegment over the same docs.
 */
export class SegmentBuilder {
  private readonly weights: Float64Array;
  private readonly ids: string[] = [];
  private readonly seen = new Set<string>();
  private readonly counter: TermCounter;
  /** Per foreign numbering: its term number -> this build's + 1 (0: not looked up yet). */
  private readonly foreign = new Map<ForeignTerms, Uint32Array>();
  private readonly stream = new PostingStream();
  private docLen = new Float32Array(1 << 10);

  constructor(params: Bm25BuildParams = DEFAULT_BUILD) {
    this.weights = checkWeights(params.fieldWeights);
    this.counter = new TermCounter(this.weights);
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
    for (const t of counter.touched) stream.push(t, counter.takeTf(t));
    stream.endDoc(d);
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
    this.stream.endDoc(d);
  }

  private checkNew(id: string): void {
    if (this.seen.has(id)) {
      throw new TkomaError('INTERNAL', `Duplicate id in one BM25 segment: ${id}`, { id });
    }
  }

  /** Numbers a doc whose id checkNew passed. */
  private newDoc(id: string): number {
    this.seen.add(id);
    this.ids.push(id);
    return this.ids.length - 1;
  }

  private setLength(d: number, len: number): void {
    if (d >= this.docLen.length) this.docLen = grow(this.docLen, new Float32Array(this.docLen.length * 2));
    this.docLen[d] = len;
  }

  /** The segment; the builder takes no more docs after this. */
  finish(): Bm25Segment {
    this.counter.release();
    this.foreign.clear();
    this.seen.clear();
    return assemble(this.ids, this.weights, this.docLen.slice(0, this.ids.length), this.counter.vocab.names, this.stream);
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

/** Sorts the vocabulary and regroups the document-ordered stream by term (a counting sort). */
function assemble(
  ids: string[],
  weights: Float64Array,
  docLen: Float32Array,
  names: string[],
  stream: PostingStream,
): SegmentData {
  const sorted = names.slice().sort();
  const rank = new Uint32Array(names.length);
  const byName = new Map<string, number>();
  names.forEach((n, i) => byName.set(n, i));
  const termOffsets = new Uint32Array(sorted.length + 1);
  for (let r = 0; r < sorted.length; r++) {
    rank[byName.get(sorted[r]!)!] = r;
    termOffsets[r + 1] = termOffsets[r]! + sorted[r]!.length;
  }
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
  const idOffsets = new Uint32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) idOffsets[i + 1] = idOffsets[i]! + ids[i]!.length;
  return new SegmentData(ids.join(''), idOffsets, weights, docLen, sorted.join(''), termOffsets, postStart, postDocs, postTf);
}
