import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { headText, parseHeadLines, readHeadFile, wholeNumbers } from '../../src/lib/index/head-file.js';

const hash = (c: string): string => c.repeat(64);
const entry = (over: Partial<FileEntry> = {}): FileEntry => ({ size: 10, mtimeMs: 1_700_000_000_123.25, sha256: hash('a'), role: 'docs', chunkCount: 2, seg: 7, start: 0, ...over });
const rows: Record<string, FileEntry> = {
  'src/z.ts': entry({ role: 'code', sha256: hash('b'), start: 2 }),
  'README.md': entry({ chunkCount: 0, seg: undefined, start: undefined, skipped: 'too-large', size: 5_000_000 }),
  'docs/a\nb "c".md': entry({ seg: 9, chunkCount: 3, start: 4 }),
};
const head = (): { files: FileTable } & Record<string, unknown> => {
  const files = FileTable.fromEntries(rows);
  files.listingDigest = 'abc=';
  return { format: 7, topic: 'topic-x', generation: 5, segments: [{ gen: 7, docs: 4 }], ann: null, files, vectors: null };
};

describe('head.json in lines', () => {
  it('is the same JSON value as a head written whole, with every row back', () => {
    const h = head();
    const text = headText(h);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(h)));
    const back = parseHeadLines(Buffer.from(text))!;
    expect(back.fields).toMatchObject({ format: 7, topic: 'topic-x', generation: 5, segments: [{ gen: 7, docs: 4 }], ann: null, vectors: null });
    expect(back.files!.listingDigest).toBe('abc=');
    for (const [path, e] of Object.entries(rows)) expect(back.files!.get(path), path).toEqual(Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)));
    expect(back.files!.skippedFiles()).toEqual([{ path: 'README.md', reason: 'too-large', size: 5_000_000 }]);
  });

  it('answers a search from the hot columns and reads the cold ones only when asked', () => {
    const text = headText(head());
    // Hashes are cold: garbage there is not seen by a search's questions…
    const damaged = text.replace(hash('b'), 'x'.repeat(64)).replace(/"sha256":"[^"]*"/, '"sha256":7');
    const back = parseHeadLines(Buffer.from(damaged))!.files!;
    expect(back.chunkCountOf('docs/a\nb "c".md')).toBe(3);
    expect(Array.from(back.rowsView().start!)).toEqual([0, 4, 2]);
    expect(back.filesWithChunks()).toBe(2);
    // …and when a sync asks, every row reads as unknown, so every file is looked at again.
    expect(back.sameStat('src/z.ts', 10, 1_700_000_000_123.25)).toBe(false);
    expect(back.get('src/z.ts')!.sha256).toBe(hash('0'));
  });

  it('leaves a head written whole (before) to the whole parse, and refuses damaged hot columns', () => {
    expect(parseHeadLines(Buffer.from(JSON.stringify(head())))).toBeUndefined();
    const text = headText(head());
    expect(parseHeadLines(Buffer.from(text.replace('"chunkCount":[', '"chunkCount":["x",')))!.files).toBeNull();
    expect(parseHeadLines(Buffer.from(text.slice(0, -3)))!.files).toBeNull();
  });
});

