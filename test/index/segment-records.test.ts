import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { LiveChunks } from '../../src/lib/index/live-chunks.js';
import { type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { digestIds, encodeRecords, SegmentRecords, type StoredChunk } from '../../src/lib/index/segment-records.js';

const GEN = 1_795_480_000_123;

/** Records of `files` (path -> chunk count) in doc order, texts back to back. */
function recordsOf(files: [string, number][], gen = GEN): StoredChunk[] {
  const out: StoredChunk[] = [];
  let off = 0;
  for (const [path, n] of files) {
    for (let i = 0; i < n; i++) {
      const len = 10 + i;
      out.push({
        id: `${path}#${i}`,
        path,
        startLine: 1 + 5 * i,
        endLine: 4 + 5 * i,
        role: i % 2 ? 'code' : 'docs',
        title: i === 0 ? `Ünïcode 标题 ${path}` : `${path} part ${i}`,
        symbol: i % 3 === 1 ? `fn_${i}` : undefined,
        kind: 'section',
        language: 'markdown',
        hash: `${i}`.padStart(64, 'a'),
        seg: gen,
        off,
        len,
      });
      off += len;
    }
  }
  return out;
}

const decode = (bytes: Uint8Array, gen = GEN): SegmentRecords | null => SegmentRecords.decode(gen, Buffer.from(bytes));

describe('segment records', () => {
  const records = recordsOf([['a.md', 3], ['dir/b.ts', 4], ['c.txt', 1]]);
  const bytes = encodeRecords(GEN, records);

  it('round-trip every field, in the key order of the old JSON records', () => {
    const back = decode(bytes)!;
    expect(back.count).toBe(records.length);
    expect(back.textBytes).toBe(records.reduce((n, r) => n + r.len, 0));
    expect(back.all()).toEqual(records);
    expect(back.all()!.map((r) => JSON.stringify(r))).toEqual(records.map((r) => JSON.stringify(r)));
    expect(back.record(2)).toBe(back.record(2)); // made once
  });

  it('carry the digest of their ids, equal to one computed from the ids as text and offsets', () => {
    const ids = records.map((r) => r.id);
    const offsets = new Uint32Array(ids.length + 1);
    ids.forEach((id, i) => (offsets[i + 1] = offsets[i]! + id.length));
    expect(decode(bytes)!.digest.equals(digestIds(ids.join(''), offsets))).toBe(true);
    const other = ids.slice().reverse();
    expect(decode(bytes)!.digest.equals(digestIds(other.join(''), offsets))).toBe(false);
  });

  it('carry that digest past the encoder\'s growth steps and hash batches (9,000 records)', () => {
    // The digest is taken as records arrive: its offsets grow with the columns, ids hashed in batches.
    const many = recordsOf(Array.from({ length: 900 }, (_, i): [string, number] => [`dir-${i}/Größe-${i}.md`, 10]));
    const ids = many.map((r) => r.id);
    const offsets = new Uint32Array(ids.length + 1);
    ids.forEach((id, i) => (offsets[i + 1] = offsets[i]! + id.length));
    expect(ids.length).toBe(9000);
    expect(decode(encodeRecords(GEN, many))!.digest.equals(digestIds(ids.join(''), offsets))).toBe(true);
  });

  it('round-trip a string table written in several pieces, strings larger than a piece among them', () => {
    // Pieces of 1 MiB: 30,000 paths of ~40 bytes, and a title of 1.5 MB between them.
    const many = recordsOf(Array.from({ length: 30_000 }, (_, i): [string, number] => [`folder-${i % 97}/naïve-file-${i}.md`, 1]));
    many[15_000]!.title = 'ü'.repeat(750_000);
    const back = decode(encodeRecords(GEN, many))!;
    expect(back.all()).toEqual(many);
    expect(back.runs()).toHaveLength(30_000);
  });

  it('an empty segment round-trips', () => {
    expect(decode(encodeRecords(GEN, []))!.all()).toEqual([]);
  });

  it('list one run per file, in doc order', () => {
    expect(decode(bytes)!.runs()).toEqual([
      { path: 'a.md', start: 0, count: 3 },
      { path: 'dir/b.ts', start: 3, count: 4 },
      { path: 'c.txt', start: 7, count: 1 },
    ]);
  });

  it('refuse another generation, every truncation, trailing bytes and another version', () => {
    expect(decode(bytes, GEN + 1)).toBeNull();
    for (let n = 0; n < bytes.length; n += 7) expect(decode(bytes.subarray(0, n))).toBeNull();
    expect(decode(Buffer.concat([bytes, Buffer.alloc(8)]))).toBeNull();
    const version = Buffer.from(bytes);
    version.writeUInt32LE(99, 8);
    expect(decode(version)).toBeNull();
  });

  it('every body word set to 0xFFFFFFFF: refused, or each record damaged (null) or in range', () => {
    let refused = 0;
    let damaged = 0;
    for (let at = 96; at + 4 <= bytes.length; at += 4) {
      const copy = Buffer.from(bytes);
      copy.writeUInt32LE(0xffffffff, at);
      const back = decode(copy);
      if (!back) {
        refused++;
        continue;
      }
      for (let i = 0; i < back.count; i++) {
        const r = back.record(i);
        if (!r) {
          damaged++;
          continue;
        }
        expect(typeof r.path).toBe('string');
        expect(r.off + r.len).toBeLessThanOrEqual(back.textBytes);
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(damaged).toBeGreaterThan(0);
  });
});

describe('segment records left in their file (SegmentRecords.open)', () => {
  const records = recordsOf([['a.md', 3], ['dir/b.ts', 4], ['c.txt', 1]]);
  const bytes = Buffer.from(encodeRecords(GEN, records));
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-rec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const openBytes = (b: Buffer, gen = GEN): SegmentRecords | null => {
    const file = join(dir, `seg-${n++}.rec`);
    writeFileSync(file, b);
    return SegmentRecords.open(gen, openSync(file, 'r'), b.length);
  };

  it('make each record, the runs, the digest and every record as decode does', () => {
    const open = openBytes(bytes)!;
    expect(open.onDisk).toBe(true);
    expect([open.count, open.textBytes]).toEqual([records.length, records.reduce((k, r) => k + r.len, 0)]);
    expect(open.digest.equals(decode(bytes)!.digest)).toBe(true);
    for (let i = 0; i < records.length; i++) expect(JSON.stringify(open.record(i))).toBe(JSON.stringify(records[i]));
    expect(open.record(records.length)).toBeNull();
    expect(open.runs()).toEqual(decode(bytes)!.runs());
    expect(openBytes(bytes)!.all()).toEqual(records);
  });

  it('refuse a wrong header, size or generation at once', () => {
    expect(openBytes(bytes, GEN + 1)).toBeNull();
    expect(openBytes(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(openBytes(bytes.subarray(0, 50))).toBeNull();
  });

  it('read only what a record needs: a damaged string elsewhere fails only its own records, and all()', () => {
    // c.txt's title is the last string: made non-UTF-8, decode refuses the whole file.
    const copy = Buffer.from(bytes);
    copy[copy.length - 1] = 0xff;
    expect(decode(copy)).toBeNull();
    const open = openBytes(copy)!;
    expect(JSON.stringify(open.record(0))).toBe(JSON.stringify(records[0]));
    expect(open.record(records.length - 1)).toBeNull();
    expect(openBytes(copy)!.all()).toBeNull();
  });
});

describe('live chunks', () => {
  const entry = (chunkCount: number, seg?: number): FileEntry => ({ size: 1, mtimeMs: 1, sha256: 'x', role: 'docs', chunkCount, ...(seg ? { seg } : {}) });
  const base = decode(encodeRecords(1, recordsOf([['a.md', 2], ['b.md', 3], ['c.md', 1]], 1)), 1)!;
  const delta = decode(encodeRecords(2, recordsOf([['b.md', 2]], 2)), 2)!;
  const segments = [{ gen: 1, records: base }, { gen: 2, records: delta }];
  const files = { 'a.md': entry(2, 1), 'b.md': entry(2, 2), 'c.md': entry(1, 1), 'empty.md': entry(0) };
  const table = (t: Record<string, FileEntry>): FileTable => FileTable.fromEntries(t);

  it('find live chunks by id, mask the dead ones, and list them in segment then doc order', () => {
    const { chunks, masks } = LiveChunks.open(segments, table(files))!;
    expect(chunks.get('a.md#1')).toBe(chunks.get('a.md#1'));
    expect(masks.map((m) => [...m])).toEqual([[1, 1, 0, 0, 0, 1], [1, 1]]);
    expect(chunks.size).toBe(5);
    expect(chunks.get('b.md#1')).toMatchObject({ id: 'b.md#1', seg: 2 });
    expect(chunks.get('b.md#2')).toBeUndefined(); // only in the dead base copy
    for (const id of ['a.md#01', 'a.md#-1', 'a.md#x', 'a.md', 'zz.md#0', 'a.md#1.0']) expect(chunks.has(id), id).toBe(false);
    expect([...chunks.keys()]).toEqual(['a.md#0', 'a.md#1', 'c.md#0', 'b.md#0', 'b.md#1']);
    expect([...chunks].map(([id, c]) => id === c.id)).toEqual([true, true, true, true, true]);
  });

  it('refuse a file table the segments do not match', () => {
    expect(LiveChunks.open(segments, table({ ...files, 'b.md': entry(3, 2) }))).toBeNull();
    expect(LiveChunks.open(segments, table({ ...files, 'gone.md': entry(1, 1) }))).toBeNull();
    expect(LiveChunks.open([segments[0]!], table(files))).toBeNull();
  });

  it('take each file\'s run from the table when it has them and the segments are the ones it was written for', () => {
    const withStart = (e: FileEntry, start: number): FileEntry => ({ ...e, start });
    const stampedFiles = { 'a.md': withStart(entry(2, 1), 0), 'b.md': withStart(entry(2, 2), 0), 'c.md': withStart(entry(1, 1), 5), 'empty.md': entry(0) };
    let calls = 0;
    const counting = (records: SegmentRecords): SegmentRecords =>
      new Proxy(records, {
        get(target, key) {
          if (key === 'runPath') return (r: number) => (calls++, target.runPath(r));
          const v = Reflect.get(target, key, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
    const ids = (r: SegmentRecords): string => r.digest.toString('base64');
    const stampedSegments = segments.map((s) => ({ ...s, records: counting(s.records), ids: ids(s.records) }));
    const byTable = LiveChunks.open(stampedSegments, table(stampedFiles))!;
    expect(calls).toBe(0);
    const byRuns = LiveChunks.open(segments, table(files))!;
    expect([...byTable.chunks.keys()]).toEqual([...byRuns.chunks.keys()]);
    expect(byTable.masks).toEqual(byRuns.masks);
    expect(byTable.allLive).toEqual([false, true]);
    // Another segment than the one the table was written for: its runs are read and matched.
    expect(LiveChunks.open(stampedSegments.map((s) => ({ ...s, ids: ids(base) })), table(stampedFiles))).not.toBeNull();
    expect(calls).toBeGreaterThan(0);
    // A start past the segment's end is refused; one inside it that is wrong finds nothing.
    expect(LiveChunks.open(stampedSegments, table({ ...stampedFiles, 'c.md': withStart(entry(1, 1), 6) }))).toBeNull();
    expect(LiveChunks.open(stampedSegments, table({ ...stampedFiles, 'c.md': withStart(entry(1, 1), -1) }))).toBeNull();
    expect(LiveChunks.open(stampedSegments, table({ ...stampedFiles, 'c.md': withStart(entry(1, 1), 0.5) }))).toBeNull();
    const wrong = LiveChunks.open(stampedSegments, table({ ...stampedFiles, 'c.md': withStart(entry(1, 1), 4) }))!;
    expect(wrong.chunks.get('c.md#0')).toBeUndefined();
  });

  it('refuse a segment whose run names a path cut mid-character (a damaged string table)', () => {
    const bytes = Buffer.from(encodeRecords(1, recordsOf([['aé', 2]], 1)));
    const [count, , , runs] = [12, 16, 20, 24].map((at) => bytes.readUInt32LE(at)) as [number, number, number, number];
    const runsAt = 96 + 8 * count + 4 * count * 11;
    const stringOffsets = runsAt + 8 * runs;
    const pathString = bytes.readUInt32LE(runsAt);
    const at = stringOffsets + 4 * (pathString + 1);
    bytes.writeUInt32LE(bytes.readUInt32LE(at) - 1, at); // the path now ends inside é
    const records = decode(bytes, 1)!;
    expect(records).not.toBeNull(); // the table as a whole is still UTF-8
    expect(records.runs()).toBeNull();
    expect(LiveChunks.open([{ gen: 1, records }], table({ aé: entry(2, 1) }))).toBeNull();
    expect(LiveChunks.open([{ gen: 1, records: decode(encodeRecords(1, recordsOf([['aé', 2]], 1)), 1)! }], table({ aé: entry(2, 1) }))).not.toBeNull();
  });

  it('do not find a record whose ordinal disagrees with its place in its run (a damaged file)', () => {
    const swapped = recordsOf([['a.md', 2]], 1);
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    const records = decode(encodeRecords(1, swapped), 1)!;
    const { chunks } = LiveChunks.open([{ gen: 1, records }], table({ 'a.md': entry(2, 1) }))!;
    expect(chunks.get('a.md#0')).toBeUndefined();
    expect(chunks.get('a.md#1')).toBeUndefined();
  });
});
