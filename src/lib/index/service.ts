/**
 * The front door of the derived index: everything outside src/lib/index/ reaches the per-topic
 * store (head, segments, sync, compaction, scan, vectors, ann) and the topic-notes index through
 * this module; the files behind it are private and may change shape. The BM25 engine itself is a
 * separate package (./bm25/index.ts) with no knowledge of topics.
 *
 * Import this module lazily (`await import(...)`) from commands that do not search: it leads to
 * the chunkers, hnswlib and the embedders (each loaded on first use), which cheap commands must
 * not load.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { referencesDir } from '../store/root-path.js';
import { listTopicIds, loadAllTopics } from '../store/topic-files.js';
import { FileTable } from './file-table.js';
import { embeddingCacheDir, indexDir, readMeta } from './layout.js';
import { removeNote } from './notes/index.js';
import { diffByStat, hashFile, listTopicFiles } from './scan.js';
import type { SyncOptions, SyncReport } from './sync.js';
import { forgetTopicIndex, loadHead, removeTopicIndexDir } from './topic-index.js';

export { lexicallyCurrent } from './current.js';
export { ManifestLines, manifestLinesFile } from './manifest-lines.js';
export type { SyncOptions, SyncProgress, SyncReport, TopicSyncCounts } from './sync.js';

/** The sync (sync.ts), loaded when one runs: a search whose files did not move never needs it. */
export async function syncIndex(root: string, opts: SyncOptions = {}): Promise<SyncReport> {
  return (await import('./sync.js')).syncIndex(root, opts);
}
export { type AcrossTermStats, searchLexical, searchLexicalAcross } from './lexical-search.js';
export {
  annMetaFile,
  forgetTopicIndex,
  liveChunkCount,
  loadHead,
  loadHeadForReading,
  loadTopicIndex,
  nextGeneration,
  saveHead,
  type TopicHead,
  type TopicIndex,
} from './topic-index.js';
export { chunkTexts, type ChunkRecord, lexicalDocOf, liveRecords, readSegmentRecords, readTexts, type StoredChunk } from './segments.js';
export { embeddingCacheDir, INDEX_FORMAT, indexDir, isRecord, notesIndexFile, readJsonSafe, readMeta, topicIndexDir, writeJsonAtomic, writeMeta } from './layout.js';
export { decodeVector, encodeVector, loadNotes, type NoteEntry, noteEmbedText, syncNotes } from './notes/index.js';

/** The notes' in-memory BM25 (MiniSearch): loaded only when topics are ranked. */
export const loadNotesLexical = (): Promise<typeof import('./notes/lexical.js')> => import('./notes/lexical.js');

/** Drops a topic's index and its note (after `delete`). The files are the caller's business. */
export async function removeTopicIndex(root: string, id: string): Promise<void> {
  const { withIndexLock } = await import('../lock.js');
  await withIndexLock(root, async () => {
    await removeTopicIndexDir(root, id);
    await removeNote(root, id);
  });
}

/** The vector spaces a root's index served: topic id → space, and the notes' space. */
export interface ServedSpaces {
  topics: Map<string, { key: string; dimension: number }>;
  notes: { key: string; dimension: number } | null;
}

/**
 * Deletes the whole derived index and builds its lexical side again from the files, under the
 * index lock. Answers the report and the spaces served before, so the caller
 * (src/lib/vectors/rebuild.ts) can put their vectors back from the embedding cache.
 */
export async function rebuildLexicalIndex(root: string, opts: Omit<SyncOptions, 'topicIds'> = {}): Promise<{ report: SyncReport; served: ServedSpaces }> {
  const { listIndexedTopics, syncUnlocked } = await import('./sync.js');
  const topics = new Map<string, { key: string; dimension: number }>();
  for (const id of await listIndexedTopics(root)) {
    const head = await loadHead(root, id);
    if (head?.vectors) topics.set(id, { key: head.vectors.key, dimension: head.vectors.dimension });
  }
  const { loadNotes } = await import('./notes/index.js');
  const oldNotes = await loadNotes(root);
  const notes = oldNotes.key && oldNotes.dimension ? { key: oldNotes.key, dimension: oldNotes.dimension } : null;
  const { withIndexLock } = await import('../lock.js');
  const report = await withIndexLock(
    root,
    async () => {
      forgetTopicIndex(root);
      await rm(indexDir(root), { recursive: true, force: true });
      return syncUnlocked(root, { ...opts, embedder: opts.embedder ?? null });
    },
    { timeoutMs: opts.lockTimeoutMs },
  );
  return { report, served: { topics, notes } };
}

export interface IndexStatus {
  topics: number;
  files: number;
  chunks: number;
  vectors: number;
  embedder: string | null;
  dimension: number | null;
  /** What the next sync would do, by content hash. */
  pending: { changed: number; added: number; removed: number };
  bytes_on_disk: number;
  /** The embedding cache (kept by rebuild). */
  cache_bytes: number;
  /** Topics whose topic.md is broken (does not parse, or `id` is not the folder): not searched. */
  broken: { topic_id: string; error: { code: string; message: string; file?: string; line?: number } }[];
  /** Files present but not indexed, with why (too_large, binary, unchunkable); at most 100 listed. */
  not_indexed: { count: number; files: { topic_id: string; path: string; reason: string; bytes: number }[] };
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await dirBytes(p);
    else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export async function indexStatus(root: string): Promise<IndexStatus> {
  const { listIndexedTopics } = await import('./sync.js');
  const meta = await readMeta(root);
  const onDisk = await listTopicIds(root);
  const status: IndexStatus = {
    topics: onDisk.length,
    files: 0,
    chunks: 0,
    vectors: 0,
    embedder: meta?.embedder ?? null,
    dimension: meta?.dimension ?? null,
    pending: { changed: 0, added: 0, removed: 0 },
    bytes_on_disk: await dirBytes(indexDir(root)),
    cache_bytes: await dirBytes(embeddingCacheDir(root)),
    broken: (await loadAllTopics(root)).broken.map((b) => ({ topic_id: b.topic_id, error: b.error })),
    not_indexed: { count: 0, files: [] },
  };
  for (const id of onDisk) {
    const head = await loadHead(root, id);
    const dir = join(referencesDir(root), id);
    const files = await listTopicFiles(dir);
    const table = head?.files ?? FileTable.empty();
    const diff = diffByStat(files, table);
    status.pending.added += diff.added.length;
    status.pending.removed += diff.removed.length;
    for (const path of diff.suspect) {
      const h = await hashFile(join(dir, path));
      if (!h || h.sha256 !== table.get(path)!.sha256) status.pending.changed++;
    }
    if (head) {
      status.files += head.files.size;
      status.chunks += head.files.chunkTotal();
      status.vectors += head.vectors?.count ?? 0;
      for (const f of head.files.skippedFiles()) {
        status.not_indexed.count++;
        if (status.not_indexed.files.length < 100) status.not_indexed.files.push({ topic_id: id, path: f.path, reason: f.reason, bytes: f.size });
      }
    }
  }
  const present = new Set(onDisk);
  for (const id of await listIndexedTopics(root)) {
    if (present.has(id)) continue;
    const head = await loadHead(root, id);
    status.pending.removed += head ? head.files.size : 0;
  }
  return status;
}
