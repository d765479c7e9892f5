/**
 * The in-memory shape of a BM25 segment. A segment is a handful of flat typed arrays (no
 * per-posting objects), so building, encoding and decoding stay linear and cheap; segment.ts
 * builds them, format.ts stores exactly these arrays, query.ts queries them.
 */
import { TkomaError } from '../../errors.js';

export interface Bm25Doc {
  id: string;
  /** fields[i] is weighted by Bm25BuildParams.fieldWeights[i]; missing fields count as empty. */
  fields: readonly string[];
}

export interface Bm25BuildParams {
  fieldWeights: readonly number[];
}

export interface Bm25Segment {
  readonly docCount: number;
  /** Doc number -> id. */
  readonly ids: readonly string[];
}

/**
 * For chunks mapped to [title, symbol ?? '', path, text]. Chosen by bench/lexical-quality.ts (see
 * its header): BM25F saturates the summed tf, so title and symbol at full weight help instead of
 * triple-counting a name that the text repeats; the symbol counts double so a definition beats
 * its call sites; the path counts half (it is shared by every chunk of a file).
 */
export const DEFAULT_BUILD: Bm25BuildParams = { fieldWeights: [1, 2, 0.5, 1] };

/**
 * Internal representation behind the Bm25Segment interface. Postings are grouped by term (terms
 * sorted in JS string order, so a binary search finds them), doc numbers ascending inside a term.
 */
export class SegmentData implements Bm25Segment {
  /** Sum of docLen (float64): the all-live total length, so unmasked views need no pass. */
  readonly totalLen: number;
  private idList: string[] | undefined;
  private idTextValue: string | undefined;

  constructor(
    /** Every id concatenated in doc order; idOffsets[d]..idOffsets[d+1] is doc d's. Undefined: decodeIdText makes it. */
    idText: string | undefined,
    /** UTF-16 offsets into idText, docCount + 1 of them. */
    readonly idOffsets: Uint32Array,
    readonly fieldWeights: Float64Array,
    /** Weighted length per doc: sum over fields of weight * kept terms. */
    readonly docLen: Float32Array,
    /** Every term concatenated in sorted order; termOffsets[t]..termOffsets[t+1] is term t. */
    readonly terms: string,
    readonly termOffsets: Uint32Array,
    /** postStart[t]..postStart[t+1] indexes postDocs/postTf for term t. */
    readonly postStart: Uint32Array,
    readonly postDocs: Uint32Array,
    /** Weighted term frequency: sum over fields of weight * occurrences. */
    readonly postTf: Float32Array,
    /** Sum of docLen in doc order, when the caller already made it. */
    totalLen?: number,
  ) {
    if (totalLen === undefined) {
      totalLen = 0;
      for (let i = 0; i < docLen.length; i++) totalLen += docLen[i]!;
    }
    this.totalLen = totalLen;
    this.idTextValue = idText;
  }

  /** Every id concatenated in doc order. */
  get idText(): string {
    return (this.idTextValue ??= this.decodeIdText());
  }

  /** For a subclass that keeps its ids as bytes: their text, made when first asked for. */
  protected decodeIdText(): string {
    throw new TkomaError('INTERNAL', 'A BM25 segment made without its ids.');
  }

  get docCount(): number {
    return this.docLen.length;
  }

  /** Id of doc `d`. Ids are cut from idText only when asked: a query needs a handful. */
  idAt(d: number): string {
    return this.idText.slice(this.idOffsets[d], this.idOffsets[d + 1]);
  }

  get ids(): readonly string[] {
    if (!this.idList) {
      const list = new Array<string>(this.docCount);
      for (let d = 0; d < list.length; d++) list[d] = this.idAt(d);
      this.idList = list;
    }
    return this.idList;
  }

  get termCount(): number {
    return this.termOffsets.length - 1;
  }

  /** Term number of `term`, or -1. Binary search over the sorted term table. */
  findTerm(term: string): number {
    const { terms, termOffsets } = this;
    let lo = 0;
    let hi = termOffsets.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = terms.slice(termOffsets[mid], termOffsets[mid + 1]);
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** Narrows a Bm25Segment to the implementation (segments only come from this module). */
export function segmentData(seg: Bm25Segment): SegmentData {
  if (seg instanceof SegmentData) return seg;
  throw new TkomaError('INTERNAL', 'Not a BM25 segment made by buildSegment or decodeSegment.');
}
