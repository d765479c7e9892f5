/**
 * Immutable chunk segments of a topic's index. A sync writes the chunks of the files it
 * (re)indexed as one new segment instead of rewriting the topic: a one-file edit in a 100k-chunk
 * topic costs a few small files. Which chunks of a segment are live is decided by the head's file
 * table (a file's chunks live in the segment its entry names), so a segment is never edited.
 *
 * ```
 * seg-<g>.rec   chunk records in doc order, without their text, binary (segment-records.ts)
 * seg-<g>.txt   the chunk texts, UTF-8, back to back (records hold byte offset and length)
 * seg-<g>.lex   binary BM25 segment over the same docs (bm25/)
 * ```
 * Texts live apart from the records because only a handful are read per query (snippets), and
 * parsing them with the records cost most of a cold search's time.
 */
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import type { Chunk } from '../chunking/types.js';
import type { Bm25Doc, Bm25Segment } from './bm25/index.js';
import { lexicalFields } from './lexical-fields.js';
import { tempName, topicIndexDir, writeFileAtomic } from './layout.js';
import { digestIds, RecordsEncoder, SegmentRecords, type StoredChunk } from './segment-records.js';
import type { TopicHead } from './topic-index.js';
import { openRegular, readRegular, readRegularOrNull, writeFully } from '../regular-file.js';

export type { StoredChunk } from './segment-records.js';

/** A chunk as the sync produces it: the chunker's record plus its id. */
export interface ChunkRecord extends Chunk {
  /** `<path>#<ordinal in file>`: stable while the file's chunking is unchanged. */
  id: string;
}

export interface Segment {
  gen: number;
  records: SegmentRecords;
  lex: Bm25Segment;
}

/** The files of one segment; `rec` replaced the JSON records (`json`), which only cleanup still names. */
export const SEGMENT_EXTENSIONS = ['rec', 'txt', 'lex', 'json'] as const;

export const segmentFile = (root: string, topic: string, gen: number, ext: (typeof SEGMENT_EXTENSIONS)[number]): string =>
  join(topicIndexDir(root, topic), `seg-${gen}.${ext}`);

/** What BM25 indexes of a chunk. */
export function lexicalDocOf(c: Pick<ChunkRecord, 'id' | 'title' | 'symbol' | 'path'>, text: string): Bm25Doc {
  return { id: c.id, fields: lexicalFields(c, c.path, text) };
}

// Segments never change once written, so a process that searches repeatedly (serve, watch, a
// sync followed by its search) decodes each one once. Bounded: a 100k-chunk segment is tens of MB.
const SEGMENT_CACHE_SIZE = 32;
const cache = new Map<string, Segment>();
const cacheKey = (root: string, topic: string, gen: number): string => `${root}\u0000${topic}\u0000${gen}`;

