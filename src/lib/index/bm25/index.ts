/**
 * The BM25F engine as one package: build immutable segments from documents, encode/decode them
 * to a compact binary form, and score a query over several segments as one corpus. It knows
 * nothing of topics, files or git; the per-topic store (src/lib/index/) decides what a document
 * is and which docs are live. Design notes: DESIGN.md next to this file.
 */
export { buildSegment, SegmentBuilder } from './segment.js';
export { DEFAULT_BUILD, type Bm25BuildParams, type Bm25Doc, type Bm25Segment } from './segment-data.js';
export { BM25_FORMAT_VERSION, decodeSegment, encodeSegment, encodeSegmentParts } from './format.js';
export { isFileSegment, openSegmentFile } from './segment-file.js';
export {
  type Bm25Hit,
  type Bm25QueryParams,
  DEFAULT_QUERY,
  searchSegments,
  segmentFieldWeights,
  segmentIdParts,
  type SegmentView,
} from './query.js';
export {
  createTermProcessor,
  createTokenizer,
  DEFAULT_TERMS,
  DEFAULT_TOKENIZER,
  processTerm,
  type TermOptions,
  tokenize,
  type TokenizerOptions,
} from './tokenize.js';
