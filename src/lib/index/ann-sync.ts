/**
 * The vector half of a sync: drop the vectors of chunks that changed or went away, give every
 * live chunk a vector of the current embedder (the embedding cache answers for text seen before,
 * so only new text reaches the model), and save the hnsw index when it changed.
 */
import type { Embedder } from '../embedding/types.js';
import { AnnIndex } from './ann.js';
import { chunkIdsOf } from './scan.js';
import { embeddingCacheDir } from './layout.js';
import { readSegmentChunks } from './segments.js';
import { annMetaFile, liveChunkCount, type TopicHead } from './topic-index.js';

export interface VectorUpdate {
  /** Texts sent to the embedder (cache misses). */
  embedded: number;
  /** Why vectors could not be computed this time (the next sync retries). */
  error?: string;
}

export interface VectorInput {
  root: string;
  topic: string;
  embedder: Embedder | null;
  /** The head being written; its `ann` and `vectors` are updated here. */
  head: TopicHead;
  /** Chunk ids whose old vectors must go (files changed or removed). */
  dropped: readonly string[];
  /** Start from nothing: the stored hnsw index is unusable or absent. */
  reset: boolean;
  onProgress?: (done: number, total: number) => void;
}

export async function updateVectors(input: VectorInput): Promise<VectorUpdate> {
  const { root, topic, embedder, head } = input;
  const out: VectorUpdate = { embedded: 0 };
  const previous = head.vectors;
  let ann: AnnIndex | null = null;
  if (!input.reset && previous && head.ann !== null) {
    ann = await AnnIndex.load(annMetaFile(root, topic), { generation: head.ann, key: previous.key });
  }
  let dirty = ann === null && head.ann !== null;
  if (!ann && !embedder && previous && previous.count > 0) {
    // The stored hnsw index is damaged or gone and no model is at hand: put back every vector the
    // embedding cache holds for that space instead of dropping them (the builder adds the rest).
    ann = await annFromCache(input, previous);
    dirty = true;
  }
  if (ann) {
    for (const cid of input.dropped) {
      if (ann.has(cid)) {
        ann.remove(cid);
        dirty = true;
      }
    }
  }
  if (embedder && (!ann || ann.key !== embedder.key || ann.dimension !== embedder.dimension)) {
    // Vectors of two models never share an index.
    ann = await AnnIndex.create(embedder.key, embedder.dimension, liveChunkCount(head) + 16);
    dirty = true;
  }
  if (embedder && ann) {
    const missing: string[] = [];
    for (const [path, f] of head.files.entries()) for (const cid of chunkIdsOf(path, f)) if (!ann.has(cid)) missing.push(cid);
    if (missing.length > 0) {
      try {
        const items = await textsOf(input, missing);
        const { EmbeddingCache, embedWithCacheDetailed } = await import('../embedding/cache.js');
        const cache = new EmbeddingCache(embeddingCacheDir(root));
        const stats = await embedWithCacheDetailed(embedder, cache, items, { onProgress: input.onProgress });
        out.embedded = stats.embedded;
        for (const c of items) {
          const v = stats.vectors.get(c.hash);
          if (v) ann.add(c.id, v);
        }
        dirty = true;
      } catch (err) {
        out.error = err instanceof Error ? err.message : String(err);
      }
    }
  }
  if (ann && dirty) {
    await ann.save(annMetaFile(root, topic), head.generation);
    head.ann = head.generation;
  }
  if (!ann) head.ann = null;
  head.vectors = ann ? { key: ann.key, dimension: ann.dimension, complete: ann.size === liveChunkCount(head), count: ann.size } : null;
  return out;
}

/**
 * id, hash and text of the given live chunks, read from their segments: the sync writes its
 * chunks' texts to the new segment as it cuts them and keeps none in memory.
 */
async function textsOf(input: VectorInput, ids: readonly string[]): Promise<{ id: string; hash: string; text: string }[]> {
  const out: { id: string; hash: string; text: string }[] = [];
  const bySeg = new Map<number, Set<string>>();
  for (const id of ids) {
    const path = id.slice(0, id.lastIndexOf('#'));
    const seg = input.head.files.get(path)?.seg;
    if (seg === undefined) continue;
    if (!bySeg.has(seg)) bySeg.set(seg, new Set());
    bySeg.get(seg)!.add(id);
  }
  for (const [gen, wanted] of bySeg) {
    const chunks = await readSegmentChunks(input.root, input.topic, gen);
    if (!chunks) throw new Error(`index segment ${gen} is unreadable; the next search repairs it`);
    for (const c of chunks) if (wanted.has(c.id)) out.push({ id: c.id, hash: c.hash, text: c.text });
  }
  return out;
}

async function annFromCache(input: VectorInput, space: { key: string; dimension: number }): Promise<AnnIndex | null> {
  const { liveRecords } = await import('./segments.js');
  const { EmbeddingCache } = await import('../embedding/cache.js');
  const records = await liveRecords(input.root, input.topic, input.head);
  if (!records) return null;
  const cache = new EmbeddingCache(embeddingCacheDir(input.root));
  await cache.open(space.key, space.dimension);
  const ann = await AnnIndex.create(space.key, space.dimension, records.length + 16);
  for (const r of records) {
    const v = cache.get(space.key, r.hash);
    if (v) ann.add(r.id, v);
  }
  return ann.size > 0 ? ann : null;
}
