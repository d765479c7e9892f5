/**
 * syncIndex: make the derived index match the reference files. The cheap check (stat, then
 * hash only what moved) runs for every topic; only topics with real changes load their full
 * index, re-chunk the changed files, embed chunk hashes the cache does not hold, and rewrite.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Embedder } from '../embedding/types.js';
import { isValidTopicId } from '../store/model.js';
import { referencesDir } from '../store/root.js';
import { listTopicIds, readManifest } from '../store/topics.js';
import { AnnIndex } from './ann.js';
import { embeddingCacheDir, INDEX_FORMAT, indexDir, readMeta, topicsIndexDir, writeMeta } from './layout.js';
import { withIndexLock } from './lock.js';
import { syncNotes } from './notes.js';
import { diffByStat, hashFile, listTopicFiles, looksBinary, MAX_INDEXED_BYTES, sha256Hex, type FileEntry } from './scan.js';
import {
  type ChunkRecord,
  emptyHead,
  forgetTopicIndex,
  lexicalDocOf,
  loadHead,
  loadTopicIndex,
  newLexical,
  removeTopicIndexDir,
  saveHeadOnly,
  saveTopicIndex,
  type TopicIndex,
} from './topic-index.js';

export interface SyncProgress {
  topic: string;
  phase: 'scan' | 'chunk' | 'embed' | 'save' | 'notes';
  done: number;
  total: number;
}

export interface SyncOptions {
  /** Only these topics (plus dropping their index when the topic is gone); default all. */
  topicIds?: string[];
  /** null or absent: lexical only (existing vectors are kept, new chunks wait for an embedder). */
  embedder?: Embedder | null;
  onProgress?: (e: SyncProgress) => void;
  /** How long to wait for another process's sync before failing with LOCKED. */
  lockTimeoutMs?: number;
  /** Also load every part of the synced topics and rewrite what is damaged (search does this). */
  verify?: boolean;
}

export interface TopicSyncCounts {
  files: number;
  chunks: number;
  added: number;
  changed: number;
  removed: number;
  /** Texts actually sent to the embedder (cache misses). */
  embedded: number;
  vectors: number;
  /** Index parts rebuilt because they were missing or damaged. */
  repaired: string[];
  /** Why vectors could not be computed this time (the next sync retries). */
  vector_error?: string;
}

export interface SyncReport {
  topics: Record<string, TopicSyncCounts>;
  removed_topics: string[];
  notes: { updated: number; removed: number; embedded: number; broken: string[] };
  embedder: string | null;
  embedded: number;
}

interface Ctx {
  root: string;
  verify: boolean;
  embedder: Embedder | null;
  onProgress?: (e: SyncProgress) => void;
}

export async function syncIndex(root: string, opts: SyncOptions = {}): Promise<SyncReport> {
  return withIndexLock(root, () => syncUnlocked(root, opts), { timeoutMs: opts.lockTimeoutMs });
}

/** The body of syncIndex; callers must hold the index lock. */
export async function syncUnlocked(root: string, opts: SyncOptions = {}): Promise<SyncReport> {
  const ctx: Ctx = { root, embedder: opts.embedder ?? null, onProgress: opts.onProgress, verify: opts.verify ?? false };
  const meta = await readMeta(root);
  if (meta && meta.format !== INDEX_FORMAT) {
    // An index from another version of the tool: derived data, start over.
    forgetTopicIndex(root);
    await rm(indexDir(root), { recursive: true, force: true });
  }

  const onDisk = await listTopicIds(root);
  const onDiskSet = new Set(onDisk);
  const indexed = await listIndexedTopics(root);
  const wanted = opts.topicIds ? [...new Set(opts.topicIds)].filter(isValidTopicId) : [...new Set([...onDisk, ...indexed])];

  const report: SyncReport = {
    topics: {},
    removed_topics: [],
    notes: { updated: 0, removed: 0, embedded: 0, broken: [] },
    embedder: ctx.embedder?.key ?? null,
    embedded: 0,
  };
  for (const id of wanted.sort()) {
    if (!onDiskSet.has(id)) {
      if (indexed.includes(id)) {
        await removeTopicIndexDir(root, id);
        report.removed_topics.push(id);
      }
      continue;
    }
    const counts = await syncTopic(ctx, id);
    report.topics[id] = counts;
    report.embedded += counts.embedded;
  }

  ctx.onProgress?.({ topic: '', phase: 'notes', done: 0, total: onDisk.length });
  const notes = await syncNotes(root, ctx.embedder);
  report.notes = { updated: notes.updated, removed: notes.removed, embedded: notes.embedded, broken: notes.broken };
  report.embedded += notes.embedded;

  const embedderKey = ctx.embedder?.key ?? meta?.embedder ?? null;
  const dimension = ctx.embedder?.dimension ?? meta?.dimension ?? null;
  if (!meta || meta.format !== INDEX_FORMAT || meta.embedder !== embedderKey) {
    await writeMeta(root, { format: INDEX_FORMAT, embedder: embedderKey, dimension, updated_at: new Date().toISOString() });
  }
  return report;
}

