/**
 * Binary storage of a BM25 segment: a 64-byte header, then little-endian typed-array sections,
 * each starting on an 8-byte boundary so decoding can view them in place instead of copying.
 *
 *   header   magic "TKBM25SG", u32 version, docCount, termCount, postingCount, fieldCount,
 *            idsBytes, idsChars, termsBytes, termsChars, totalBytes, 12 reserved bytes
 *   f64[fieldCount]     field weights
 *   f32[docCount]       weighted doc lengths
 *   u32[docCount+1]     id offsets (UTF-16 units into the decoded id string)
 *   u32[termCount+1]    term offsets (UTF-16 units into the decoded term string)
 *   u32[termCount+1]    posting start per term
 *   u32[postingCount]   posting doc numbers
 *   f32[postingCount]   posting weighted tf
 *   utf8[idsBytes]      all ids concatenated
 *   utf8[termsBytes]    all terms concatenated, sorted
 *
 * Decoding validates every count, offset and doc number, so a truncated, padded, garbage or
 * other-version buffer throws DAMAGED_STATE (the caller rebuilds) and search never reads out of
 * range.
 */
import { isAscii } from 'node:buffer';

import { TkomaError } from '../../errors.js';
import { SegmentData, segmentData, type Bm25Segment } from './segment-data.js';

const MAGIC = 'TKBM25SG';
/** Bump on any layout or term-pipeline change: older segments must be rebuilt, not misread. */
export const BM25_FORMAT_VERSION = 1;
export const HEADER = 64;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const align8 = (n: number): number => (n + 7) & ~7;

export interface Layout {
  weights: number;
  docLen: number;
  idOffsets: number;
  termOffsets: number;
  postStart: number;
  postDocs: number;
  postTf: number;
  ids: number;
  terms: number;
  total: number;
}

function layout(docs: number, terms: number, postings: number, fields: number, idsBytes: number, termsBytes: number): Layout {
  const weights = HEADER;
  const docLen = align8(weights + 8 * fields);
  const idOffsets = align8(docLen + 4 * docs);
  const termOffsets = align8(idOffsets + 4 * (docs + 1));
  const postStart = align8(termOffsets + 4 * (terms + 1));
  const postDocs = align8(postStart + 4 * (terms + 1));
  const postTf = align8(postDocs + 4 * postings);
  const ids = align8(postTf + 4 * postings);
  const termsAt = ids + idsBytes;
  return { weights, docLen, idOffsets, termOffsets, postStart, postDocs, postTf, ids, terms: termsAt, total: termsAt + termsBytes };
}

type Typed = Uint32Array | Float32Array | Float64Array;

function put(out: Uint8Array, view: DataView, at: number, arr: Typed): void {
  if (LITTLE_ENDIAN) {
    out.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), at);
    return;
  }
  const size = arr.BYTES_PER_ELEMENT;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i]!;
    if (arr instanceof Float64Array) view.setFloat64(at + i * 8, v, true);
    else if (arr instanceof Float32Array) view.setFloat32(at + i * size, v, true);
    else view.setUint32(at + i * size, v, true);
  }
}