function remember(root: string, topic: string, seg: Segment): void {
  const key = cacheKey(root, topic, seg.gen);
  cache.delete(key);
  cache.set(key, seg);
  while (cache.size > SEGMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
}

export function forgetSegments(root: string, topic?: string): void {
  const prefix = topic === undefined ? `${root}\u0000` : `${root}\u0000${topic}\u0000`;
  for (const k of [...cache.keys()]) if (k.startsWith(prefix)) cache.delete(k);
}

/**
 * Writes a new segment (text, records, lexical; each atomic) and returns it in memory. `built` is
 * the BM25 segment of exactly these chunks in this order when the caller built it as it went.
 */
export async function writeSegment(root: string, topic: string, gen: number, chunks: readonly ChunkRecord[], built?: Bm25Segment): Promise<Segment> {
  const out = new SegmentWriter(root, topic, gen);
  try {
    for (const c of chunks) out.add(c);
    let lex = built;
    if (!lex) {
      const { buildSegment } = await import('./bm25/index.js');
      lex = buildSegment(chunks.map((c) => lexicalDocOf(c, c.text)));
    }
    return await out.finish(lex);
  } catch (err) {
    out.abort();
    throw err;
  }
}

/** A BM25 build handed over whole (bm25/segment.ts SegmentBuilder): one that spilled is written to its file. */
export interface LexBuild {
  readonly spilled: boolean;
  finish(): Bm25Segment;
  writeFile(file: string): void;
  discard(): void;
}

/** Bytes of the text buffer the writer fills and reuses. */
const TEXT_PIECE = 1 << 20;

/**
 * A segment written as its chunks are cut: each chunk's text goes into the text file (through one
 * reused buffer of TEXT_PIECE bytes) and its record into columns, so neither the texts nor a
 * record object per chunk stay in memory until the end. Holding every text of a create (as
 * strings, and the files they were cut from) with the records and the BM25 build was most of its
 * peak memory. The text file is complete under its temporary name before finish() renames it;
 * records and lexical part are then written as writeSegment always did. The caller aborts a
 * writer it does not finish.
 */
export class SegmentWriter {
  /** Dropped once encoded: its columns and string table were ~100 MB at a million chunks. */
  private records: RecordsEncoder | null = new RecordsEncoder();
  private added = 0;
  /** The text file's temporary name; null once renamed into place (or removed). */
  private tmp: string | null;
  private fd: number | null;
  private readonly buf = Buffer.allocUnsafe(TEXT_PIECE);
  private used = 0;
  /** Bytes of text so far: the next text's offset. */
  private off = 0;

  constructor(
    private readonly root: string,
    private readonly topic: string,
    readonly gen: number,
  ) {
    const file = segmentFile(root, topic, gen, 'txt');
    mkdirSync(dirname(file), { recursive: true });
    this.tmp = tempName(file);
    this.fd = openSync(this.tmp, 'w');
  }

  /** Chunks added so far (the segment's doc count). */
  get count(): number {
    return this.added;
  }

  /** The next doc of the segment: its text is written (or buffered), its record kept as columns. */
  add(c: ChunkRecord): void {
    const len = Buffer.byteLength(c.text, 'utf8');
    if (this.used + len > TEXT_PIECE && this.used > 0) this.flush();
    if (len > TEXT_PIECE) writeFully(this.fd!, Buffer.from(c.text, 'utf8'), null);
    else this.used += this.buf.write(c.text, this.used, 'utf8');
    this.added++;
    this.records!.add({ id: c.id, path: c.path, startLine: c.startLine, endLine: c.endLine, role: c.role, title: c.title, symbol: c.symbol, kind: c.kind, language: c.language, hash: c.hash, off: this.off, len });
    this.off += len;
  }

  /**
   * Completes the text file, then writes records and `lex` (the BM25 segment of exactly the
   * added chunks, in order, or its build) and returns the segment. A build that spilled its
   * postings writes its file itself; the segment then reads them from there, as a search does.
   */
  async finish(lex: Bm25Segment | LexBuild): Promise<Segment> {
    const { encodeSegmentParts, openSegmentFile } = await import('./bm25/index.js');
    const { root, topic, gen } = this;
    const lexFile = segmentFile(root, topic, gen, 'lex');
    if ('writeFile' in lex && !lex.spilled) lex = lex.finish();
    this.flush();
    closeSync(this.fd!);
    this.fd = null;
    renameSync(this.tmp!, segmentFile(root, topic, gen, 'txt'));
    this.tmp = null;
    const recFile = segmentFile(root, topic, gen, 'rec');
    await writeFileAtomic(recFile, this.records!.encodePieces(gen));
    this.records = null;
    // Opened as a search opens them (left on disk when large): the whole file held from here to
    // the head's write was ~80 MB of a million-chunk create's peak.
    const records = await openRecords(root, topic, gen, true);
    if (!records) throw new Error(`segment records unreadable after writing: ${recFile}`);
    if ('writeFile' in lex) {
      const tmp = tempName(lexFile);
      try {
        lex.writeFile(tmp);
        renameSync(tmp, lexFile);
      } catch (err) {
        rmSync(tmp, { force: true });
        lex.discard();
        throw err;
      }
      lex = openSegmentFile(lexFile);
    } else await writeFileAtomic(lexFile, encodeSegmentParts(lex));
    const seg = { gen, records, lex };
    remember(root, topic, seg);
    return seg;
  }

  /** Closes and removes the unfinished text file; after finish() renamed it, does nothing. */
  abort(): void {
    try {
      if (this.fd !== null) closeSync(this.fd);
    } catch {
      // a close that failed in finish(): the descriptor is gone either way
    }
    this.fd = null;
    if (this.tmp !== null) rmSync(this.tmp, { force: true });
    this.tmp = null;
  }

  private flush(): void {
    if (this.used > 0) writeFully(this.fd!, this.buf.subarray(0, this.used), null);
    this.used = 0;
  }
}

const idDigestOf = (p: { text: string | Uint8Array; offsets: Uint32Array }): Buffer => digestIds(p.text, p.offsets);

/** Records files larger than this are left on disk by a search (SegmentRecords.open). */
const RECORDS_ON_DISK_FROM = 1 << 20;

/**
 * A segment's records, decoded lazily; null when missing or damaged. `onDisk`: left in the file,
 * each record read when asked for (what a search wants, SegmentRecords.open); else read whole.
 */
async function openRecords(root: string, topic: string, gen: number, onDisk = false): Promise<SegmentRecords | null> {
  const cached = cache.get(cacheKey(root, topic, gen));
  // Records a search left on disk are read whole for anyone else (a verifying sync checks them all).
  if (cached && (onDisk || !cached.records.onDisk)) return cached.records;
  const file = segmentFile(root, topic, gen, 'rec');
  // A small file is read whole: no descriptor kept open for a few hundred KB.
  if (onDisk) {
    let opened: { fd: number; size: number };
    try {
      opened = openRegular(file);
    } catch {
      return null;
    }
    if (opened.size > RECORDS_ON_DISK_FROM) return SegmentRecords.open(gen, opened.fd, opened.size);
    closeSync(opened.fd);
  }
  const bytes = readRegularOrNull(file);
  return bytes ? SegmentRecords.decode(gen, bytes) : null;
}

/** Every record of a segment as objects, in doc order; null when missing or damaged. */
export async function readSegmentRecords(root: string, topic: string, gen: number): Promise<StoredChunk[] | null> {
  return (await openRecords(root, topic, gen))?.all() ?? null;
}

export interface SegmentLoad {
  segment: Segment;
  /** The lexical part was missing or damaged and was rebuilt from the texts (not yet saved). */
  lexRebuilt: boolean;
}

export interface LoadOptions {
  /**
   * Read and check every posting of the lexical part now (the default: a sync that verifies the
   * index must find damage anywhere). False leaves them in the file, each term's read and checked
   * when a query first asks for it (bm25/segment-file.ts): what a search wants.
   */
  allPostings?: boolean;
}

/** A segment from disk (or the cache). Null when its records or texts are unusable. */
export async function loadSegment(root: string, topic: string, gen: number, opts: LoadOptions = {}): Promise<SegmentLoad | null> {
  const allPostings = opts.allPostings ?? true;
  // The reader's modules only: the builder loads below when a lexical file must be rebuilt.
  const { decodeSegment } = await import('./bm25/format.js');
  const { isFileSegment, openSegmentFile } = await import('./bm25/segment-file.js');
  const { segmentFieldWeights, segmentIdParts } = await import('./bm25/query.js');
  const { DEFAULT_BUILD } = await import('./bm25/segment-data.js');
  const cached = cache.get(cacheKey(root, topic, gen));
  if (cached && !(allPostings && isFileSegment(cached.lex))) return { segment: cached, lexRebuilt: false };
  const records = await openRecords(root, topic, gen, !allPostings);
  if (!records) return null;
  // A text file of the wrong size (truncated, replaced) would serve wrong snippets: unusable.
  // lstat: a link where the text file belongs is damage, whatever it points at.
  const st = lstatSync(segmentFile(root, topic, gen, 'txt'), { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size !== records.textBytes) return null;
  let lex: Bm25Segment | null;
  try {
    const file = segmentFile(root, topic, gen, 'lex');
    lex = allPostings ? decodeSegment(readRegular(file)) : openSegmentFile(file);
    // Same docs in the same order, compared by digest: building 100k id strings twice cost more.
    if (lex.docCount !== records.count || !idDigestOf(segmentIdParts(lex)).equals(records.digest)) lex = null;
    // Built with other field weights (an older version of the tool): scores would not mix.
    else if (segmentFieldWeights(lex).join() !== DEFAULT_BUILD.fieldWeights.join()) lex = null;
  } catch {
    lex = null; // missing or DAMAGED_STATE: rebuilt from the texts below
  }
  let lexRebuilt = false;
  if (!lex) {
    const all = records.all();
    const texts = all ? await readTexts(root, topic, gen, all) : null;
    if (!texts) return null;
    const { buildSegment } = await import('./bm25/segment.js');
    lex = buildSegment(all!.map((r, i) => lexicalDocOf(r, texts[i]!)));
    lexRebuilt = true;
  }
  const segment = { gen, records, lex };
  if (!lexRebuilt) remember(root, topic, segment);
  else cache.delete(cacheKey(root, topic, gen)); // a cached copy whose postings failed their check
  return { segment, lexRebuilt };
}

/** Rewrites a segment's lexical file (after loadSegment rebuilt it). */
export async function saveSegmentLex(root: string, topic: string, segment: Segment): Promise<void> {
  const { encodeSegmentParts } = await import('./bm25/index.js');
  await writeFileAtomic(segmentFile(root, topic, segment.gen, 'lex'), encodeSegmentParts(segment.lex));
  remember(root, topic, segment);
}

/** A segment's chunks with their texts, in doc order (compaction, re-embedding); null when unreadable. */
export async function readSegmentChunks(root: string, topic: string, gen: number): Promise<ChunkRecord[] | null> {
  const records = await readSegmentRecords(root, topic, gen);
  const texts = records ? await readTexts(root, topic, gen, records) : null;
  if (!records || !texts) return null;
  return records.map(({ seg: _seg, off: _off, len: _len, ...rest }, i) => ({ ...rest, text: texts[i]! }));
}

/** Texts of `records` (all of one segment), or null when the text file is missing or short. */
export async function readTexts(root: string, topic: string, gen: number, records: readonly StoredChunk[]): Promise<string[] | null> {
  if (records.length === 0) return [];
  let buf: Buffer;
  try {
    buf = readRegular(segmentFile(root, topic, gen, 'txt'));
  } catch {
    return null;
  }
  const out: string[] = [];
  for (const r of records) {
    if (r.off < 0 || r.off + r.len > buf.length) return null;
    out.push(buf.toString('utf8', r.off, r.off + r.len));
  }
  return out;
}

/**
 * Texts of a few chunks from any segments, by chunk id. A chunk whose text cannot be read gets
 * '' (its segment vanished under a concurrent compaction): the hit still shows, without snippet.
 * Positional reads are synchronous: the texts sit in the page cache after the first query, where
 * a read takes microseconds, while a promise per read through the thread pool cost a 100-hit
 * answer about 2 ms.
 */
export function chunkTexts(root: string, topic: string, chunks: readonly StoredChunk[]): Map<string, string> {
  const out = new Map<string, string>();
  const bySeg = new Map<number, StoredChunk[]>();
  for (const c of chunks) {
    const list = bySeg.get(c.seg);
    if (list) list.push(c);
    else bySeg.set(c.seg, [c]);
  }
  for (const [gen, list] of bySeg) {
    let fd: number | null = null;
    try {
      fd = openRegular(segmentFile(root, topic, gen, 'txt')).fd;
    } catch {
      // missing segment: every text of it is ''
    }
    try {
      for (const c of list) out.set(c.id, fd === null ? '' : readChunkText(fd, c));
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }
  return out;
}

function readChunkText(fd: number, c: StoredChunk): string {
  if (c.len <= 0) return '';
  const buf = Buffer.allocUnsafe(c.len);
  let bytesRead: number;
  try {
    bytesRead = readSync(fd, buf, 0, c.len, c.off);
  } catch {
    return '';
  }
  // The record's hash is the text's sha256: a damaged text file never serves wrong text.
  return bytesRead === c.len && createHash('sha256').update(buf).digest('hex') === c.hash ? buf.toString('utf8') : '';
}

export async function removeSegmentFiles(root: string, topic: string, gen: number): Promise<void> {
  cache.delete(cacheKey(root, topic, gen));
  for (const ext of SEGMENT_EXTENSIONS) await rm(segmentFile(root, topic, gen, ext), { force: true });
}

/** Live chunk records of a head (the file table says which segment holds each file's chunks). */
export async function liveRecords(root: string, topic: string, head: TopicHead): Promise<StoredChunk[] | null> {
  const out: StoredChunk[] = [];
  for (const s of head.segments) {
    const records = await readSegmentRecords(root, topic, s.gen);
    if (!records) return null;
    for (const r of records) {
      if (head.files.get(r.path)?.seg === s.gen) out.push(r);
    }
  }
  return out;
}
