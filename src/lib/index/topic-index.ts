/**
 * One topic's derived index on disk and in memory: the head (file table + which generation of
 * each part is current), chunk records, the MiniSearch index and the hnsw index.
 *
 * Parts are written first, each tagged with its generation, and the head last: a crash or a
 * concurrent reader sees either the old head (whose parts are still there or are detected as
 * mismatched) or the new one. A part that is missing, damaged or of another generation is rebuilt
 * from the chunk records; damaged chunk records mean re-chunking the topic's files.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import type MiniSearch from 'minisearch';

import type { Chunk } from '../chunking/types.js';
import { AnnIndex } from './ann.js';
import { isRecord, readJsonSafe, readTextSafe, topicIndexDir, writeFileAtomic, writeJsonAtomic } from './layout.js';
import type { LexicalDoc } from './lexical.js';
import type { FileEntry } from './scan.js';

const TOPIC_FORMAT = 1;

export interface ChunkRecord extends Chunk {
  /** `<path>#<ordinal in file>`: stable while the file's chunking is unchanged. */
  id: string;
}

export interface VectorState {
  key: string;
  dimension: number;
  /** Every chunk has a vector of this key (false after a sync without a working embedder). */
  complete: boolean;
  count: number;
}

export interface TopicHead {
  format: number;
  topic: string;
  generation: number;
  parts: { chunks: number; lexical: number; ann: number | null };
  files: Record<string, FileEntry>;
  vectors: VectorState | null;
}

export interface TopicIndex {
  head: TopicHead;
  chunks: Map<string, ChunkRecord>;
  lexical: MiniSearch<LexicalDoc>;
  ann: AnnIndex | null;
}

const headFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'head.json');
const chunksFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'chunks.json');
const lexicalFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'lexical.json');
export const annMetaFile = (root: string, id: string): string => join(topicIndexDir(root, id), 'ann.json');

function isHead(v: unknown): v is TopicHead {
  if (!isRecord(v) || v.format !== TOPIC_FORMAT || typeof v.topic !== 'string' || typeof v.generation !== 'number') return false;
  if (!isRecord(v.parts) || typeof v.parts.chunks !== 'number' || typeof v.parts.lexical !== 'number') return false;
  if (!isRecord(v.files)) return false;
  for (const f of Object.values(v.files)) {
    if (!isRecord(f) || typeof f.sha256 !== 'string' || typeof f.size !== 'number' || !Array.isArray(f.chunks)) return false;
  }
  return v.vectors === null || (isRecord(v.vectors) && typeof v.vectors.key === 'string');
}

export async function loadHead(root: string, id: string): Promise<TopicHead | null> {
  const head = await readJsonSafe(headFile(root, id), isHead);
  return head && head.topic === id ? head : null;
}

// A process that answers many queries (serve) would parse a large topic's head.json (MBs at
// 100k chunks) on every query; it is re-read only when its stat moves. Atomic writes rename a
// new file into place, so the inode changes even when size and mtime happen not to.
const headCache = new Map<string, { ino: number; size: number; mtimeMs: number; head: TopicHead }>();

/** loadHead for readers that never mutate the head: the same object while the file is unchanged. */
export async function loadHeadForReading(root: string, id: string): Promise<TopicHead | null> {
  const file = headFile(root, id);
  const st = await stat(file).catch(() => null);
  const known = headCache.get(file);
  if (st && known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.head;
  headCache.delete(file);
  const head = st ? await loadHead(root, id) : null;
  // Stat first, read second: a write in between leaves a stale stat, so the next call re-reads.
  if (st && head) headCache.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, head });
  return head;
}

/** A generation number that only grows, even across a rebuild that starts from nothing. */
export function nextGeneration(previous: number | undefined): number {
  return Math.max((previous ?? 0) + 1, Date.now());
}

export function lexicalDocOf(c: ChunkRecord): LexicalDoc {
  return { id: c.id, title: c.title, ...(c.symbol ? { symbol: c.symbol } : {}), path: c.path, text: c.text };
}

export function emptyHead(id: string): TopicHead {
  return { format: TOPIC_FORMAT, topic: id, generation: 0, parts: { chunks: 0, lexical: 0, ann: null }, files: {}, vectors: null };
}

export async function newLexical(chunks: Iterable<ChunkRecord>): Promise<MiniSearch<LexicalDoc>> {
  const { createLexicalIndex, replaceDocs } = await import('./lexical.js');
  const index = createLexicalIndex();
  replaceDocs(index, [...chunks].map(lexicalDocOf));
  return index;
}

// Processes that search repeatedly (watch, tests, a daemon) keep the last loaded states; the
// head's generation tells whether another process has written since. A few topics only: a large
// topic's chunks and MiniSearch index take tens of MB.
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
}

function isChunkRecord(v: unknown): v is ChunkRecord {
  return isRecord(v) && typeof v.id === 'string' && typeof v.path === 'string' && typeof v.text === 'string' && typeof v.startLine === 'number';
}

