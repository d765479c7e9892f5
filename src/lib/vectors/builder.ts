/**
 * Builds the vectors the lexical index is still missing, without ever standing between a reader
 * and an answer. Embedding happens outside every lock and lands in the embedding cache (one
 * append per batch, so a killed builder loses at most a batch); the index lock is taken only to
 * apply what the cache holds to a topic's hnsw index, a short step, every 15 s or so.
 *
 * Order: topic notes first (topic choice by meaning), then docs chunks of every topic, then code.
 * A topic whose index holds another space (a model switch) keeps serving it until the cache holds
 * a vector of the new space for every one of its chunks; then one apply swaps the whole index.
 */
import { EmbeddingCache } from '../embedding/cache.js';
import type { Embedder } from '../embedding/types.js';
import { AnnIndex } from '../index/ann.js';
import {
  annMetaFile,
  embeddingCacheDir,
  isRecord,
  liveChunkCount,
  liveRecords,
  loadHead,
  loadNotes,
  nextGeneration,
  noteEmbedText,
  readJsonSafe,
  readTexts,
  saveHead,
  type StoredChunk,
  syncNotes,
  type TopicHead,
} from '../index/service.js';
import { withIndexLock } from '../lock.js';
import { listTopicIds } from '../store/topic-files.js';

export interface BuildProgress {
  phase: 'notes' | 'docs' | 'code' | 'apply';
  topic?: string;
  /** Texts embedded so far in this run, and how many this run has to embed. */
  done: number;
  total: number;
  /** Texts per second so far. */
  rate: number;
  /** Seconds left at that rate; null before the first batch. */
  eta: number | null;
  /** phase 'apply': how long the longest topic apply of this round held the index lock (ms). */
  lockHeldMs?: number;
}

export interface BuildOptions {
  embedder: Embedder;
  /** Build chunk vectors too (else only topic notes). */
  chunks: boolean;
  topicIds?: string[];
  batchSize?: number;
  /** Apply to the index at most this often while embedding (default APPLY_EVERY_MS). */
  applyEveryMs?: number;
  onProgress?: (p: BuildProgress) => void;
  /** Asked between batches: stop early (the cache keeps what was done). */
  shouldStop?: () => boolean;
  /** Wait this long for the index lock per apply (default 10 min: a sync may be running). */
  lockTimeoutMs?: number;
}

export interface TopicBuild {
  chunks: number;
  vectors: number;
  /** Texts sent to the model for this topic. */
  embedded: number;
  /** The index moved to this space in this run (a model switch, or the first vectors). */
  swapped?: boolean;
}

/**
 * Every apply writes a new head, so every reader (a warm server, the next CLI search) re-opens the
 * topic and reloads its hnsw file: at 8k chunks an apply held the lock 76 ms (p50) to 611 ms, and
 * each reader paid a reload of the same size. Applying every 15 s, and never more than 1/20 of the
 * time, keeps that to one reload per reader per 15 s while coverage still moves visibly.
 */
const APPLY_EVERY_MS = 15_000;
const APPLY_DUTY = 20;

export interface BuildReport {
  embedder: string;
  chunks: boolean;
  notes: { embedded: number };
  topics: Record<string, TopicBuild>;
  embedded: number;
  seconds: number;
  stopped?: boolean;
}

interface Work {
  topic: string;
  hash: string;
  text: string;
}


/** Chunk ids that already have a vector of `key` (from ann.json alone: no graph is loaded). */
async function idsWithVectors(root: string, topic: string, head: TopicHead, key: string): Promise<Set<string>> {
  if (!head.vectors || head.vectors.key !== key || head.ann === null) return new Set();
  const meta = await readJsonSafe(annMetaFile(root, topic), (v): v is { generation: number; key: string; labels: [number, string][] } =>
    isRecord(v) && typeof v.generation === 'number' && typeof v.key === 'string' && Array.isArray(v.labels),
  );
  if (!meta || meta.generation !== head.ann || meta.key !== key) return new Set();
  return new Set(meta.labels.map((l) => l[1]));
}

