/**
 * The live chunks of a topic's segments by id, without building them all: a query looks up a
 * few hundred candidates among 100k chunks, and making every record an object (and a Map entry)
 * up front was a large part of a cold search. A file's live chunks are one run of records in one
 * segment, in ordinal order, so `<path>#<n>` is found from the path alone.
 */
import type { FileTable } from './file-table.js';
import type { SegmentRecords, StoredChunk } from './segment-records.js';

interface Run {
  records: SegmentRecords;
  path: string;
  start: number;
  count: number;
}

export class LiveChunks implements ReadonlyMap<string, StoredChunk> {
  private constructor(
    private readonly runs: Map<string, Run>,
    readonly size: number,
  ) {}

  /**
   * Live chunks of `segments` (oldest first) under the file table `files`, with each segment's
   * liveness mask (1 = live). Null when the segments do not hold what the table says: a live
   * file's chunks split in two runs, or not as many as it counts. A record that does not say it
   * is the chunk its place in the run implies (a damaged file) is not found.
   */
  static open(
    segments: readonly { gen: number; records: SegmentRecords }[],
    files: FileTable,
  ): { chunks: LiveChunks; masks: Uint8Array[]; allLive: boolean[] } | null {
    const runs = new Map<string, Run>();
    const masks: Uint8Array[] = [];
    const allLive: boolean[] = [];
    let size = 0;
    for (const { gen, records } of segments) {
      const live = new Uint8Array(records.count);
      const before = size;
      // Indexed, not for-of: this runs once per process, mostly before the JIT has compiled it.
      const list = records.runs;
      for (let r = 0; r < list.length; r++) {
        const { path, start, count } = list[r]!;
        const chunkCount = files.chunkCountIn(path, gen);
        if (chunkCount < 0) continue;
        if (runs.has(path) || chunkCount !== count) return null;
        live.fill(1, start, start + count);
        runs.set(path, { records, path, start, count });
        size += count;
      }
      masks.push(live);
      allLive.push(size - before === records.count);
    }
    // Each run is a distinct file whose count matched: any file left without one is missing.
    if (files.filesWithChunks() !== runs.size) return null;
    return { chunks: new LiveChunks(runs, size), masks, allLive };
  }

  get(id: string): StoredChunk | undefined {
    const hash = id.lastIndexOf('#');
    if (hash < 0) return undefined;
    const run = this.runs.get(id.slice(0, hash));
    const digits = id.slice(hash + 1);
    const n = Number(digits);
    if (!run || !/^(0|[1-9]\d*)$/.test(digits) || n >= run.count) return undefined;
    // The run says which records are the file's; each must also say it is chunk n of it.
    const r = run.records.record(run.start + n);
    return r && r.id === id ? r : undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  *entries(): MapIterator<[string, StoredChunk]> {
    for (const c of this.values()) yield [c.id, c];
  }

  *keys(): MapIterator<string> {
    for (const c of this.values()) yield c.id;
  }

  /** In segment order, then doc order: the order the index used to insert them in. */
  *values(): MapIterator<StoredChunk> {
    const bySegment = new Map<SegmentRecords, Run[]>();
    for (const run of this.runs.values()) {
      const list = bySegment.get(run.records);
      if (list) list.push(run);
      else bySegment.set(run.records, [run]);
    }
    for (const runs of bySegment.values()) {
      runs.sort((a, b) => a.start - b.start);
      for (const run of runs) {
        for (let n = 0; n < run.count; n++) {
          const c = this.get(`${run.path}#${n}`);
          if (c) yield c;
        }
      }
    }
  }

  [Symbol.iterator](): MapIterator<[string, StoredChunk]> {
    return this.entries();
  }

  forEach(fn: (value: StoredChunk, key: string, map: ReadonlyMap<string, StoredChunk>) => void): void {
    for (const c of this.values()) fn(c, c.id, this);
  }
}
