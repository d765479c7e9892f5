/**
 * Immutable chunk segments of a topic's index. A sync writes the chunks of the files it
 * (re)indexed as one new segment instead of rewriting the topic: a one-file edit in a 100k-chunk
 * topic costs a few small files. Which chunks of a segment are live is decided by the head's file
 * table (a file's chunks live in the segment its entry names), so a segment is never edited.
 *
 * ```
 * seg-<g>.json  chunk records in doc order, without their text, as tuples: {format, generation, paths, chunks}
 * seg-<g>.txt   the chunk texts, UTF-8, back to back (records hold byte offset and length)
 * seg-<g>.lex   binary BM25 segment over the same docs (bm25/)
 * ```
 * Texts live apart from the records because only a handful are read per query (snippets), and
 * parsing them with the records cost most of a cold search's time.
 */
import { open, readFile, rm, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import type { Chunk } from '../chunking/types.js';
import type { Bm25Doc, Bm25Segment } from './bm25/index.js';
import { isRecord, readJsonSafe, topicIndexDir, writeFileAtomic, writeJsonAtomic } from './layout.js';

const SEGMENT_FORMAT = 2; // 2: records as tuples over a path table (a third of the JSON)

/** A chunk as the sync produces it: the chunker's record plus its id. */
export interface ChunkRecord extends Chunk {
  /** `<path>#<ordinal in file>`: stable while the file's chunking is unchanged. */
  id: string;
}

/** A chunk as the index keeps it: no text, but where to read it. */
export interface StoredChunk extends Omit<ChunkRecord, 'text'> {
  /** Generation of the segment holding it. */
  seg: number;
  /** Byte offset and length of the text in `seg-<g>.txt`. */
  off: number;
  len: number;
}

export interface Segment {
  gen: number;
  records: StoredChunk[];
  lex: Bm25Segment;
}

export const segmentFile = (root: string, topic: string, gen: number, ext: 'json' | 'txt' | 'lex'): string =>
  join(topicIndexDir(root, topic), `seg-${gen}.${ext}`);

/** What BM25 indexes of a chunk (field order matches bm25's DEFAULT_BUILD weights). */
export function lexicalDocOf(c: Pick<ChunkRecord, 'id' | 'title' | 'symbol' | 'path'>, text: string): Bm25Doc {
  return { id: c.id, fields: [c.title, c.symbol ?? '', c.path, text] };
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
  const { buildSegment, encodeSegment } = await import('./bm25/index.js');
  const records: StoredChunk[] = [];
  let off = 0;
  for (const c of chunks) {
    const len = Buffer.byteLength(c.text, 'utf8');
    const { text: _text, ...rest } = c;
    records.push({ ...rest, seg: gen, off, len });
    off += len;
  }
  // One buffer written in place: a buffer per chunk and then their concatenation held the
  // texts twice at the peak of a create's memory.
  const txt = Buffer.allocUnsafe(off);
  for (let i = 0; i < chunks.length; i++) txt.write(chunks[i]!.text, records[i]!.off, 'utf8');
  const lex = built ?? buildSegment(chunks.map((c) => lexicalDocOf(c, c.text)));
  await writeFileAtomic(segmentFile(root, topic, gen, 'txt'), txt);
  await writeJsonAtomic(segmentFile(root, topic, gen, 'json'), encodeRecords(gen, records));
  await writeFileAtomic(segmentFile(root, topic, gen, 'lex'), encodeSegment(lex));
  const seg = { gen, records, lex };
  remember(root, topic, seg);
  return seg;
}

/**
 * Records on disk: one tuple per chunk over a table of paths, because parsing 65k keyed objects
 * (22 MB) was the biggest cost of a cold search after an edit. Tuple: [path index, ordinal,
 * startLine, endLine, role, title, symbol or null, kind, language, hash, text offset, text length].
 */
type RecordTuple = [number, number, number, number, string, string, string | null, string, string, string, number, number];

function encodeRecords(gen: number, records: readonly StoredChunk[]): unknown {
  const paths: string[] = [];
  const index = new Map<string, number>();
  const chunks: RecordTuple[] = records.map((r) => {
    let p = index.get(r.path);
    if (p === undefined) {
      p = paths.length;
      paths.push(r.path);
      index.set(r.path, p);
    }
    const ordinal = Number(r.id.slice(r.id.lastIndexOf('#') + 1));
    return [p, ordinal, r.startLine, r.endLine, r.role, r.title, r.symbol ?? null, r.kind, r.language, r.hash, r.off, r.len];
  });
  return { format: SEGMENT_FORMAT, generation: gen, paths, chunks };
}

function decodeRecords(gen: number, paths: unknown[], tuples: unknown[]): StoredChunk[] | null {
  if (!paths.every((p) => typeof p === 'string')) return null;
  const out: StoredChunk[] = new Array(tuples.length);
  for (let i = 0; i < tuples.length; i++) {
    const t = tuples[i];
    if (!Array.isArray(t) || t.length !== 12) return null;
    const [p, ordinal, startLine, endLine, role, title, symbol, kind, language, hash, off, len] = t as RecordTuple;
    const path = paths[p] as string | undefined;
    if (path === undefined || typeof ordinal !== 'number' || typeof startLine !== 'number' || typeof endLine !== 'number') return null;
    if (typeof hash !== 'string' || typeof off !== 'number' || typeof len !== 'number' || typeof title !== 'string') return null;
    // One fixed object shape (symbol may be undefined): 65k records build several times faster.
    out[i] = { id: path + '#' + ordinal, path, startLine, endLine, role: role as StoredChunk['role'], title, symbol: symbol ?? undefined, kind, language, hash, seg: gen, off, len };
  }
  return out;
}

export async function readSegmentRecords(root: string, topic: string, gen: number): Promise<StoredChunk[] | null> {
  const cached = cache.get(cacheKey(root, topic, gen));
  if (cached) return cached.records;
  const stored = await readJsonSafe(segmentFile(root, topic, gen, 'json'), (v): v is { generation: number; paths: unknown[]; chunks: unknown[] } =>
    isRecord(v) && v.format === SEGMENT_FORMAT && typeof v.generation === 'number' && Array.isArray(v.paths) && Array.isArray(v.chunks),
  );
  if (!stored || stored.generation !== gen) return null;
  return decodeRecords(gen, stored.paths, stored.chunks);
}

export interface SegmentLoad {
  segment: Segment;
  /** The lexical part was missing or damaged and was rebuilt from the texts (not yet saved). */
  lexRebuilt: boolean;
}

/** A segment from disk (or the cache). Null when its records or texts are unusable. */
export async function loadSegment(root: string, topic: string, gen: number): Promise<SegmentLoad | null> {
  const cached = cache.get(cacheKey(root, topic, gen));
  if (cached) return { segment: cached, lexRebuilt: false };
  const records = await readSegmentRecords(root, topic, gen);
  if (!records) return null;
  // A text file of the wrong size (truncated, replaced) would serve wrong snippets: unusable.
  const textBytes = records.reduce((n, r) => n + r.len, 0);
  const st = await stat(segmentFile(root, topic, gen, 'txt')).catch(() => null);
  if (!st || st.size !== textBytes) return null;
  const { buildSegment, decodeSegment, DEFAULT_BUILD, segmentFieldWeights } = await import('./bm25/index.js');
  let lex: Bm25Segment | null;
  try {
    const bytes = await readFile(segmentFile(root, topic, gen, 'lex'));
    lex = decodeSegment(bytes);
    if (lex.docCount !== records.length || lex.ids.some((id, i) => id !== records[i]!.id)) lex = null;
    // Built with other field weights (an older version of the tool): scores would not mix.
    else if (segmentFieldWeights(lex).join() !== DEFAULT_BUILD.fieldWeights.join()) lex = null;
  } catch {
    lex = null; // missing or DAMAGED_STATE: rebuilt from the texts below
  }
  let lexRebuilt = false;
  if (!lex) {
    const texts = await readTexts(root, topic, gen, records);
    if (!texts) return null;
    lex = buildSegment(records.map((r, i) => lexicalDocOf(r, texts[i]!)));
    lexRebuilt = true;
  }
  const segment = { gen, records, lex };
  if (!lexRebuilt) remember(root, topic, segment);
  return { segment, lexRebuilt };
}

/** Rewrites a segment's lexical file (after loadSegment rebuilt it). */
export async function saveSegmentLex(root: string, topic: string, segment: Segment): Promise<void> {
  const { encodeSegment } = await import('./bm25/index.js');
  await writeFileAtomic(segmentFile(root, topic, segment.gen, 'lex'), encodeSegment(segment.lex));
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
    buf = await readFile(segmentFile(root, topic, gen, 'txt'));
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
 */
export async function chunkTexts(root: string, topic: string, chunks: readonly StoredChunk[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const bySeg = new Map<number, StoredChunk[]>();
  for (const c of chunks) bySeg.set(c.seg, [...(bySeg.get(c.seg) ?? []), c]);
  for (const [gen, list] of bySeg) {
    const fh = await open(segmentFile(root, topic, gen, 'txt'), 'r').catch(() => null);
    try {
      // Reads in parallel: a 100-hit answer waited on 100 reads one after another.
      const texts = await Promise.all(
        list.map(async (c) => {
          if (!fh || c.len <= 0) return '';
          const buf = Buffer.alloc(c.len);
          const { bytesRead } = await fh.read(buf, 0, c.len, c.off);
          // The record's hash is the text's sha256: a damaged text file never serves wrong text.
          return bytesRead === c.len && createHash('sha256').update(buf).digest('hex') === c.hash ? buf.toString('utf8') : '';
        }),
      );
      list.forEach((c, i) => out.set(c.id, texts[i]!));
    } finally {
      await fh?.close();
    }
  }
  return out;
}

export async function removeSegmentFiles(root: string, topic: string, gen: number): Promise<void> {
  cache.delete(cacheKey(root, topic, gen));
  for (const ext of ['lex', 'json', 'txt'] as const) await rm(segmentFile(root, topic, gen, ext), { force: true });
}