export async function listIndexedTopics(root: string): Promise<string[]> {
  const names = await readdir(topicsIndexDir(root)).catch(() => [] as string[]);
  return names.filter(isValidTopicId).sort();
}

function countsOf(index: Pick<TopicIndex, 'head'>, chunks: number): TopicSyncCounts {
  return {
    files: Object.keys(index.head.files).length,
    chunks,
    added: 0,
    changed: 0,
    removed: 0,
    embedded: 0,
    vectors: index.head.vectors?.count ?? 0,
    repaired: [],
  };
}

async function syncTopic(ctx: Ctx, id: string): Promise<TopicSyncCounts> {
  const { root, embedder } = ctx;
  const dir = join(referencesDir(root), id);
  ctx.onProgress?.({ topic: id, phase: 'scan', done: 0, total: 1 });
  const onDisk = await listTopicFiles(dir);
  const storedHead = await loadHead(root, id);
  const head = storedHead ?? emptyHead(id);
  const diff = diffByStat(onDisk, head.files);

  // Hash only files whose size or mtime moved; same hash = touched, not changed.
  const changed = new Map<string, Buffer>();
  let touched = false;
  for (const path of diff.suspect) {
    const h = await hashFile(join(dir, path));
    if (!h) {
      diff.removed.push(path);
      continue;
    }
    if (h.sha256 === head.files[path]!.sha256) {
      const st = onDisk.get(path)!;
      head.files[path] = { ...head.files[path]!, size: st.size, mtimeMs: st.mtimeMs };
      touched = true;
    } else {
      changed.set(path, h.bytes);
    }
  }
  const needVectors = embedder !== null && (!head.vectors || head.vectors.key !== embedder.key || !head.vectors.complete);
  const nothingToDo = storedHead && diff.added.length === 0 && changed.size === 0 && diff.removed.length === 0 && !needVectors;
  const quick = async (): Promise<TopicSyncCounts> => {
    if (touched) await saveHeadOnly(root, id, head);
    const total = Object.values(head.files).reduce((n, f) => n + f.chunks.length, 0);
    return countsOf({ head }, total);
  };
  if (nothingToDo && !ctx.verify) return quick();

  const loaded = storedHead ? await loadTopicIndex(root, id, head) : null;
  if (nothingToDo && loaded && loaded.repaired.length === 0) return quick();
  let repaired: string[] = loaded?.repaired ?? [];
  if (storedHead && !loaded) repaired = ['chunks'];
  let index: TopicIndex;
  let toIndex: string[];
  let removed: string[];
  if (loaded) {
    index = loaded.index;
    index.head = head;
    toIndex = [...diff.added, ...changed.keys()];
    removed = diff.removed;
  } else {
    // No usable index: every file on disk is (re)indexed; the embedding cache spares the model.
    index = { head: { ...emptyHead(id), generation: head.generation }, chunks: new Map(), lexical: await newLexical([]), ann: null };
    toIndex = [...onDisk.keys()];
    removed = [];
  }
  const counts = countsOf(index, 0);
  counts.repaired = repaired;
  counts.added = diff.added.length;
  counts.changed = changed.size;
  counts.removed = diff.removed.length;

  try {
    const { removeDocs, replaceDocs } = await import('./lexical.js');
    for (const path of removed) {
      const entry = index.head.files[path];
      if (!entry) continue;
      removeDocs(index.lexical, entry.chunks);
      for (const cid of entry.chunks) {
        index.chunks.delete(cid);
        index.ann?.remove(cid);
      }
      delete index.head.files[path];
    }

    const manifest = new Map((await readManifest(dir)).map((r) => [r.path, r]));
    const { chunkFile, roleForPath } = await import('../chunking/index.js');
    toIndex.sort();
    let done = 0;
    for (const path of toIndex) {
      ctx.onProgress?.({ topic: id, phase: 'chunk', done: done++, total: toIndex.length });
      const st = onDisk.get(path)!;
      const bytes = changed.get(path) ?? (await hashFile(join(dir, path)))?.bytes;
      const previous = index.head.files[path];
      if (!bytes) {
        // Vanished since the scan: drop what we had; the next sync sees whatever replaced it.
        if (previous) {
          removeDocs(index.lexical, previous.chunks);
          for (const cid of previous.chunks) {
            index.chunks.delete(cid);
            index.ann?.remove(cid);
          }
          delete index.head.files[path];
        }
        continue;
      }
      const role = manifest.get(path)?.role ?? roleForPath(path);
      const entry: FileEntry = { size: st.size, mtimeMs: st.mtimeMs, sha256: '', role, chunks: [] };
      entry.sha256 = sha256Hex(bytes);
      let records: ChunkRecord[] = [];
      if (looksBinary(bytes)) entry.skipped = 'binary';
      else if (bytes.length > MAX_INDEXED_BYTES) entry.skipped = 'too-large';
      else {
        try {
          const chunks = await chunkFile(path, bytes.toString('utf8'));
          records = chunks.map((c, i) => ({ ...c, path, role, id: `${path}#${i}` }));
        } catch {
          entry.skipped = 'unchunkable'; // one odd file must not stop the topic's index
        }
      }
      entry.chunks = records.map((r) => r.id);
      const keep = new Set(entry.chunks);
      const stale = (previous?.chunks ?? []).filter((cid) => !keep.has(cid));
      removeDocs(index.lexical, stale);
      const byId = new Map(records.map((r) => [r.id, r]));
      for (const cid of previous?.chunks ?? []) {
        const old = index.chunks.get(cid);
        const next = byId.get(cid);
        // A vector stays only when its chunk text is unchanged.
        if (!next || !old || old.hash !== next.hash) index.ann?.remove(cid);
        index.chunks.delete(cid);
      }
      for (const r of records) index.chunks.set(r.id, r);
      replaceDocs(index.lexical, records.map(lexicalDocOf));
      index.head.files[path] = entry;
    }

    counts.files = Object.keys(index.head.files).length;
    counts.chunks = index.chunks.size;
    await updateVectors(ctx, id, index, counts);
    ctx.onProgress?.({ topic: id, phase: 'save', done: 0, total: 1 });
    await saveTopicIndex(root, id, index, { chunks: true, lexical: true, ann: true });
  } catch (err) {
    forgetTopicIndex(root, id); // the in-memory state may be half-updated
    throw err;
  }
  counts.vectors = index.head.vectors?.count ?? 0;
  return counts;
}