describe('head.json read from its file up to the cold columns (readHeadFile)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-head-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Enough rows that the hot columns span several 1 MiB pieces.
  const big: Record<string, FileEntry> = {};
  for (let i = 0; i < 15_000; i++) big[`docs/section-${String(i).padStart(6, '0')}/a-page-with-a-rather-long-name-to-fill-the-pieces.md`] = entry({ sha256: hash(String(i % 10)), start: 2 * i });
  const bigHead = (): { files: FileTable } & Record<string, unknown> => ({ ...head(), files: FileTable.fromEntries(big) });

  it('reads the hot part only, and every row (cold columns too) comes back as from the whole bytes', () => {
    const file = join(dir, 'head.json');
    const text = headText(bigHead());
    writeFileSync(file, text);
    const read = readHeadFile(file);
    expect(read.size).toBe(Buffer.byteLength(text));
    // Up to the first cold column's name after the skipped files: hashes, sizes, mtimes and roles are not read.
    expect(read.bytes.length).toBe(text.indexOf('\n"role":') + '\n"role":'.length);
    const fromFile = parseHeadLines(read)!.files!;
    const whole = parseHeadLines(Buffer.from(text))!.files!;
    expect(fromFile.rowsView().start).toEqual(whole.rowsView().start);
    for (const path of Object.keys(big).filter((_, i) => i % 997 === 0)) expect(fromFile.get(path)).toEqual(whole.get(path));
  });

  it('reads the cold columns from the file it opened, even once a sync renamed a new head over it', () => {
    const file = join(dir, 'head2.json');
    writeFileSync(file, headText(bigHead()));
    const files = parseHeadLines(readHeadFile(file))!.files!;
    const other = { ...bigHead(), files: FileTable.fromEntries({ 'x.md': entry() }) };
    writeFileSync(`${file}.tmp`, headText(other));
    renameSync(`${file}.tmp`, file);
    const path = Object.keys(big)[123]!;
    expect(files.get(path)).toEqual(big[path]);
  });

  it('keeps the file open only for a head larger than one piece, until its cold columns are read', () => {
    const open = (): number => readdirSync('/proc/self/fd').length;
    const small = join(dir, 'small.json');
    writeFileSync(small, headText(head()));
    const before = open();
    const read = readHeadFile(small);
    expect(open()).toBe(before);
    expect(parseHeadLines(read)!.files!.get('src/z.ts')!.sha256).toBe(hash('b'));
    const large = join(dir, 'large.json');
    writeFileSync(large, headText(bigHead()));
    const files = parseHeadLines(readHeadFile(large))!.files!;
    expect(open()).toBe(before + 1);
    files.get(Object.keys(big)[0]!);
    expect(open()).toBe(before);
  });

  it('reads a head written whole (before lines) whole, and finds a head cut short damaged', () => {
    const whole = join(dir, 'whole.json');
    writeFileSync(whole, JSON.stringify(head()));
    const read = readHeadFile(whole);
    expect(read.bytes.length).toBe(read.size);
    expect(parseHeadLines(read)).toBeUndefined();
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, headText(bigHead()).slice(0, -3));
    expect(parseHeadLines(readHeadFile(cut))!.files).toBeNull();
  });
});

describe('hot number columns read without JSON.parse (wholeNumbers)', () => {
  const read = (text: string, n: number): number[] | null => {
    const out = wholeNumbers(Buffer.from(text), 0, Buffer.byteLength(text), n);
    return out && [...out];
  };

  it('reads plain digits as JSON does, and leaves anything else to JSON.parse', () => {
    for (const text of ['[]', '[0]', '[0,2,3,10]', '[1795838931888,1795838931888]', '[999999999999999]']) {
      const want = JSON.parse(text) as number[];
      expect(read(text, want.length), text).toEqual(want);
    }
    for (const text of ['[01]', '[-1]', '[1.5]', '[1e3]', '[1,]', '[,1]', '[1,,2]', '[1 ,2]', '[null]', '["1"]', '[9999999999999999]', '1,2', '[1,2']) expect(read(text, 2), text).toBeNull();
    expect(read('[1,2,3]', 2)).toBeNull();
    expect(read('[1,2]', 3)).toBeNull();
    expect(read('[]', 1)).toBeNull();
  });

  it('gives a table whose rows equal the JSON parse of the same head', () => {
    const text = headText(head());
    const fast = parseHeadLines(Buffer.from(text))!.files!;
    expect(fast.rowsView().chunkCount).toBeInstanceOf(Float64Array);
    for (const path of Object.keys(rows)) expect(fast.get(path)).toEqual(FileTable.decode((JSON.parse(text) as { files: unknown }).files)!.get(path));
  });
});

describe('the skipped files, read with the hot columns', () => {
  /** parseHeadLines over `text` whose cold part is read through rest(): counted. */
  const counted = (text: string): { files: FileTable; reads: () => number } => {
    const all = Buffer.from(text);
    let reads = 0;
    const read = readHeadFileLike(all, () => reads++);
    return { files: parseHeadLines(read)!.files!, reads: () => reads };
  };
  const readHeadFileLike = (all: Buffer, onRest: () => void): Parameters<typeof parseHeadLines>[0] => {
    const stop = all.indexOf('\n"role":') + '\n"role":'.length;
    return { bytes: all.subarray(0, stop), size: all.length, tail: all.toString('latin1', all.length - 3), rest: (from: number) => (onRest(), all.subarray(from)) };
  };

  it('none skipped: said without reading the cold columns', () => {
    const none = Object.fromEntries(Object.entries(rows).filter(([, e]) => !e.skipped));
    const { files, reads } = counted(headText({ ...head(), files: FileTable.fromEntries(none) }));
    expect(files.skippedFiles()).toEqual([]);
    expect(reads()).toBe(0);
    expect(files.get('src/z.ts')!.sha256).toBe(hash('b'));
    expect(reads()).toBe(1);
  });

  it('some skipped: their sizes from the cold columns, which keep the skipped reasons', () => {
    const { files, reads } = counted(headText(head()));
    expect(files.skippedFiles()).toEqual([{ path: 'README.md', reason: 'too-large', size: 5_000_000 }]);
    expect(reads()).toBe(1);
    expect(files.get('README.md')!.skipped).toBe('too-large');
  });
});