export interface ApplyResult {
  vectors: number;
  chunks: number;
  added: number;
  swapped: boolean;
  /** Another space still serves: the cache does not yet cover every chunk in this one. */
  waiting?: number;
  /** How long the index lock was held (what a writer waiting behind this apply waited). */
  heldMs?: number;
}

/**
 * Under the index lock (briefly): add every live chunk's vector that the cache holds for the
 * embedder's space to the topic's hnsw index, and write a new head. No model is called.
 */
export async function applyFromCache(
  root: string,
  topic: string,
  space: { key: string; dimension: number },
  cache: EmbeddingCache,
  opts: { lockTimeoutMs?: number } = {},
): Promise<ApplyResult | null> {
  await cache.open(space.key, space.dimension);
  const held = async (): Promise<ApplyResult | null> => {
    const began = performance.now();
    const r = await applyLocked();
    return r ? { ...r, heldMs: Math.round(performance.now() - began) } : r;
  };
  const applyLocked = async (): Promise<ApplyResult | null> => {
    const head = await loadHead(root, topic);
    if (!head) return null;
    const records = await liveRecords(root, topic, head);
    if (!records) return null;
    const live = liveChunkCount(head);
    let ann: AnnIndex | null = null;
    if (head.vectors?.key === space.key && head.ann !== null) {
      ann = await AnnIndex.load(annMetaFile(root, topic), { generation: head.ann, key: space.key });
    }
    let swapped = false;
    if (!ann) {
      const other = head.vectors && head.vectors.key !== space.key && head.vectors.count > 0 && head.ann !== null;
      if (other) {
        // Never mix, never go dark: the old space serves until the new one is whole.
        const missing = records.filter((r) => !cache.has(space.key, r.hash)).length;
        if (missing > 0) return { vectors: head.vectors!.count, chunks: live, added: 0, swapped: false, waiting: missing };
      }
      ann = await AnnIndex.create(space.key, space.dimension, live + 16);
      swapped = true;
    }
    let added = 0;
    for (const r of records) {
      if (ann.has(r.id)) continue;
      const v = cache.get(space.key, r.hash);
      if (v) {
        ann.add(r.id, v);
        added++;
      }
    }
    if (added === 0 && !swapped) return { vectors: ann.size, chunks: live, added, swapped };
    const gen = nextGeneration(head.generation);
    await ann.save(annMetaFile(root, topic), gen);
    const next: TopicHead = {
      ...head,
      generation: gen,
      ann: gen,
      vectors: { key: ann.key, dimension: ann.dimension, complete: ann.size === live, count: ann.size },
    };
    await saveHead(root, topic, next);
    return { vectors: ann.size, chunks: live, added, swapped };
  };
  return withIndexLock(root, held, { timeoutMs: opts.lockTimeoutMs ?? 10 * 60_000 });
}

/** What the builder would embed now, in order (notes are handled apart). */
async function planChunks(root: string, key: string, topicIds: string[], cache: EmbeddingCache): Promise<{ docs: Work[]; code: Work[]; topics: string[] }> {
  const docs: Work[] = [];
  const code: Work[] = [];
  const topics: string[] = [];
  const seen = new Set<string>();
  for (const topic of topicIds) {
    const head = await loadHead(root, topic);
    if (!head) continue;
    const records = await liveRecords(root, topic, head);
    if (!records) continue;
    const have = await idsWithVectors(root, topic, head, key);
    const missing = records.filter((r) => !have.has(r.id));
    if (missing.length === 0) continue;
    topics.push(topic);
    const bySeg = new Map<number, StoredChunk[]>();
    for (const r of missing) {
      if (cache.has(key, r.hash) || seen.has(r.hash)) continue;
      seen.add(r.hash);
      bySeg.set(r.seg, [...(bySeg.get(r.seg) ?? []), r]);
    }
    for (const [gen, list] of bySeg) {
      list.sort((a, b) => a.off - b.off);
      const texts = await readTexts(root, topic, gen, list);
      if (!texts) continue;
      list.forEach((r, i) => (r.role === 'docs' ? docs : code).push({ topic, hash: r.hash, text: texts[i]! }));
    }
  }
  return { docs, code, topics };
}

