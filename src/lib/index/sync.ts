/**
 * syncIndex: make the derived index match the reference files. The cheap check (stat, then
 * hash only what moved) runs for every topic; only topics with real changes load their full
 * index, re-chunk the changed files, embed chunk hashes the cache does not hold, and rewrite.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { ChunksAhead } from '../chunking/ahead.js';
import type { Embedder } from '../embedding/types.js';
import { isValidTopicId } from '../store/model.js';
import { referencesDir } from '../store/root-path.js';
import { listTopicIds, readManifest, readManifestRoles } from '../store/topic-files.js';
import { compactSegments } from './compact.js';
import { hotHeadFile, INDEX_FORMAT, indexDir, readMeta, tempName, topicsIndexDir, writeMeta } from './layout.js';
import { withIndexLock } from '../lock.js';
import { crashPoint } from '../mutation/crash.js';
import { holdPoint } from '../hold.js';
import { syncNotes } from './notes/index.js';
import { readOrNull } from '../soft-fs.js';
import { indexCap } from './current.js';
import type { FileEntry } from './file-table.js';
import { listingByFind, worthHalves } from './listing-prefetch.js';
import { refreshManifestLines } from './manifest-lines.js';
import { chunkIdsOf, diffByStat, hashFile, listTopicFilesVia, looksBinary, sha256Hex, stampListing } from './scan.js';
import { saveSegmentLex, segmentFile, SegmentWriter } from './segments.js';
import {
  emptyHead,
  forgetTopicIndex,
  liveChunkCount,
  loadHeadForReading,
  loadTopicIndex,
  nextGeneration,
  removeTopicIndexDir,
  saveHead,
  saveHeadOnly,
  type TopicHead,
  writtenWhole,
} from './topic-index.js';
import { updateVectors } from './ann-sync.js';

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
  /** A create's files cut while they were fetched: its threads and chunks, for its topic only. */
  ahead?: ChunksAhead;
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
  ahead?: ChunksAhead;
  embedder: Embedder | null;
  onProgress?: (e: SyncProgress) => void;
}

export async function syncIndex(root: string, opts: SyncOptions = {}): Promise<SyncReport> {
  return withIndexLock(root, () => syncUnlocked(root, opts), { timeoutMs: opts.lockTimeoutMs });
}

