/**
 * A BM25 segment opened from its file without reading its postings. A query touches the postings
 * of its few terms, while the postings of every term are nine tenths of the file (5 MB of 5.5 at
 * SciFact scale): reading and checking them all was most of what opening a segment cost a cold
 * search. Opening reads and checks everything else (header, sizes, lengths, offsets, ids, terms;
 * ASCII ids stay bytes, each id made a string when asked for);
 * a term's postings are read when a query first asks for them, checked as decodeSegment checks
 * them, and kept. A damaged posting list throws DAMAGED_STATE when it is read, so nothing is ever
 * read out of range or trusted unchecked.
 *
 * The file stays open for the segment's lifetime: segment files are replaced by rename, never
 * rewritten, so the descriptor keeps reading the bytes the segment was opened from even after a
 * compaction removes the name. It is closed when the segment is garbage collected.
 */
import { Buffer } from 'node:buffer';
import { closeSync } from 'node:fs';

import { damaged, decodeFront, decodeTermPostings, HEADER, readHeader, type SegmentFront, type SegmentHeader } from './format.js';
import { type Bm25Segment, SegmentData } from './segment-data.js';
import { closeWhenCollected, openRegular, readFully } from '../../regular-file.js';

export interface TermPostings {
  /** Doc numbers, ascending. */
  docs: Uint32Array;
  /** Weighted term frequency per doc of `docs`. */
  tfs: Float32Array;
}

/** `length` bytes at `position`, or DAMAGED_STATE when the file ends first. */
function readAt(fd: number, length: number, position: number): Uint8Array {
  // Own buffer, offset 0: typed views of it are aligned.
  const out = new Uint8Array(length);
  let got: number;
  try {
    got = readFully(fd, out, position, length, 0);
  } catch (err) {
    // An I/O error is the file's damage too: the caller's repair path handles it.
    throw damaged(`unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (got < length) throw damaged('shorter than when it was opened');
  return out;
}

const EMPTY_DOCS = new Uint32Array(0);
const EMPTY_TFS = new Float32Array(0);

/** A segment whose postings stay in its file until a query asks for a term's. */
export class FileSegment extends SegmentData {
  private readonly read = new Map<number, TermPostings>();
  /** The ids' bytes when they are ASCII (decodeFront's idsAsBytes): an id is cut when asked for. */
  private readonly idAscii: Buffer | undefined;

  constructor(
    private readonly header: SegmentHeader,
    front: SegmentFront,
    private readonly fd: number,
  ) {
    super(front.idText, front.idOffsets, front.weights, front.docLen, front.termText, front.termOffsets, front.postStart, EMPTY_DOCS, EMPTY_TFS, front.totalLen);
    const b = front.idBytes;
    this.idAscii = b && front.idText === undefined ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : undefined;
  }

  override idAt(d: number): string {
    if (!this.idAscii) return super.idAt(d);
    return this.idAscii.toString('latin1', this.idOffsets[d], this.idOffsets[d + 1]);
  }

  protected override decodeIdText(): string {
    return this.idAscii!.toString('latin1');
  }

  /** The ids' UTF-8 when kept as bytes (they are ASCII), else undefined: digestIds hashes these. */
  idUtf8(): Uint8Array | undefined {
    return this.idAscii;
  }

  /** Postings of term `t` (a term number of this segment), read and checked once. */
  postings(t: number): TermPostings {
    let p = this.read.get(t);
    if (!p) {
      const start = this.postStart[t]!;
      const n = this.postStart[t + 1]! - start;
      const bytes = new Uint8Array(8 * n);
      if (n > 0) {
        bytes.set(readAt(this.fd, 4 * n, this.header.at.postDocs + 4 * start), 0);
        bytes.set(readAt(this.fd, 4 * n, this.header.at.postTf + 4 * start), 4 * n);
      }
      p = decodeTermPostings(bytes, Uint32Array.of(0, n), this.docCount, t);
      this.read.set(t, p);
    }
    return p;
  }

  /** Every posting, checked: an in-memory segment equal to this one (encoding, verifying). */
  whole(): SegmentData {
    const { postings, at } = this.header;
    const bytes = new Uint8Array(8 * postings);
    if (postings > 0) {
      bytes.set(readAt(this.fd, 4 * postings, at.postDocs), 0);
      bytes.set(readAt(this.fd, 4 * postings, at.postTf), 4 * postings);
    }
    const all = decodeTermPostings(bytes, this.postStart, this.docCount, 0);
    return new SegmentData(this.idText, this.idOffsets, this.fieldWeights, this.docLen, this.terms, this.termOffsets, this.postStart, all.docs, all.tfs, this.totalLen);
  }
}

/** True for a segment whose postings are still (partly) in its file. */
export function isFileSegment(seg: Bm25Segment): boolean {
  return seg instanceof FileSegment;
}

/** Postings of term `t` of `s`, wherever they are kept. */
export function termPostings(s: SegmentData, t: number): TermPostings {
  if (s instanceof FileSegment) return s.postings(t);
  const start = s.postStart[t]!;
  const end = s.postStart[t + 1]!;
  return { docs: s.postDocs.subarray(start, end), tfs: s.postTf.subarray(start, end) };
}

/**
 * Opens a segment file: header, lengths, offsets, ids and terms read and checked, postings left
 * in the file. Throws DAMAGED_STATE for a damaged file and the fs error for a missing one.
 */
export function openSegmentFile(file: string): Bm25Segment {
  const { fd, size } = openRegular(file);
  try {
    const h = readHeader(size >= HEADER ? readAt(fd, HEADER, 0) : new Uint8Array(0), size);
    const front = readAt(fd, h.at.postDocs, 0);
    const texts = readAt(fd, h.at.total - h.at.ids, h.at.ids);
    const seg = new FileSegment(h, decodeFront(h, front, texts, true), fd);
    closeWhenCollected(seg, fd);
    return seg;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