export function encodeSegment(seg: Bm25Segment): Uint8Array {
  const parts = encodeSegmentParts(seg);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** `arr`'s bytes, little-endian: a view of it on a little-endian host, else a converted copy. */
function littleEndianBytes(arr: Uint32Array | Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  const out = new Uint8Array(arr.byteLength);
  put(out, new DataView(out.buffer), 0, arr);
  return out;
}

/**
 * encodeSegment's bytes in pieces, back to back: the posting arrays, most of a segment, are views
 * of the segment's own arrays, so writing the pieces one after another never holds a second copy
 * of them (a whole encoded segment was a fifth of a large create's external memory at its peak).
 */
export function encodeSegmentParts(seg: Bm25Segment): Uint8Array[] {
  const s = withPostings(segmentData(seg));
  const postings = s.postDocs.length;
  const { head, idBytes, termBytes, at: L } = encodeFront({ ...frontOf(s), postings });
  const zeros = (n: number): Uint8Array => new Uint8Array(n);
  return [
    head,
    littleEndianBytes(s.postDocs),
    zeros(L.postTf - (L.postDocs + 4 * postings)),
    littleEndianBytes(s.postTf),
    zeros(L.ids - (L.postTf + 4 * postings)),
    idBytes,
    termBytes,
  ].filter((part) => part.byteLength > 0);
}

/** Everything of a segment but its postings, and how many postings it has. */
export interface SegmentFrontParts {
  docCount: number;
  termCount: number;
  postings: number;
  fieldWeights: Float64Array;
  docLen: Float32Array;
  idText: string;
  idOffsets: Uint32Array;
  terms: string;
  termOffsets: Uint32Array;
  postStart: Uint32Array;
}

function frontOf(s: SegmentData): Omit<SegmentFrontParts, 'postings'> {
  const { docCount, termCount, fieldWeights, docLen, idText, idOffsets, terms, termOffsets, postStart } = s;
  return { docCount, termCount, fieldWeights, docLen, idText, idOffsets, terms, termOffsets, postStart };
}

/**
 * The bytes of a segment before its postings (header to postStart, padding included), the ids' and
 * terms' UTF-8, and where each section goes: a build that spilled its postings writes them
 * itself, in between (spill.ts).
 */
export function encodeFront(s: SegmentFrontParts): { head: Uint8Array; idBytes: Uint8Array; termBytes: Uint8Array; at: Layout } {
  const joinedIds = s.idText;
  // Offsets are UTF-16 units of the decoded text: a lone surrogate would not survive UTF-8.
  if (LONE_SURROGATE.test(joinedIds) || LONE_SURROGATE.test(s.terms)) {
    throw new TkomaError('INTERNAL', 'BM25 ids and terms must be well-formed Unicode.');
  }
  const enc = new TextEncoder();
  const idBytes = enc.encode(joinedIds);
  const termBytes = enc.encode(s.terms);
  const { postings } = s;
  const L = layout(s.docCount, s.termCount, postings, s.fieldWeights.length, idBytes.length, termBytes.length);
  // Everything before the postings, padding included, in one small buffer.
  const head = new Uint8Array(L.postDocs);
  const view = new DataView(head.buffer);
  for (let i = 0; i < MAGIC.length; i++) head[i] = MAGIC.charCodeAt(i);
  const header = [BM25_FORMAT_VERSION, s.docCount, s.termCount, postings, s.fieldWeights.length,
    idBytes.length, joinedIds.length, termBytes.length, s.terms.length, L.total];
  header.forEach((v, i) => view.setUint32(8 + 4 * i, v, true));
  put(head, view, L.weights, s.fieldWeights);
  put(head, view, L.docLen, s.docLen);
  put(head, view, L.idOffsets, s.idOffsets);
  put(head, view, L.termOffsets, s.termOffsets);
  put(head, view, L.postStart, s.postStart);
  return { head, idBytes, termBytes, at: L };
}

/** `s` with every posting in memory: a segment opened from a file (segment-file.ts) reads the rest. */
function withPostings(s: SegmentData): SegmentData {
  if (s.postDocs.length === s.postStart[s.termCount]) return s;
  return (s as SegmentData & { whole(): SegmentData }).whole();
}

export function damaged(message: string, details: Record<string, unknown> = {}): TkomaError {
  return new TkomaError('DAMAGED_STATE', `The BM25 index segment is damaged: ${message}; rebuild the index.`, details);
}

type Kind = 'u32' | 'f32' | 'f64';
const CTORS = { u32: Uint32Array, f32: Float32Array, f64: Float64Array } as const;

/** A typed view of `n` elements at `at`; copied when unaligned or on a big-endian host. */
function read(bytes: Uint8Array, at: number, n: number, kind: 'u32'): Uint32Array;
function read(bytes: Uint8Array, at: number, n: number, kind: 'f32'): Float32Array;
function read(bytes: Uint8Array, at: number, n: number, kind: 'f64'): Float64Array;
function read(bytes: Uint8Array, at: number, n: number, kind: Kind): Typed {
  const Ctor = CTORS[kind];
  const size = Ctor.BYTES_PER_ELEMENT;
  const offset = bytes.byteOffset + at;
  if (LITTLE_ENDIAN && offset % size === 0) return new Ctor(bytes.buffer as ArrayBuffer, offset, n);
  const out = new Ctor(n);
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(bytes.subarray(at, at + n * size));
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) {
    const p = at + i * size;
    out[i] = kind === 'f64' ? view.getFloat64(p, true) : kind === 'f32' ? view.getFloat32(p, true) : view.getUint32(p, true);
  }
  return out;
}

