/**
 * One topic's derived index: the head (file table, segment list, vector state) and, in memory,
 * the live chunks of its segments plus the hnsw index.
 *
 * The head is written last and atomically: a crash or a concurrent reader sees either the old
 * head (whose segments are still on disk, or detected as missing) or the new one. A segment
 * whose lexical part is damaged is rebuilt from its texts; damaged records mean re-chunking the
 * topic's files.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { statOrNull } from '../file-memo.js';
import { pidAlive } from '../process.js';
import type { AnnIndex } from './ann.js';
import { FileTable } from './file-table.js';
import { type HeadBytes, type HeadStamp, headPieces, type HotSink, parseHeadLines, readHeadFile } from './head-file.js';
import { MIN_HOT_ROWS, readHotHead, writeHotHead } from './head-hot.js';
import { hotHeadFile, isRecord, topicIndexDir, writeFileAtomic } from './layout.js';
import { LiveChunks } from './live-chunks.js';
import { forgetSegments, type LoadOptions, loadSegment, removeSegmentFiles, type Segment, type StoredChunk } from './segments.js';

// 2: segments; 3: chunk counts instead of id lists; 4: chunker of issue 12 (test blocks, roles,
// no scraps); 5: binary segment records (seg-<g>.rec), so indexes with JSON records are rebuilt;
// 6: the file table as columns (file-table.ts); 7: pages' include directives resolved into their
// chunks' text (chunking/includes.ts), so older indexes are re-chunked.
const TOPIC_FORMAT = 7;

export interface VectorState {
  key: string;
  dimension: number;
  /** Every chunk has a vector of this key (false after a sync without a working embedder). */
  complete: boolean;
  count: number;
}

export interface SegmentInfo {
  gen: number;
  /** Docs written into it (live or not): compaction weighs dead ones against live ones. */
  docs: number;
  /**
   * The digest of its records' ids (segment-records.ts), base64: a reader whose segment has the
   * same knows it is the one the file table's runs (FileEntry.start) were written for. Absent in
   * heads written before it was kept.
   */
  ids?: string;
}

export interface TopicHead {
  format: number;
  topic: string;
  generation: number;
  /** Oldest first; the first is the base a compaction wrote. */
  segments: SegmentInfo[];
  /** Generation of the hnsw part, null when there is none. */
  ann: number | null;
  files: FileTable;
  vectors: VectorState | null;
  /**
   * The topic's files each page includes (chunking/includes.ts), for pages with any: a sync that
   * re-chunks or drops one of them re-chunks the page too.
   */
  includes?: Record<string, string[]>;
}

export interface LiveSegment {
  segment: Segment;
  /** live[doc] === 1 when the doc's file still has its chunks in this segment. */
  live: Uint8Array;
  /** Every doc is live: queries skip the mask (and sum no lengths). */
  allLive: boolean;
}

export interface TopicIndex {
  head: TopicHead;
  /** Live chunks by id (built on lookup). */
  chunks: ReadonlyMap<string, StoredChunk>;
  segments: LiveSegment[];
  ann: AnnIndex | null;
}

const headFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'head.json');
/** head.json's hot part in binary (head-hot.ts): derived from it, used only while it matches. */

/** Writes head.json, then its binary hot part stamped with the file just renamed into place. */
async function writeHead(root: string, id: string, head: TopicHead): Promise<void> {
  const file = headFile(root, id);
  const hot: HotSink = { cols: {} };
  await writeFileAtomic(file, headPieces(head as unknown as Parameters<typeof headPieces>[0], hot));
  if ((hot.cols.path?.length ?? 0) < MIN_HOT_ROWS || hot.fields === undefined || hot.coldFrom === undefined) return;
  const st = await stat(file, { bigint: true }).catch(() => null);
  if (!st) return;
  const stamp: HeadStamp = { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs };
  await writeHotHead(hotHeadFile(root, id), stamp, { fields: hot.fields, cols: hot.cols, coldFrom: hot.coldFrom });
}
export const annMetaFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'ann.json');

/** The head stored in head.json, checked; null when it is of another format or damaged. */
function decodeHead(v: unknown, split?: FileTable | null): TopicHead | null {
  if (!isRecord(v) || v.format !== TOPIC_FORMAT || typeof v.topic !== 'string' || typeof v.generation !== 'number') return null;
  if (!Array.isArray(v.segments) || !v.segments.every((s) => isRecord(s) && typeof s.gen === 'number' && typeof s.docs === 'number' && (s.ids === undefined || typeof s.ids === 'string'))) return null;
  if (v.ann !== null && typeof v.ann !== 'number') return null;
  if (!(v.vectors === null || (isRecord(v.vectors) && typeof v.vectors.key === 'string'))) return null;
  if (v.includes !== undefined && !(isRecord(v.includes) && Object.values(v.includes).every((t) => Array.isArray(t) && t.every((x) => typeof x === 'string')))) return null;
  const files = split === undefined ? FileTable.decode(v.files) : split;
  if (!files) return null;
  return { ...(v as unknown as TopicHead), files };
}