/** Gives every chunk a vector of the current embedder; a new embedder starts a new vector index. */
async function updateVectors(ctx: Ctx, id: string, index: TopicIndex, counts: TopicSyncCounts): Promise<void> {
  const { embedder, root } = ctx;
  if (!embedder) {
    if (index.ann) {
      const complete = index.ann.size === index.chunks.size;
      index.head.vectors = { key: index.ann.key, dimension: index.ann.dimension, complete, count: index.ann.size };
    } else {
      index.head.vectors = null;
    }
    return;
  }
  if (!index.ann || index.ann.key !== embedder.key || index.ann.dimension !== embedder.dimension) {
    // Vectors of two models never share an index.
    index.ann = await AnnIndex.create(embedder.key, embedder.dimension, index.chunks.size + 16);
  }
  const ann = index.ann;
  const missing = [...index.chunks.values()].filter((c) => !ann.has(c.id));
  if (missing.length > 0) {
    try {
      const { EmbeddingCache, embedWithCacheDetailed } = await import('../embedding/cache.js');
      const cache = new EmbeddingCache(embeddingCacheDir(root));
      const stats = await embedWithCacheDetailed(
        embedder,
        cache,
        missing.map((c) => ({ hash: c.hash, text: c.text })),
        { onProgress: (done, total) => ctx.onProgress?.({ topic: id, phase: 'embed', done, total }) },
      );
      counts.embedded = stats.embedded;
      for (const c of missing) {
        const v = stats.vectors.get(c.hash);
        if (v) ann.add(c.id, v);
      }
    } catch (err) {
      counts.vector_error = err instanceof Error ? err.message : String(err);
    }
  }
  index.head.vectors = { key: ann.key, dimension: ann.dimension, complete: ann.size === index.chunks.size, count: ann.size };
}