/** Offsets must start at 0, never decrease and end exactly at `end`. */
function checkOffsets(offsets: Uint32Array, end: number, what: string): void {
  if (offsets[0] !== 0 || offsets[offsets.length - 1] !== end) throw damaged(`${what} do not span their data`);
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! < offsets[i - 1]!) throw damaged(`${what} go backwards`, { at: i });
  }
}

function decodeText(bytes: Uint8Array, what: string, chars: number): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw damaged(`${what} are not UTF-8`);
  }
  if (text.length !== chars) throw damaged(`${what} have the wrong length`);
  return text;
}

/** Counts and section offsets from a segment's 64-byte header, checked against the file's size. */
export function readHeader(bytes: Uint8Array, fileSize: number): SegmentHeader {
  if (!(bytes instanceof Uint8Array) || bytes.length < HEADER || fileSize < HEADER) throw damaged('too short for a header', { bytes: fileSize });
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC.charCodeAt(i)) throw damaged('not a BM25 segment (bad magic)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (i: number): number => view.getUint32(8 + 4 * i, true);
  const version = u32(0);
  if (version !== BM25_FORMAT_VERSION) {
    throw damaged(`format version ${version}, expected ${BM25_FORMAT_VERSION}`, { version, expected: BM25_FORMAT_VERSION });
  }
  const [docs, terms, postings, fields, idsBytes, idsChars, termsBytes, termsChars, total] =
    [1, 2, 3, 4, 5, 6, 7, 8, 9].map(u32) as [number, number, number, number, number, number, number, number, number];
  const L = layout(docs, terms, postings, fields, idsBytes, termsBytes);
  if (total !== fileSize || L.total !== fileSize) {
    throw damaged('size does not match its header (truncated?)', { bytes: fileSize, expected: L.total });
  }
  return { docs, terms, postings, fields, idsBytes, idsChars, termsBytes, termsChars, at: L };
}

export interface SegmentHeader {
  docs: number;
  terms: number;
  postings: number;
  fields: number;
  idsBytes: number;
  idsChars: number;
  termsBytes: number;
  termsChars: number;
  /** Byte offset of each section in the file. */
  at: Layout;
}

/** Everything of a segment but its postings, checked: what a query needs before it picks terms. */
export interface SegmentFront {
  weights: Float64Array;
  docLen: Float32Array;
  totalLen: number;
  idOffsets: Uint32Array;
  termOffsets: Uint32Array;
  postStart: Uint32Array;
  /** Undefined when the ids were kept as bytes (idBytes). */
  idText: string | undefined;
  /** The ids' bytes, when all ASCII and asked for as bytes: UTF-16 offsets are byte offsets then. */
  idBytes?: Uint8Array;
  termText: string;
}

/**
 * The sections before the postings from `front` (the file's bytes from 0, at least up to the
 * postings) and the ids and terms from `texts` (the file's bytes from the ids on), checked.
 * `idsAsBytes`: ids that are all ASCII stay bytes (a search needs a handful of its 300k ids, and
 * making the 6 MB string was most of opening a big segment); they pass the same checks, since
 * ASCII is UTF-8 whose length in UTF-16 units is its length in bytes.
 */
