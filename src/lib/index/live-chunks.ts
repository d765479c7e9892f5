/**
 * The live chunks of a topic's segments by id, without building them all: a query looks up a
 * few hundred candidates among 100k chunks, and making every record an object (and a Map entry)
 * up front was a large part of a cold search. A file's live chunks are one run of records in one
 * segment, in ordinal order, so `<path>#<n>` is found from the path alone.
 */
import type { FileEntry } from './scan.js';
import type { SegmentRecords, StoredChunk } from './segment-records.js';

interface Run {
  records: SegmentRecords;
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
   * file's chunks split, out of order, or not as many as it counts.
   */
  static open(segments: readonly { gen: number; records: SegmentRecords }[], files: Readonly<Record<string, FileEntry>>): { chunks: LiveChunks; masks: Uint8Array[] } | null {
    const runs = new Map<string, Run>();
    const masks: Uint8Array[] = [];
    let size = 0;
    for (const { gen, records } of segments) {
      const live = new Uint8Array(records.count);
      for (let start = 0; start < records.count; ) {
        const pathNumber = records.pathNumber(start);
        let end = start + 1;
        while (end < records.count && records.pathNumber(end) === pathNumber) end++;
        const path = records.pathAt(start);
        const f = Object.hasOwn(files, path) ? files[path] : undefined;
        if (f && f.seg === gen) {
          if (runs.has(path)) return null;
          for (let i = start; i < end; i++) if (records.ordinalAt(i) !== i - start) return null;
          live.fill(1, start, end);
          runs.set(path, { records, start, count: end - start });
          size += end - start;
        }
        start = end;
      }
      masks.push(live);
    }
    for (const path in files) {
      const f = files[path]!;
      if (f.chunkCount > 0 && runs.get(path)?.count !== f.chunkCount) return null;
    }
    return { chunks: new LiveChunks(runs, size), masks };
  }

  get(id: string): StoredChunk | undefined {
    const hash = id.lastIndexOf('#');
    if (hash < 0) return undefined;
    const run = this.runs.get(id.slice(0, hash));
    const digits = id.slice(hash + 1);
    const n = Number(digits);
    if (!run || !/^(0|[1-9]\d*)$/.test(digits) || n >= run.count) return undefined;
    return run.records.record(run.start + n);
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
    for (const run of this.runs.values()) bySegment.set(run.records, [...(bySegment.get(run.records) ?? []), run]);
    for (const [records, runs] of bySegment) {
      runs.sort((a, b) => a.start - b.start);
      for (const run of runs) for (let i = run.start; i < run.start + run.count; i++) yield records.record(i);
    }
  }

  [Symbol.iterator](): MapIterator<[string, StoredChunk]> {
    return this.entries();
  }

  forEach(fn: (value: StoredChunk, key: string, map: ReadonlyMap<string, StoredChunk>) => void): void {
    for (const c of this.values()) fn(c, c.id, this);
  }
}
