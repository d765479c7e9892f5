/**
 * The vector side of a topic: an hnswlib cosine index whose integer labels map to chunk ids.
 * Changed chunks are markDeleted and re-added under new labels; when deleted points outnumber
 * live ones the graph is rebuilt from the live vectors so the file does not grow forever.
 * hnswlib-node is loaded lazily: commands that never search must not pay for the native module.
 */
import { lstat, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import type { HierarchicalNSW } from 'hnswlib-node';

import { isRecord, readJsonSafe, writeJsonAtomic } from './layout.js';

const ANN_FORMAT = 1;
const M = 16;
const EF_CONSTRUCTION = 200;
const SEED = 42;

export interface AnnFileMeta {
  format: number;
  generation: number;
  key: string;
  dimension: number;
  /** hnsw file name, next to ann.json. */
  file: string;
  nextLabel: number;
  /** [label, chunk id] of live points. */
  labels: [number, string][];
  /** Deleted points still inside the graph. */
  deleted: number;
}

function isAnnMeta(v: unknown): v is AnnFileMeta {
  return (
    isRecord(v) &&
    v.format === ANN_FORMAT &&
    typeof v.generation === 'number' &&
    typeof v.key === 'string' &&
    typeof v.dimension === 'number' &&
    typeof v.file === 'string' &&
    !v.file.includes('/') &&
    typeof v.nextLabel === 'number' &&
    Array.isArray(v.labels) &&
    typeof v.deleted === 'number'
  );
}

async function hnswlib(): Promise<typeof import('hnswlib-node')> {
  const mod = (await import('hnswlib-node')) as unknown as { default?: typeof import('hnswlib-node') };
  return (mod.default ?? mod) as typeof import('hnswlib-node');
}

export interface AnnHit {
  id: string;
  similarity: number;
}

export class AnnIndex {
  private readonly byId = new Map<string, number>();
  private readonly byLabel = new Map<number, string>();

  private constructor(
    private graph: HierarchicalNSW,
    readonly key: string,
    readonly dimension: number,
    private nextLabel: number,
    private deleted: number,
  ) {}

  static async create(key: string, dimension: number, capacity = 1024): Promise<AnnIndex> {
    const { HierarchicalNSW } = await hnswlib();
    const graph = new HierarchicalNSW('cosine', dimension);
    graph.initIndex({ maxElements: Math.max(16, capacity), m: M, efConstruction: EF_CONSTRUCTION, randomSeed: SEED });
    return new AnnIndex(graph, key, dimension, 0, 0);
  }

  /** The stored index, or null when it is missing, damaged or of another generation or model. */
  static async load(metaPath: string, expect: { generation: number; key: string }): Promise<AnnIndex | null> {
    const meta = await readJsonSafe(metaPath, isAnnMeta);
    if (!meta || meta.generation !== expect.generation || meta.key !== expect.key) return null;
    const file = join(dirname(metaPath), meta.file);
    // hnswlib reads by path: only a regular file, not a link (to /dev/zero, a FIFO) is handed over.
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile()) return null;
    const { HierarchicalNSW } = await hnswlib();
    const graph = new HierarchicalNSW('cosine', meta.dimension);
    try {
      await graph.readIndex(file);
    } catch {
      return null;
    }
    // The label map and the graph must describe the same points.
    if (graph.getNumDimensions() !== meta.dimension || graph.getCurrentCount() !== meta.labels.length + meta.deleted) return null;
    const index = new AnnIndex(graph, meta.key, meta.dimension, meta.nextLabel, meta.deleted);
    for (const [label, id] of meta.labels) {
      if (typeof label !== 'number' || typeof id !== 'string') return null;
      index.byId.set(id, label);
      index.byLabel.set(label, id);
    }
    return index;
  }

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  add(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) {
      throw new Error(`vector of dimension ${vector.length} given to an index of dimension ${this.dimension}`);
    }
    this.remove(id);
    const count = this.graph.getCurrentCount();
    if (count >= this.graph.getMaxElements()) this.graph.resizeIndex(Math.max(16, Math.ceil(count * 1.5) + 16));
    const label = this.nextLabel++;
    this.graph.addPoint(Array.from(vector), label);
    this.byId.set(id, label);
    this.byLabel.set(label, id);
  }

  remove(id: string): void {
    const label = this.byId.get(id);
    if (label === undefined) return;
    this.graph.markDelete(label);
    this.byId.delete(id);
    this.byLabel.delete(label);
    this.deleted++;
  }

  /** Nearest chunks by cosine similarity, best first; `filter` drops ids before the cut. */
  search(query: Float32Array, k: number, filter?: (id: string) => boolean): AnnHit[] {
    if (this.byId.size === 0 || k <= 0 || query.length !== this.dimension) return [];
    const n = Math.min(k, this.byId.size, this.graph.getMaxElements());
    this.graph.setEf(Math.max(64, n * 2));
    const labelFilter = filter
      ? (label: number): boolean => {
          const id = this.byLabel.get(label);
          return id !== undefined && filter(id);
        }
      : undefined;
    const res = this.graph.searchKnn(Array.from(query), n, labelFilter);
    const hits: AnnHit[] = [];
    for (let i = 0; i < res.neighbors.length; i++) {
      const id = this.byLabel.get(res.neighbors[i]!);
      if (id !== undefined) hits.push({ id, similarity: 1 - res.distances[i]! });
    }
    // hnswlib returns nearest first; equal distances are ordered by id so runs are repeatable.
    hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits;
  }

  /** Rebuilds the graph from live points when deletions dominate. */
  private async compactIfNeeded(): Promise<void> {
    if (this.deleted < 256 || this.deleted < this.byId.size) return;
    const { HierarchicalNSW } = await hnswlib();
    const fresh = new HierarchicalNSW('cosine', this.dimension);
    fresh.initIndex({ maxElements: Math.max(16, this.byId.size + 16), m: M, efConstruction: EF_CONSTRUCTION, randomSeed: SEED });
    const entries = [...this.byId.entries()].sort((a, b) => a[1] - b[1]);
    for (const [, label] of entries) fresh.addPoint(this.graph.getPoint(label), label);
    this.graph = fresh;
    this.deleted = 0;
  }

  /** Writes `ann-<generation>.hnsw` then ann.json (atomic), and drops the previous hnsw file. */
  async save(metaPath: string, generation: number): Promise<void> {
    await this.compactIfNeeded();
    const dir = dirname(metaPath);
    const file = `ann-${generation}.hnsw`;
    const previous = await readJsonSafe(metaPath, isAnnMeta);
    await this.graph.writeIndex(join(dir, file));
    const meta: AnnFileMeta = {
      format: ANN_FORMAT,
      generation,
      key: this.key,
      dimension: this.dimension,
      file,
      nextLabel: this.nextLabel,
      labels: [...this.byId.entries()].map(([id, label]) => [label, id] as [number, string]).sort((a, b) => a[0] - b[0]),
      deleted: this.deleted,
    };
    await writeJsonAtomic(metaPath, meta);
    if (previous && previous.file !== file) await rm(join(dir, basename(previous.file)), { force: true });
  }
}
