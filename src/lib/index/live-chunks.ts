/**
 * The live chunks of a topic's segments by id, without building them all: a query looks up a
 * few hundred candidates among 100k chunks, and making every record an object (and a Map entry)
 * up front was a large part of a cold search. A file's live chunks are one run of records in one
 * segment, in ordinal order, so `<path>#<n>` is found from the path alone.
 */
import type { FileRows, FileTable } from './file-table.js';
import type { SegmentRecords, StoredChunk } from './segment-records.js';

type Place = (row: number, segment: number, start: number, count: number) => void;

/** Runs from the table's starts (see LiveChunks.open): files placed, or null when one is off the segment. */
function placeByTable(files: FileRows, segments: readonly { gen: number; records: SegmentRecords }[], place: Place): number | null {
  const { chunkCount, seg, start } = files;
  let placed = 0;
  for (let row = 0; row < chunkCount.length; row++) {
    const count = chunkCount[row]!;
    if (count === 0) continue;
    let si = segments.length - 1;
    while (si >= 0 && segments[si]!.gen !== seg[row]) si--;
    // A damaged table's numbers must still name records of the segment.
    const at = start![row]!;
    if (si < 0 || !Number.isInteger(at) || !Number.isInteger(count) || at < 0 || count < 0 || at + count > segments[si]!.records.count) return null;
    place(row, si, at, count);
    placed++;
  }
  return placed;
}

/** Runs from the segments, matched to the table by path: files placed, or null when one is split or miscounted. */
function placeByRuns(files: FileRows, segments: readonly { gen: number; records: SegmentRecords }[], place: Place): number | null {
  const placedAt = new Uint8Array(files.chunkCount.length);
  let placed = 0;
  for (let si = 0; si < segments.length; si++) {
    const { gen, records } = segments[si]!;
    for (let r = 0; r < records.runCount; r++) {
      const path = records.runPath(r);
      if (path === null) return null;
      const row = files.rows.get(path);
      if (row === undefined || files.seg[row] !== gen) continue;
      const count = records.runLength(r);
      if (placedAt[row] === 1 || files.chunkCount[row] !== count) return null;
      placedAt[row] = 1;
      place(row, si, records.runStarts[r]!, count);
      placed++;
    }
  }
  return placed;
}

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
   *
   * When the table gives each file's run (FileEntry.start) and every segment is the one it was
   * written for (its ids digest, SegmentInfo.ids), the runs are taken from the table: no path of
   * the segments is decoded or looked up. Otherwise the segments' runs are matched to the table.
   */
  static open(
    segments: readonly { gen: number; records: SegmentRecords; ids?: string | undefined }[],
    table: FileTable,
  ): { chunks: LiveChunks; masks: Uint8Array[]; allLive: boolean[] } | null {
    const files = table.rowsView();
    const startOf = new Int32Array(files.chunkCount.length).fill(-1);
    const segmentOf = new Int32Array(files.chunkCount.length);
    const masks = segments.map((s) => new Uint8Array(s.records.count));
    let size = 0;
    const place = (row: number, si: number, start: number, count: number): void => {
      startOf[row] = start;
      segmentOf[row] = si;
      masks[si]!.fill(1, start, start + count);
      size += count;
    };
    const stamped = files.start !== null && segments.every((s) => s.ids !== undefined && s.ids === s.records.digest.toString('base64'));
    const placed = stamped ? placeByTable(files, segments, place) : placeByRuns(files, segments, place);
    // Each file with chunks found its run, and no other: any file left without one is missing.
    if (placed === null || table.filesWithChunks() !== placed) return null;
    // A native scan for a dead doc, not a count in JS.
    const allLive = masks.map((m) => m.indexOf(0) === -1);
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
          const c = this.get(`${this.files.path.at(row)!}#${n}`);
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