/** Embeds what is missing (notes, then docs, then code) and applies it to the index as it goes. */
export async function buildVectors(root: string, opts: BuildOptions): Promise<BuildReport> {
  const { embedder } = opts;
  const key = embedder.key;
  const started = Date.now();
  const cache = new EmbeddingCache(embeddingCacheDir(root));
  await cache.open(key, embedder.dimension);
  const report: BuildReport = { embedder: key, chunks: opts.chunks, notes: { embedded: 0 }, topics: {}, embedded: 0, seconds: 0 };
  const batchSize = opts.batchSize ?? 16;
  const lockTimeoutMs = opts.lockTimeoutMs;
  let done = 0;
  let total = 0;
  const progress = (phase: BuildProgress['phase'], topic?: string, lockHeldMs?: number): void => {
    const secs = (Date.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    opts.onProgress?.({ phase, ...(topic ? { topic } : {}), done, total, rate, eta: rate > 0 ? (total - done) / rate : null, ...(lockHeldMs !== undefined ? { lockHeldMs } : {}) });
  };

  const embed = async (items: Work[], phase: BuildProgress['phase'], onBatch?: () => Promise<void>): Promise<boolean> => {
    for (let i = 0; i < items.length; i += batchSize) {
      if (opts.shouldStop?.()) return false;
      const batch = items.slice(i, i + batchSize);
      const out = await embedder.embedDocuments(batch.map((w) => w.text));
      if (out.length !== batch.length) throw new Error(`${key} returned ${out.length} vectors for ${batch.length} texts`);
      cache.putMany(
        key,
        batch.map((w, j) => [w.hash, out[j]!] as const),
      );
      await cache.flush();
      for (const w of batch) if (w.topic) report.topics[w.topic] = { ...(report.topics[w.topic] ?? { chunks: 0, vectors: 0, embedded: 0 }), embedded: (report.topics[w.topic]?.embedded ?? 0) + 1 };
      done += batch.length;
      report.embedded += batch.length;
      progress(phase, batch[0]!.topic || undefined);
      await onBatch?.();
    }
    return true;
  };

  // 1. Topic notes: embedded into the cache, then applied by a notes sync (a short lock).
  const notes = await loadNotes(root);
  const noteWork: Work[] = [];
  for (const e of Object.values(notes.topics)) {
    if (notes.key === key && e.vector) continue;
    if (!cache.has(key, e.hash)) noteWork.push({ topic: '', hash: e.hash, text: noteEmbedText(e) });
  }
  total += noteWork.length;
  if (!(await embed(noteWork, 'notes'))) return finish(true);
  report.notes.embedded = noteWork.length;
  if (Object.keys(notes.topics).length > 0 && (noteWork.length > 0 || notes.key !== key || Object.values(notes.topics).some((e) => !e.vector))) {
    await withIndexLock(root, () => syncNotes(root, embedder), { timeoutMs: lockTimeoutMs ?? 10 * 60_000 });
  }
  await recordSpaceInMeta(root, embedder, lockTimeoutMs);
  if (!opts.chunks) return finish(false);

  // 2. Chunks: docs of every topic, then code; applied every APPLY_EVERY_MS and at the end.
  const ids = opts.topicIds ?? (await listTopicIds(root));
  const applyEvery = opts.applyEveryMs ?? APPLY_EVERY_MS;
  for (let round = 0; round < 3; round++) {
    const plan = await planChunks(root, key, ids, cache);
    if (plan.topics.length === 0) break;
    total += plan.docs.length + plan.code.length;
    const touched = new Set<string>();
    let lastApply = Date.now();
    // Applies hold the index lock and make readers re-open the topic: at most 1/APPLY_DUTY of the time.
    let interval = applyEvery;
    const applyTouched = async (): Promise<void> => {
      const began = Date.now();
      let lockHeldMs = 0;
      for (const t of [...touched].sort()) {
        const r = await applyFromCache(root, t, embedder, cache, { lockTimeoutMs });
        lockHeldMs = Math.max(lockHeldMs, r?.heldMs ?? 0);
        if (r) report.topics[t] = { ...(report.topics[t] ?? { embedded: 0 }), chunks: r.chunks, vectors: r.vectors, ...(r.swapped ? { swapped: true } : {}) };
      }
      touched.clear();
      lastApply = Date.now();
      interval = Math.max(applyEvery, APPLY_DUTY * (lastApply - began));
      progress('apply', undefined, lockHeldMs);
    };
    const onBatch = async (): Promise<void> => {
      if (Date.now() - lastApply >= interval) await applyTouched();
    };
    const mark = (w: Work[]): void => w.forEach((x) => touched.add(x.topic));
    // Mark as we go so a periodic apply only touches topics with new vectors.
    const run = async (items: Work[], phase: BuildProgress['phase']): Promise<boolean> => {
      for (let i = 0; i < items.length; i += batchSize * 8) {
        const part = items.slice(i, i + batchSize * 8);
        mark(part);
        if (!(await embed(part, phase, onBatch))) return false;
      }
      return true;
    };
    const completed = (await run(plan.docs, 'docs')) && (await run(plan.code, 'code'));
    // Topics whose chunks were all cached already still need their apply.
    for (const t of plan.topics) touched.add(t);
    await applyTouched();
    if (!completed) return finish(true);
    if (plan.docs.length + plan.code.length === 0) break;
  }
  return finish(false);

  async function finish(stopped: boolean): Promise<BuildReport> {
    report.seconds = Math.round((Date.now() - started) / 100) / 10;
    if (stopped) report.stopped = true;
    // This machine's embedding speed for the space, for the next create's estimate.
    const { recordEmbedding } = await import('../estimate/rates.js');
    await recordEmbedding(root, key, report.embedded, (Date.now() - started) / 1000);
    return report;
  }
}

/** Under the index lock: give topic notes their vectors of `space` from the cache (no model). */
export async function restoreNotesFromCache(root: string, space: { key: string; dimension: number }, cache: EmbeddingCache): Promise<number> {
  await cache.open(space.key, space.dimension);
  const { encodeVector, notesIndexFile, writeJsonAtomic } = await import('../index/service.js');
  return withIndexLock(root, async () => {
    const notes = await loadNotes(root);
    if (notes.key !== space.key) {
      for (const e of Object.values(notes.topics)) delete e.vector;
      notes.key = space.key;
      notes.dimension = space.dimension;
    }
    let n = 0;
    for (const e of Object.values(notes.topics)) {
      if (e.vector) continue;
      const v = cache.get(space.key, e.hash);
      if (v) {
        e.vector = encodeVector(v);
        n++;
      }
    }
    await writeJsonAtomic(notesIndexFile(root), notes);
    return n;
  });
}

/** meta.json names the space the index is built in (what repairs fall back to when notes.json is lost). */
async function recordSpaceInMeta(root: string, space: { key: string; dimension: number }, lockTimeoutMs?: number): Promise<void> {
  const { readMeta, writeMeta, INDEX_FORMAT } = await import('../index/service.js');
  await withIndexLock(
    root,
    async () => {
      const meta = await readMeta(root);
      if (!meta || meta.format !== INDEX_FORMAT || (meta.embedder === space.key && meta.dimension === space.dimension)) return;
      await writeMeta(root, { ...meta, embedder: space.key, dimension: space.dimension, updated_at: new Date().toISOString() });
    },
    { timeoutMs: lockTimeoutMs ?? 10 * 60_000 },
  );
}