export function decodeFront(h: SegmentHeader, front: Uint8Array, texts: Uint8Array, idsAsBytes = false): SegmentFront {
  const L = h.at;
  const weights = read(front, L.weights, h.fields, 'f64');
  for (const w of weights) if (!(w >= 0 && Number.isFinite(w))) throw damaged('bad field weight');
  const docLen = read(front, L.docLen, h.docs, 'f32');
  // Checked and summed in one pass (the sum in doc order, as SegmentData would make it).
  let totalLen = 0;
  for (let i = 0; i < h.docs; i++) {
    const v = docLen[i]!;
    if (!(v >= 0 && v < Infinity)) throw damaged('bad doc length', { doc: i });
    totalLen += v;
  }
  const idOffsets = read(front, L.idOffsets, h.docs + 1, 'u32');
  checkOffsets(idOffsets, h.idsChars, 'id offsets');
  const termOffsets = read(front, L.termOffsets, h.terms + 1, 'u32');
  checkOffsets(termOffsets, h.termsChars, 'term offsets');
  const postStart = read(front, L.postStart, h.terms + 1, 'u32');
  checkOffsets(postStart, h.postings, 'posting starts');
  const idBytes = texts.subarray(0, h.idsBytes);
  const termText = decodeText(texts.subarray(h.idsBytes, h.idsBytes + h.termsBytes), 'terms', h.termsChars);
  if (idsAsBytes && h.idsBytes === h.idsChars && isAscii(idBytes)) {
    return { weights, docLen, totalLen, idOffsets, termOffsets, postStart, idText: undefined, idBytes, termText };
  }
  const idText = decodeText(idBytes, 'ids', h.idsChars);
  return { weights, docLen, totalLen, idOffsets, termOffsets, postStart, idText, termText };
}

/** The segment views `bytes` in place where it can: do not modify the buffer afterwards. */
export function decodeSegment(bytes: Uint8Array): Bm25Segment {
  const h = readHeader(bytes, bytes?.length ?? 0);
  const L = h.at;
  const f = decodeFront(h, bytes, bytes.subarray(L.ids));
  const postDocs = read(bytes, L.postDocs, h.postings, 'u32');
  const postTf = read(bytes, L.postTf, h.postings, 'f32');
  checkPostings(f.postStart, postDocs, postTf, h.docs);
  return new SegmentData(f.idText, f.idOffsets, f.weights, f.docLen, f.termText, f.termOffsets, f.postStart, postDocs, postTf, f.totalLen);
}

/**
 * Postings read from a file as `n` doc numbers then `n` tf values (n = the last of `postStart`,
 * which delimits terms from `firstTerm` on), checked as decodeSegment checks them.
 */
export function decodeTermPostings(bytes: Uint8Array, postStart: Uint32Array, docs: number, firstTerm: number): { docs: Uint32Array; tfs: Float32Array } {
  const n = postStart[postStart.length - 1]! - postStart[0]!;
  if (bytes.length !== 8 * n) throw damaged('posting bytes do not match their count');
  const postDocs = read(bytes, 0, n, 'u32');
  const postTf = read(bytes, 4 * n, n, 'f32');
  checkPostings(postStart, postDocs, postTf, docs, firstTerm);
  return { docs: postDocs, tfs: postTf };
}

/** Doc numbers strictly ascending inside each term and in range; tf positive and finite. */
function checkPostings(postStart: Uint32Array, postDocs: Uint32Array, postTf: Float32Array, docs: number, firstTerm = 0): void {
  for (let t = 0; t + 1 < postStart.length; t++) {
    let prev = -1;
    for (let p = postStart[t]!, end = postStart[t + 1]!; p < end; p++) {
      const d = postDocs[p]!;
      if (d <= prev || d >= docs) throw damaged('bad posting doc number', { term: firstTerm + t, posting: p });
      prev = d;
      const tf = postTf[p]!;
      if (!(tf > 0 && tf < Infinity)) throw damaged('bad posting frequency', { term: firstTerm + t, posting: p });
    }
  }
}