/** The body of syncIndex; callers must hold the index lock. */
export async function syncUnlocked(root: string, opts: SyncOptions = {}): Promise<SyncReport> {
  const ctx: Ctx = { root, embedder: opts.embedder ?? null, onProgress: opts.onProgress, verify: opts.verify ?? false, ...(opts.ahead ? { ahead: opts.ahead } : {}) };
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
    // Cheap when the manifest has not moved (a stat and a header); see manifest-lines.ts.
    await refreshManifestLines(root, id, join(referencesDir(root), id));
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

function countsOf(head: TopicHead): TopicSyncCounts {
  return {
    files: head.files.size,
    chunks: liveChunkCount(head),
    added: 0,
    changed: 0,
    removed: 0,
    embedded: 0,
    vectors: head.vectors?.count ?? 0,
    repaired: [],
  };
}

/** True when a file left out as too large is now under the cap (the sync below then indexes it). */
async function admitsSkipped(root: string, head: TopicHead): Promise<boolean> {
  const skipped = head.files.skippedFiles().filter((f) => f.reason === 'too-large');
  if (skipped.length === 0) return false;
  const cap = await indexCap(root);
  return skipped.some((f) => f.size <= cap);
}

async function syncTopic(ctx: Ctx, id: string): Promise<TopicSyncCounts> {
  const { root, embedder } = ctx;
  const dir = join(referencesDir(root), id);
  ctx.onProgress?.({ topic: id, phase: 'scan', done: 0, total: 1 });
  // find lists the folder on the other core while this sync works; the head written at the end
  // keeps its digest when it matches, and the next cold search compares digests, not files.
  const listing = listingByFind(dir, 'find', undefined, worthHalves(hotHeadFile(root, id)));
  // The shared copy readers get: a search right after this sync then parses head.json once, not
  // twice. It is never mutated here; `head` gets its own file table before the first change.
  const storedHead = await loadHeadForReading(root, id);
  const needVectors = embedder !== null && (!storedHead?.vectors || storedHead.vectors.key !== embedder.key || !storedHead.vectors.complete);
  // The listing byte for byte the one this head's table was checked against (sameFilesByListing):
  // nothing moved, and what follows would compare every file to learn it (at 300k chunks, 20 MB of
  // cold columns parsed and 207k files compared: ~2.5 s of a server's CPU after its first answer).
  if (storedHead && !ctx.verify && !needVectors && !writtenWhole(storedHead) && storedHead.files.listingDigest !== null) {
    const found = await listing;
    if (found && found.digest() === storedHead.files.listingDigest && !(await admitsSkipped(root, storedHead))) return countsOf(storedHead);
  }
  const onDisk = await listTopicFilesVia(dir, listing);
  const head: TopicHead = storedHead ? { ...storedHead } : emptyHead(id);
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
    const known = head.files.get(path)!;
    if (h.sha256 === known.sha256) {
      const st = onDisk.get(path)!;
      if (!touched) head.files = head.files.clone();
      head.files.set(path, { ...known, size: st.size, mtimeMs: st.mtimeMs });
      touched = true;
    } else {
      changed.set(path, h.bytes);
    }
  }
  // Files left out as too large under a smaller cap (an older version, or a raised
  // `limits.max_file_bytes`) are indexed now that the cap admits them.
  const cap = await indexCap(root);
  let fetchedHashes: Promise<Map<string, string>> | null = null;
  /** True when the manifest records this exact content (by hash) as fetched into the topic. */
  const fetchedWithin = async (path: string, sha256: string): Promise<boolean> => {
    fetchedHashes ??= readManifest(dir).then((recs) => new Map(recs.map((r) => [r.path, r.sha256])));
    return (await fetchedHashes).get(path) === sha256;
  };
  for (const { path, reason } of head.files.skippedFiles()) {
    if (reason !== 'too-large' || changed.has(path) || !onDisk.has(path) || onDisk.get(path)!.size > cap) continue;
    const h = await hashFile(join(dir, path));
    if (h) changed.set(path, h.bytes);
  }
  const nothingToDo = storedHead && diff.added.length === 0 && changed.size === 0 && diff.removed.length === 0 && !needVectors;
  const quick = async (): Promise<TopicSyncCounts> => {
    if (touched) {
      stampListing(head.files, await listing);
      await saveHeadOnly(root, id, head);
    } else if (storedHead && writtenWhole(storedHead)) {
      // Once per older head: in lines, a search parses a third of it (head-file.ts).
      await saveHeadOnly(root, id, head);
    }
    return countsOf(head);
  };
  if (nothingToDo && !ctx.verify) return quick();

  // Without verify, changes are applied from the head alone: no segment is read.
  let rebuild = !storedHead;
  let repaired: string[] = [];
  let annReset = false;
  if (storedHead && ctx.verify) {
    const loaded = await loadTopicIndex(root, id, head);
    if (!loaded) {
      rebuild = true;
      repaired = ['chunks'];
    } else {
      for (const seg of loaded.rebuiltLex) await saveSegmentLex(root, id, seg);
      repaired = loaded.repaired;
      annReset = repaired.includes('ann');
      if (nothingToDo && repaired.length === 0) return quick();
      if (nothingToDo && !annReset) {
        // Only lexical parts were damaged, and they are rewritten: the head stays valid.
        forgetTopicIndex(root, id);
        return { ...(await quick()), repaired };
      }
    }
  }

  const gen = nextGeneration(head.generation);
  const next: TopicHead = rebuild
    ? // Re-chunked after damage: the space it served is kept, so its vectors come back from the cache.
      { ...emptyHead(id), generation: gen, vectors: storedHead?.vectors ?? (await servedSpace(root, id)) }
    : { ...head, generation: gen, files: head.files.clone(), segments: [...head.segments] };
  const toIndex = rebuild ? [...onDisk.keys()] : [...diff.added, ...changed.keys()];
  const { pagesIncluding, resolvePageIncludes, SuffixLookup } = await import('./include-deps.js');
  const elsewhere = new SuffixLookup(onDisk.keys());
  // A page showing a file that changed or went shows something else now: cut it again.
  if (!rebuild) toIndex.push(...pagesIncluding(head.includes, new Set([...toIndex, ...diff.removed]), onDisk));
  const includes: Record<string, string[]> = rebuild ? {} : { ...head.includes };
  next.includes = includes;
  const counts = countsOf(next);
  counts.repaired = repaired;
  counts.added = diff.added.length;
  counts.changed = changed.size;
  counts.removed = diff.removed.length;

  let segment: SegmentWriter | null = null;
  let lexBuild: { discard(): void } | null = null;
  try {
    const dropped: string[] = [];
    for (const path of rebuild ? [] : diff.removed) {
      const entry = next.files.get(path);
      if (!entry) continue;
      dropped.push(...chunkIdsOf(path, entry));
      next.files.delete(path);
      delete includes[path];
    }

    // A file keeps its role when it changes; only new files need the manifest (10k lines: ~50 ms).
    const needManifest = toIndex.some((p) => !next.files.has(p));
    // Roles only: the whole records (hashes, URLs, dates) stayed alive through the chunking.
    const { isProsePath, roleForPath } = await import('../chunking/index.js');
    // Only the roles the loop below would not find itself (its fallback, as of now: a path's
    // entry is replaced only when that path is indexed).
    const roles = needManifest ? await readManifestRoles(dir, (p) => next.files.get(p)?.role ?? roleForPath(p)) : new Map<string, FileEntry['role']>();
    const { startChunkPool } = await import('../chunking/pool.js');
    const { ChunkPipeline } = await import('./chunk-pipeline.js');
    toIndex.sort();
    const ahead = ctx.ahead?.topic === id ? ctx.ahead : undefined;
    const pool = ahead?.threads() ?? startChunkPool(toIndex);
    // Each chunk goes to the segment's files as it is cut: no text is held to the end.
    const writer = (segment = new SegmentWriter(root, id, gen));
    crashPoint('index:writing'); // the text file is open under its temporary name
    await holdPoint('index:writing');
    // A large create's postings go to run files beside the segment while it is built.
    const spill = { prefix: tempName(segmentFile(root, id, gen, 'lex')) };
    const pipeline = (lexBuild = new ChunkPipeline(pool, gen, next.files, (r) => writer.add(r), spill, ahead));
    let built;
    try {
      let done = 0;
      let yielded = Date.now();
      for (const path of toIndex) {
        ctx.onProgress?.({ topic: id, phase: 'chunk', done: done++, total: toIndex.length });
        // Reads are synchronous and prose is cut in this thread: let timers (the progress line)
        // and other callers run now and then.
        if (Date.now() - yielded > 100) {
          await new Promise((resolve) => setImmediate(resolve));
          yielded = Date.now();
        }
        const st = onDisk.get(path)!;
        const bytes = changed.get(path) ?? readOrNull(join(dir, path));
        const previous = next.files.get(path);
        if (previous) dropped.push(...chunkIdsOf(path, previous));
        delete includes[path];
        if (!bytes) {
          // Vanished since the scan: drop what we had; the next sync sees whatever replaced it.
          next.files.delete(path);
          continue;
        }
        const role = roles.get(path) ?? previous?.role ?? roleForPath(path);
        const entry: FileEntry = { size: st.size, mtimeMs: st.mtimeMs, sha256: sha256Hex(bytes), role, chunkCount: 0 };
        if (looksBinary(bytes)) entry.skipped = 'binary';
        else if (bytes.length > cap && !(await fetchedWithin(path, entry.sha256))) entry.skipped = 'too-large';
        const text = entry.skipped ? null : bytes.toString('utf8');
        const page = text !== null && isProsePath(path) ? resolvePageIncludes(dir, path, text, onDisk, cap, elsewhere) : null;
        if (page?.targets.length) includes[path] = page.targets;
        await pipeline.add(path, entry, text, page?.expansions);
      }
      built = await pipeline.finish();
      lexBuild = built;
    } finally {
      // The threads' ~30 MB each are not kept through the segment's end (a large create's peak).
      await pool.close();
      await ahead?.close();
    }

    ctx.onProgress?.({ topic: id, phase: 'save', done: 0, total: 1 });
    if (built) {
      const ids = (await writer.finish(built)).records.digest.toString('base64');
      // The build's ids, lengths and vocabulary are in the segment's files now: garbage before the
      // head is written (the writer dropped its record columns itself).
      built = null;
      lexBuild = null;
      next.segments.push({ gen, docs: writer.count, ids });
    } else writer.abort();
    await compactSegments(root, id, next);
    if (embedder || next.vectors) {
      const v = await updateVectors({
        root,
        topic: id,
        embedder,
        head: next,
        dropped,
        reset: rebuild || annReset,
        onProgress: (d, total) => ctx.onProgress?.({ topic: id, phase: 'embed', done: d, total }),
      });
      counts.embedded = v.embedded;
      if (v.error) counts.vector_error = v.error;
    }
    stampListing(next.files, await listing);
    await saveHead(root, id, next);
  } catch (err) {
    segment?.abort();
    lexBuild?.discard();
    forgetTopicIndex(root, id); // the in-memory state may be half-updated
    throw err;
  }
  counts.files = next.files.size;
  counts.chunks = liveChunkCount(next);
  counts.vectors = next.vectors?.count ?? 0;
  return counts;
}

/** The space a topic's hnsw index held, from ann.json alone, when its head is lost. */
async function servedSpace(root: string, id: string): Promise<TopicHead['vectors']> {
  const { readJsonSafe, isRecord } = await import('./layout.js');
  const { annMetaFile } = await import('./topic-index.js');
  const meta = await readJsonSafe(annMetaFile(root, id), (v): v is { key: string; dimension: number } => isRecord(v) && typeof v.key === 'string' && typeof v.dimension === 'number');
  return meta ? { key: meta.key, dimension: meta.dimension, complete: false, count: 1 } : null;
}
