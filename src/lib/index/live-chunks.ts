/**
 * The live chunks of a topic's segments by id, without building them all: a query looks up a
 * few hundred candidates among 100k chunks, and making every record an object (and a Map entry)
 * up front was a large part of a cold search. A file's live chunks are one run of records in one
 * segment, in ordinal order, so `<path>#<n>` is found from the path alone.
 */
import type { FileRows, FileTable } from './file-table.js';
import type { SegmentRecords, StoredChunk } from './segment-records.js';

export class LiveChunks implements ReadonlyMap<string, StoredChunk> {
  private constructor(
    private readonly files: FileRows,
    private readonly segments: readonly SegmentRecords[],
    /** Per file row: the record its run starts at (-1: no live run), and in which segment. */
    private readonly startOf: Int32Array,
    private readonly segmentOf: Int32Array,
    readonly size: number,
  ) {}

  /**
   * Live chunks of `segments` (oldest first) under the file table `files`, with each segment's
   * liveness mask (1 = live). Null when the segments do not hold what the table says: a live
   * file's chunks split in two runs, or not as many as it counts, or a run's path damaged. A
   * record that does not say it is the chunk its place in the run implies (a damaged file) is
   * not found. Per-file state lives in typed arrays by table row: this runs once per cold search,
   * over every file, before the JIT has compiled anything.
   */
  static open(
    segments: readonly { gen: number; records: SegmentRecords }[],
    table: FileTable,
  ): { chunks: LiveChunks; masks: Uint8Array[]; allLive: boolean[] } | null {
    const files = table.rowsView();
    const startOf = new Int32Array(files.chunkCount.length).fill(-1);
    const segmentOf = new Int32Array(files.chunkCount.length);
    const masks: Uint8Array[] = [];
    const allLive: boolean[] = [];
    let size = 0;
    let runs = 0;
    for (let si = 0; si < segments.length; si++) {
      const { gen, records } = segments[si]!;
      const live = new Uint8Array(records.count);
      const before = size;
      for (let r = 0; r < records.runCount; r++) {
        const path = records.runPath(r);
        if (path === null) return null;
        const row = files.rows.get(path);
        if (row === undefined || files.seg[row] !== gen) continue;
        const start = records.runStarts[r]!;
        const count = records.runLength(r);
        if (startOf[row] !== -1 || files.chunkCount[row] !== count) return null;
        startOf[row] = start;
        segmentOf[row] = si;
        live.fill(1, start, start + count);
        size += count;
        runs++;
      }
      masks.push(live);
      allLive.push(size - before === records.count);
    }
    // Each run is a distinct file whose count matched: any file left without one is missing.
    if (table.filesWithChunks() !== runs) return null;
    return { chunks: new LiveChunks(files, segments.map((s) => s.records), startOf, segmentOf, size), masks, allLive };
  }

  get(id: string): StoredChunk | undefined {
    const hash = id.lastIndexOf('#');
    if (hash < 0) return undefined;
    const row = this.files.rows.get(id.slice(0, hash));
    const digits = id.slice(hash + 1);
    const n = Number(digits);
    if (row === undefined || this.startOf[row]! < 0 || !/^(0|[1-9]\d*)$/.test(digits) || n >= this.files.chunkCount[row]!) return undefined;
    // The run says which records are the file's; each must also say it is chunk n of it.
    const r = this.segments[this.segmentOf[row]!]!.record(this.startOf[row]! + n);
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
    for (let si = 0; si < this.segments.length; si++) {
      const rows: number[] = [];
      for (let row = 0; row < this.startOf.length; row++) if (this.startOf[row]! >= 0 && this.segmentOf[row] === si) rows.push(row);
      rows.sort((a, b) => this.startOf[a]! - this.startOf[b]!);
      for (const row of rows) {
        for (let n = 0; n < this.files.chunkCount[row]!; n++) {
          const c = this.get(`${this.files.path[row]!}#${n}`);
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