function parseWhole(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

export async function loadHead(root: string, id: string): Promise<TopicHead | null> {
  const file = headFile(root, id);
  const hot = readHotHead(hotHeadFile(root, id), file);
  if (hot) {
    const head = decodeHead(hot.fields, hot.files);
    if (head?.topic === id) return head;
  }
  let read: HeadBytes | null = null;
  try {
    read = readHeadFile(file);
  } catch {
    // missing, a link, not a regular file: no head
  }
  const lines = read ? parseHeadLines(read) : null;
  // Written in lines (head-file.ts): the cold columns wait in the file; else (an older head) parsed whole.
  const head = lines ? decodeHead(lines.fields, lines.files) : decodeHead(read ? parseWhole(wholeOf(read)) : null);
  if (head && !lines) readWhole.add(head);
  if (head?.topic !== id) return null;
  // A head of many files read without its binary copy (an older root, or one a crash left
  // behind): made now from what was just parsed, so the next reader skips the parse.
  if (lines?.hot && lines.coldFrom !== undefined && lines.coldFrom >= 0 && read?.stamp) {
    const { files: _files, ...fields } = lines.fields;
    await writeHotHead(hotHeadFile(root, id), read.stamp, { fields: JSON.stringify(fields), cols: lines.hot, coldFrom: lines.coldFrom });
  }
  return head;
}

const readWhole = new WeakSet<TopicHead>();

/** Every byte of a head read only up to its cold columns (one not in lines after all: hand-made). */
function wholeOf(read: HeadBytes): Buffer {
  if (read.bytes.length === read.size) return read.bytes;
  const rest = read.rest(read.bytes.length);
  return rest ? Buffer.concat([read.bytes, rest]) : read.bytes;
}

/** True for a head read from a head.json written whole (before lines): a sync writes it again in lines. */
export function writtenWhole(head: TopicHead): boolean {
  return readWhole.has(head);
}

// A process that answers many queries (serve) would parse a large topic's head.json (MBs at
// 100k chunks) on every query; it is re-read only when its stat moves. Atomic writes rename a
// new file into place, so the inode changes even when size and mtime happen not to.
const headCache = new Map<string, { ino: number; size: number; mtimeMs: number; head: TopicHead }>();

/** loadHead for readers that never mutate the head: the same object while the file is unchanged. */
export async function loadHeadForReading(root: string, id: string): Promise<TopicHead | null> {
  const file = headFile(root, id);
  // A synchronous stat: every warm answer does this, and a thread-pool round trip cost more.
  const st = statOrNull(file);
  const known = headCache.get(file);
  if (st && known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.head;
  headCache.delete(file);
  const head = st ? await loadHead(root, id) : null;
  // Stat first, read second: a write in between leaves a stale stat, so the next call re-reads.
  if (st && head) headCache.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, head });
  return head;
}


/**
 * The head just written is what loadHeadForReading would parse next: hand it over instead (a
 * search right after its own sync would otherwise parse MBs of JSON twice). Keyed by the stat
 * taken after the write, so a later write by anyone still invalidates it. Callers never mutate a
 * head after saving it.
 */
async function primeHeadCache(root: string, id: string, head: TopicHead): Promise<void> {
  const file = headFile(root, id);
  const st = await stat(file).catch(() => null);
  if (st) headCache.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, head });
}

/** A generation number that only grows, even across a rebuild that starts from nothing. */
export function nextGeneration(previous: number | undefined): number {
  return Math.max((previous ?? 0) + 1, Date.now());
}

export function emptyHead(id: string): TopicHead {
  return { format: TOPIC_FORMAT, topic: id, generation: 0, segments: [], ann: null, files: FileTable.empty(), vectors: null };
}

/** Live chunks per file of `head`, as a count: what compaction and status report. */
export function liveChunkCount(head: TopicHead): number {
  return head.files.chunkTotal();
}

// Processes that search repeatedly (watch, tests, a daemon) keep the last assembled states; the
// head's generation tells whether another process has written since.
const MEMO_SIZE = 8;
const memo = new Map<string, TopicIndex>();
const memoKey = (root: string, id: string): string => `${root}\u0000${id}`;

function remember(key: string, index: TopicIndex): void {
  memo.delete(key);
  memo.set(key, index);
  while (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value!);
}

export function forgetTopicIndex(root: string, id?: string): void {
  if (id !== undefined) memo.delete(memoKey(root, id));
  else for (const k of [...memo.keys()]) if (k.startsWith(`${root}\u0000`)) memo.delete(k);
  forgetSegments(root, id);
}

export interface LoadResult {
  index: TopicIndex;
  /** Parts rebuilt in memory because they were missing or damaged. */
  repaired: ('lexical' | 'ann')[];
  /** Segments whose lexical part was rebuilt: the caller saves them (saveSegmentLex). */
  rebuiltLex: Segment[];
}

/**
 * The full index of a topic for `head`, repairing what it can in memory. Null when chunk records
 * are unusable: the caller then re-chunks the topic from its files.
 */
