import { describe, expect, it } from 'vitest';

import { type FileColumns, type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { headText } from '../../src/lib/index/head-file.js';

const hash = (c: string): string => c.repeat(64);
const entry = (over: Partial<FileEntry> = {}): FileEntry => ({ size: 10, mtimeMs: 1_700_000_000_123.25, sha256: hash('a'), role: 'docs', chunkCount: 2, seg: 7, ...over });

/** A table as head.json would hand it back: written, parsed, decoded. */
const roundTrip = (t: FileTable): FileTable | null => FileTable.decode(JSON.parse(JSON.stringify(t)));

describe('FileTable', () => {
  const rows: Record<string, FileEntry> = {
    'src/z.ts': entry({ role: 'code', sha256: hash('b') }),
    'README.md': entry({ chunkCount: 0, seg: undefined, skipped: 'too-large', size: 5_000_000 }),
    ['__proto__']: entry({ chunkCount: 1, sha256: hash('c') }),
    'img.png': entry({ chunkCount: 0, seg: undefined, skipped: 'binary' }),
    'docs/a b.md': entry({ seg: 9, chunkCount: 3 }),
  };
  const clean = (e: FileEntry): FileEntry => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as FileEntry;

  it('writes columns sorted by path and reads back every entry as it was', () => {
    const table = FileTable.fromEntries(rows);
    const json = JSON.parse(JSON.stringify(table)) as { path: string[]; sha256: string; seg: number[]; skipped: Record<string, string> };
    expect(json.path).toEqual(Object.keys(rows).sort());
    expect(json.sha256).toHaveLength(64 * 5);
    expect(json.seg[json.path.indexOf('img.png')]).toBe(0);
    expect(json.skipped).toEqual({ 'README.md': 'too-large', 'img.png': 'binary' });
    const back = roundTrip(table)!;
    expect(back.size).toBe(5);
    for (const [path, e] of Object.entries(rows)) expect(back.get(path), path).toEqual(clean(e));
    expect(Object.fromEntries(back.entries())).toEqual(Object.fromEntries(Object.entries(rows).map(([p, e]) => [p, clean(e)])));
    expect(back.get('constructor')).toBeUndefined();
    expect(back.has('toString')).toBe(false);
  });

  it('answers the reader checks the same from columns and from entries', () => {
    for (const table of [FileTable.fromEntries(rows), roundTrip(FileTable.fromEntries(rows))!]) {
      expect(table.sameStat('src/z.ts', 10, 1_700_000_000_123.25)).toBe(true);
      expect(table.sameStat('src/z.ts', 10, 1_700_000_000_123.5)).toBe(false);
      expect(table.sameStat('src/z.ts', 11, 1_700_000_000_123.25)).toBe(false);
      expect(table.sameStat('gone.md', 10, 1_700_000_000_123.25)).toBe(false);
      const rows = table.rowsView();
      const row = rows.rows.get('docs/a b.md')!;
      expect([rows.path.at(row), rows.chunkCount[row], rows.seg[row]]).toEqual(['docs/a b.md', 3, 9]);
      expect(rows.seg[rows.rows.get('img.png')!]).toBe(0);
      expect(rows.rows.get('gone.md')).toBeUndefined();
      expect(rows.rows.get('a')).toBeUndefined();
      expect(rows.rows.get('zz')).toBeUndefined();
      expect(table.filesWithChunks()).toBe(3);
      expect(table.chunkTotal()).toBe(6);
      expect(table.skippedFiles().map((s) => [s.path, s.reason, s.size]).sort()).toEqual([['README.md', 'too-large', 5_000_000], ['img.png', 'binary', 10]]);
    }
  });

  it('refuses damaged columns: lengths, types, repeated paths, hashes, roles, reasons', () => {
    const good = JSON.parse(JSON.stringify(FileTable.fromEntries(rows))) as Record<string, unknown>;
    expect(FileTable.decode(good)).not.toBeNull();
    const bad: [string, (c: Record<string, unknown[] | string | object>) => void][] = [
      ['short size column', (c) => (c.size as unknown[]).pop()],
      ['string size', (c) => ((c.size as unknown[])[1] = '10')],
      ['null mtime', (c) => ((c.mtimeMs as unknown[])[0] = null)],
      ['repeated path', (c) => ((c.path as unknown[])[1] = (c.path as unknown[])[0])],
      ['number path', (c) => ((c.path as unknown[])[2] = 3)],
      ['hashes cut short', (c) => (c.sha256 = (c.sha256 as string).slice(1))],
      ['unknown role', (c) => ((c.role as unknown[])[0] = 'prose')],
      ['skipped file not in the table', (c) => (c.skipped = { 'nowhere.md': 'binary' })],
      ['unknown reason', (c) => (c.skipped = { 'img.png': 'huge' })],
      ['seg missing', (c) => delete c.seg],
      ['chunk counts not an array', (c) => (c.chunkCount = {})],
    ];
    for (const [what, damage] of bad) {
      const copy = structuredClone(good) as Record<string, unknown[] | string | object>;
      damage(copy);
      expect(FileTable.decode(copy), what).toBeNull();
    }
    expect(FileTable.decode(null)).toBeNull();
    expect(FileTable.decode([])).toBeNull();
  });

  it('edits a copy: clone, set and delete leave the table read from disk as it was', () => {
    const stored = roundTrip(FileTable.fromEntries(rows))!;
    const next = stored.clone();
    next.set('src/z.ts', entry({ size: 99 }));
    next.set('new.md', entry({ seg: 11 }));
    expect(next.delete('img.png')).toBe(true);
    expect(next.delete('img.png')).toBe(false);
    expect(next.size).toBe(5);
    expect(next.get('src/z.ts')!.size).toBe(99);
    expect(stored.get('src/z.ts')!.size).toBe(10);
    expect(stored.has('new.md')).toBe(false);
    expect(stored.has('img.png')).toBe(true);
    expect(roundTrip(next)!.get('new.md')).toEqual(entry({ seg: 11 }));
  });

  it('keeps a listing digest through head.json, and drops it on a clone or an edit', () => {
    const table = FileTable.fromEntries(rows);
    expect(roundTrip(table)!.listingDigest).toBeNull();
    table.listingDigest = 'abc=';
    const back = roundTrip(table)!;
    expect(back.listingDigest).toBe('abc=');
    expect(back.clone().listingDigest).toBeNull();
    back.delete('nowhere.md');
    expect(back.listingDigest).toBeNull();
  });

  /** head.json's columns as toJSON made them before they were columns in memory: arrays of every row, sorted. */
  function wholeColumns(entries: [string, FileEntry][], listing: string | null): FileColumns {
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const out: FileColumns = { path: [], size: [], mtimeMs: [], sha256: '', role: [], chunkCount: [], seg: [], skipped: Object.create(null) as FileColumns['skipped'] };
    const starts: number[] = [];
    let everyStart = true;
    for (const [path, e] of sorted) {
      out.path.push(path);
      out.size.push(e.size);
      out.mtimeMs.push(e.mtimeMs);
      out.sha256 += /^[0-9a-f]{64}$/.test(e.sha256) ? e.sha256 : '0'.repeat(64);
      out.role.push(e.role);
      out.chunkCount.push(e.chunkCount);
      out.seg.push(e.seg ?? 0);
      starts.push(e.start ?? 0);
      if (e.chunkCount > 0 && e.start === undefined) everyStart = false;
      if (e.skipped) out.skipped[path] = e.skipped;
    }
    if (everyStart) out.start = starts;
    if (listing !== null) out.listing = listing;
    return out;
  }

  it("writes head.json's columns a piece at a time, byte for byte as whole arrays, from edited rows", () => {
    // More rows than one piece of text (4,096), set out of order, edited, deleted and set again.
    const table = FileTable.empty();
    const model = new Map<string, FileEntry>();
    const put = (path: string, e: FileEntry): void => {
      table.set(path, e);
      model.set(path, e);
    };
    for (let i = 9_999; i >= 0; i--) {
      const hex = (i * 2_654_435_761).toString(16).padStart(64, '0').slice(-64);
      put(`dir-${i % 7}/f${i}.md`, { size: i, mtimeMs: 1_700_000_000_000 + i / 8, sha256: hex, role: i % 3 === 0 ? 'code' : 'docs', chunkCount: i % 5, ...(i % 5 ? { seg: 1_764_000_000_000 + (i % 2), start: i } : {}) });
    }
    put('dir-1/f8.md', { ...model.get('dir-1/f8.md')!, size: 123_456_789_012 });
    for (const p of ['dir-0/f0.md', 'dir-3/f3.md']) {
      table.delete(p);
      model.delete(p);
    }
    put('dir-3/f3.md', entry({ sha256: 'not a hash', skipped: 'unchunkable', chunkCount: 0, seg: undefined }));
    put('__proto__', entry({ start: 0 }));
    put('é/ünïcode "quoted".md', entry({ start: 2 }));
    table.listingDigest = 'digest=';
    const expected = wholeColumns([...model], 'digest=');
    expect(JSON.stringify(table)).toBe(JSON.stringify(expected));
    expect(table.get('dir-3/f3.md')!.sha256).toBe('not a hash');
    // Each column on its own line, as headText writes it, the same text as JSON.stringify of the array.
    const lines = headText({ format: 6, files: table }).split('\n');
    for (const [name, value] of Object.entries(expected)) expect(lines, name).toContain(`${JSON.stringify(name)}:${JSON.stringify(value)}${name === 'sha256' ? '' : ','}`);
    // Entries come out in the order a Map of them kept (set again after a delete: last).
    expect([...table.paths()]).toEqual([...model.keys()]);
    expect(Object.fromEntries(table.entries())).toEqual(Object.fromEntries([...model].map(([p, e]) => [p, clean(e)])));
    // A start missing on a row with chunks: no start column at all.
    table.set('zz.md', entry({ chunkCount: 1 }));
    expect(JSON.stringify(table)).not.toContain('"start"');
  });
});