export interface LoadResult {
  index: TopicIndex;
  /** Parts rebuilt because they were missing or damaged; the caller saves when not empty. */
  repaired: ('lexical' | 'ann')[];
}

/**
 * The full index of a topic for `head`, repairing what it can. Null when the chunk records are
 * unusable: the caller then re-chunks the topic from its files.
 */
export async function loadTopicIndex(root: string, id: string, head: TopicHead): Promise<LoadResult | null> {
  const cached = memo.get(memoKey(root, id));
  if (cached && cached.head.generation === head.generation) {
    remember(memoKey(root, id), cached);
    return { index: cached, repaired: [] };
  }

  const stored = await readJsonSafe(chunksFile(root, id), (v): v is { generation: number; chunks: unknown[] } =>
    isRecord(v) && typeof v.generation === 'number' && Array.isArray(v.chunks),
  );
  if (!stored || stored.generation !== head.parts.chunks || !stored.chunks.every(isChunkRecord)) return null;
  const chunks = new Map<string, ChunkRecord>();
  for (const c of stored.chunks as ChunkRecord[]) chunks.set(c.id, c);
  // Every chunk the file table names must exist, or the records are not this head's.
  for (const f of Object.values(head.files)) for (const cid of f.chunks) if (!chunks.has(cid)) return null;

  const repaired: LoadResult['repaired'] = [];
  let lexical: MiniSearch<LexicalDoc> | null = null;
  const text = await readTextSafe(lexicalFile(root, id));
  const nl = text?.indexOf('\n') ?? -1;
  if (text && nl > 0 && Number(text.slice(0, nl)) === head.parts.lexical) {
    const { loadLexical } = await import('./lexical.js');
    try {
      lexical = loadLexical(text.slice(nl + 1));
      if (lexical.documentCount !== chunks.size) lexical = null;
    } catch {
      lexical = null; // DAMAGED_STATE: rebuilt below
    }
  }
  if (!lexical) {
    lexical = await newLexical(chunks.values());
    repaired.push('lexical');
  }

  let ann: AnnIndex | null = null;
  if (head.vectors && head.parts.ann !== null) {
    ann = await AnnIndex.load(annMetaFile(root, id), { generation: head.parts.ann, key: head.vectors.key });
    if (ann) {
      for (const cid of ann.ids()) if (!chunks.has(cid)) ann = null;
    }
    if (!ann) repaired.push('ann');
  }
  const index: TopicIndex = { head, chunks, lexical, ann };
  if (repaired.length === 0) remember(memoKey(root, id), index);
  return { index, repaired };
}

export interface DirtyParts {
  chunks: boolean;
  lexical: boolean;
  ann: boolean;
}

/** Writes the dirty parts under a new generation, then the head. */
export async function saveTopicIndex(root: string, id: string, index: TopicIndex, dirty: DirtyParts): Promise<void> {
  const gen = nextGeneration(index.head.generation);
  const head: TopicHead = { ...index.head, generation: gen, parts: { ...index.head.parts } };
  try {
    if (dirty.chunks || head.parts.chunks === 0) {
      const records = [...index.chunks.values()];
      await writeJsonAtomic(chunksFile(root, id), { format: TOPIC_FORMAT, generation: gen, chunks: records });
      head.parts.chunks = gen;
    }
    if (dirty.lexical || head.parts.lexical === 0) {
      const { serializeLexical } = await import('./lexical.js');
      await writeFileAtomic(lexicalFile(root, id), `${gen}\n${serializeLexical(index.lexical)}`);
      head.parts.lexical = gen;
    }
    if (index.ann) {
      if (dirty.ann || head.parts.ann === null) {
        await index.ann.save(annMetaFile(root, id), gen);
        head.parts.ann = gen;
      }
    } else if (head.parts.ann !== null) {
      head.parts.ann = null;
      await rm(annMetaFile(root, id), { force: true });
    }
    await writeJsonAtomic(headFile(root, id), head);
    await removeStaleAnnFiles(topicIndexDir(root, id), head.parts.ann);
  } catch (err) {
    memo.delete(memoKey(root, id));
    throw err;
  }
  index.head = head;
  remember(memoKey(root, id), index);
}

async function removeStaleAnnFiles(dir: string, current: number | null): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names) {
    if (/^ann-\d+\.hnsw$/.test(n) && n !== `ann-${current}.hnsw`) await rm(join(dir, n), { force: true });
  }
}

/** Rewrites only the head (stat refreshes: same content, new mtime). */
export async function saveHeadOnly(root: string, id: string, head: TopicHead): Promise<void> {
  await writeJsonAtomic(headFile(root, id), head);
  const cached = memo.get(memoKey(root, id));
  if (cached && cached.head.generation === head.generation) cached.head = head;
}

export async function removeTopicIndexDir(root: string, id: string): Promise<void> {
  forgetTopicIndex(root, id);
  await rm(topicIndexDir(root, id), { recursive: true, force: true });
}