export async function loadTopicIndex(root: string, id: string, head: TopicHead, opts: LoadOptions = {}): Promise<LoadResult | null> {
  const cached = memo.get(memoKey(root, id));
  if (cached && cached.head.generation === head.generation) {
    remember(memoKey(root, id), cached);
    return { index: cached, repaired: [], rebuiltLex: [] };
  }
  const loadedSegments: Segment[] = [];
  const rebuiltLex: Segment[] = [];
  for (const info of head.segments) {
    const loaded = await loadSegment(root, id, info.gen, opts);
    if (!loaded) return null;
    if (loaded.lexRebuilt) rebuiltLex.push(loaded.segment);
    loadedSegments.push(loaded.segment);
  }
  // Every chunk the file table counts must exist, or the segments are not this head's.
  const live = LiveChunks.open(loadedSegments.map((s, i) => ({ ...s, ids: head.segments[i]!.ids })), head.files);
  if (!live) return null;
  const { chunks } = live;
  const segments: LiveSegment[] = loadedSegments.map((segment, i) => ({ segment, live: live.masks[i]!, allLive: live.allLive[i]! }));

  const repaired: LoadResult['repaired'] = rebuiltLex.length > 0 ? ['lexical'] : [];
  let ann: AnnIndex | null = null;
  if (head.vectors && head.ann !== null) {
    // Loaded only for a topic with vectors: a lexical-only index never needs the ANN code.
    const { AnnIndex } = await import('./ann.js');
    ann = await AnnIndex.load(annMetaFile(root, id), { generation: head.ann, key: head.vectors.key });
    if (ann) {
      for (const cid of ann.ids()) if (!chunks.has(cid)) ann = null;
    }
    if (!ann) repaired.push('ann');
  }
  const index: TopicIndex = { head, chunks, segments, ann };
  homes.set(index, { root, id });
  if (repaired.length === 0) remember(memoKey(root, id), index);
  return { index, repaired, rebuiltLex };
}

/** Where each loaded index came from: a damaged posting list found by a query reloads from there. */
const homes = new WeakMap<TopicIndex, { root: string; id: string }>();

/**
 * Loads every segment of a loaded index again with each posting checked (a damaged lexical part
 * rebuilt from its texts, in memory, for the next verifying sync to write back). False when the
 * index has no home or a segment cannot be loaded.
 */
export async function reloadCheckingPostings(index: TopicIndex): Promise<boolean> {
  const home = homes.get(index);
  if (!home) return false;
  for (const s of index.segments) {
    const loaded = await loadSegment(home.root, home.id, s.segment.gen, { allPostings: true });
    if (!loaded) return false;
    s.segment = loaded.segment;
  }
  return true;
}

/**
 * Writes the head (the commit point of a sync), then removes segment and hnsw files the head no
 * longer names. Readers still holding the old head notice missing files and re-open.
 */
export async function saveHead(root: string, id: string, head: TopicHead): Promise<void> {
  // The assembled index of the old head is stale either way; the next load reuses cached segments.
  memo.delete(memoKey(root, id));
  await writeHead(root, id, head);
  await primeHeadCache(root, id, head);
  await removeUnreferenced(root, id, head);
}

async function removeUnreferenced(root: string, id: string, head: TopicHead): Promise<void> {
  const dir = topicIndexDir(root, id);
  const keep = new Set(head.segments.map((s) => s.gen));
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names) {
    const seg = /^seg-(\d+)\.(rec|json|txt|lex)$/.exec(n);
    if (seg && !keep.has(Number(seg[1]))) await removeSegmentFiles(root, id, Number(seg[1]));
    // A segment file a killed sync left half written (the text file is written during the whole
    // chunking), or a run of postings it spilled (`.run-<n>`, bm25/spill.ts): its writer is gone,
    // so nothing will finish or remove it.
    const tmp = /^seg-\d+\.(rec|txt|lex)\.tmp-(\d+)-\d+(\.run-\d+)?$/.exec(n);
    if (tmp && Number(tmp[2]) !== process.pid && !pidAlive(Number(tmp[2]))) await rm(join(dir, n), { force: true });
    if (/^ann-\d+\.hnsw$/.test(n) && n !== `ann-${head.ann}.hnsw`) await rm(join(dir, n), { force: true });
    // Files of the previous (single-file) layout.
    if (n === 'chunks.json' || n === 'lexical.json') await rm(join(dir, n), { force: true });
  }
  if (head.ann === null) await rm(annMetaFile(root, id), { force: true });
}

/** Rewrites only the head (stat refreshes: same content, new mtime). */
export async function saveHeadOnly(root: string, id: string, head: TopicHead): Promise<void> {
  await writeHead(root, id, head);
  const cached = memo.get(memoKey(root, id));
  if (cached && cached.head.generation === head.generation) cached.head = head;
}

export async function removeTopicIndexDir(root: string, id: string): Promise<void> {
  forgetTopicIndex(root, id);
  await rm(topicIndexDir(root, id), { recursive: true, force: true });
}
