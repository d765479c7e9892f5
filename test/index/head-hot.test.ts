import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { headPieces, type HotSink, parseHeadLines, readHeadFile } from '../../src/lib/index/head-file.js';
import { hotHeadBytes, MIN_HOT_ROWS, readHotHead } from '../../src/lib/index/head-hot.js';
import { topicIndexDir } from '../../src/lib/index/layout.js';
import { emptyHead, loadHead, saveHead, type TopicHead } from '../../src/lib/index/topic-index.js';
import { tmpDir } from '../helpers/fixtures.js';

const hash = (i: number): string => (i % 16).toString(16).repeat(64);

/** Rows whose paths sort differently by UTF-16 and by UTF-8 (an astral character against U+FF5E). */
function rowsOf(n: number): [string, FileEntry][] {
  const special = ['docs/\u{1F600}.md', 'docs/\uFF5E.md', 'docs/a\nb "c".md', 'Größe – ü.md', 'README.md'];
  const paths = [...special, ...Array.from({ length: Math.max(0, n - special.length) }, (_, i) => `copy-${i % 7}/corpus/${i}.md`)];
  return paths.map((p, i): [string, FileEntry] => [
    p,
    {
      size: 100 + i,
      mtimeMs: 1_700_000_000_123.25 + i,
      sha256: hash(i),
      role: i % 3 === 0 ? 'code' : 'docs',
      chunkCount: i === 4 ? 0 : i % 5,
      ...(i % 5 > 0 && i !== 4 ? { seg: 1_795_838_931_888 + (i % 2), start: 3 * i } : {}),
      ...(i === 4 ? { skipped: 'too-large' as const } : {}),
    },
  ]);
}

function headOf(n: number, listing: string | null = 'digest='): TopicHead {
  const files = FileTable.fromEntries(rowsOf(n));
  files.listingDigest = listing;
  return { ...emptyHead('topic-x'), generation: 9, segments: [{ gen: 1_795_838_931_888, docs: 5, ids: 'aWRz' }, { gen: 1_795_838_931_889, docs: 3 }], files };
}

describe('head-hot.bin, the binary hot part of head.json', () => {
  let tmp: ReturnType<typeof tmpDir>;
  beforeEach(() => {
    tmp = tmpDir();
  });
  afterEach(() => tmp.cleanup());

  /** head.json of `head` in `dir`, and its binary copy stamped with that file. */
  function written(head: TopicHead): { headFile: string; hotFile: string } {
    const headFile = join(tmp.path, 'head.json');
    const hotFile = join(tmp.path, 'head-hot.bin');
    const sink: HotSink = { cols: {} };
    writeFileSync(headFile, Buffer.concat([...headPieces(head as never, sink)]));
    const stamp = readHeadFile(headFile).stamp!;
    writeFileSync(hotFile, hotHeadBytes({ fields: sink.fields!, cols: sink.cols, coldFrom: sink.coldFrom! }, stamp));
    return { headFile, hotFile };
  }

  it('reads back the fields and every row as head.json in lines does, hot and cold columns alike', () => {
    for (const listing of ['digest=', null]) {
      const { headFile, hotFile } = written(headOf(60, listing));
      const hot = readHotHead(hotFile, headFile)!;
      const lines = parseHeadLines(readHeadFile(headFile))!;
      const { files: _files, ...fields } = lines.fields;
      expect(hot.fields).toEqual(fields);
      expect(hot.files.listingDigest).toBe(listing);
      expect(hot.files.size).toBe(60);
      for (const [path] of rowsOf(60)) expect(hot.files.chunkCountOf(path), path).toBe(lines.files!.chunkCountOf(path));
      const view = hot.files.rowsView();
      for (const [path] of rowsOf(60)) expect(view.path.at(view.rows.get(path)!)).toBe(path);
      expect(view.rows.get('docs/nothing.md')).toBeUndefined();
      expect(view.rows.get('')).toBeUndefined();
      // The cold columns, read from head.json when first asked.
      expect([...hot.files.entries()]).toEqual([...lines.files!.entries()]);
      expect(hot.files.skippedFiles()).toEqual([{ path: 'README.md', reason: 'too-large', size: 104 }]);
      expect(JSON.stringify(hot.files)).toBe(JSON.stringify(lines.files));
    }
  });

  it('is not used once head.json is another file, or when it is damaged', () => {
    const { headFile, hotFile } = written(headOf(60));
    expect(readHotHead(hotFile, headFile)).not.toBeNull();
    const good = readFileSync(hotFile);
    // The same bytes renamed into place (what every write does): another file.
    writeFileSync(`${headFile}.tmp`, readFileSync(headFile));
    renameSync(`${headFile}.tmp`, headFile);
    expect(readHotHead(hotFile, headFile)).toBeNull();
    // Made again for the new file: used again; then damaged in each part.
    const { headFile: h2, hotFile: b2 } = written(headOf(60));
    const fresh = readFileSync(b2);
    expect(fresh.equals(good)).toBe(false); // another stamp
    const damage = (at: number, value: number): Buffer => {
      const copy = Buffer.from(fresh);
      copy[at] = value;
      return copy;
    };
    const offsetsAt = fresh.length - fresh.readUInt32LE(52) - 4 * 61;
    for (const bad of [fresh.subarray(0, fresh.length - 1), damage(0, 0x21), damage(offsetsAt + 4 * 10, 0xff), damage(70, 0x7b)]) {
      writeFileSync(b2, bad);
      expect(readHotHead(b2, h2)).toBeNull();
    }
    // A damaged path byte is not checked for: that path is then found nowhere.
    const last = [...FileTable.fromEntries(rowsOf(60)).paths()].sort().at(-1)!;
    writeFileSync(b2, damage(fresh.length - 1, 0xff));
    const hurt = readHotHead(b2, h2)!.files;
    expect(hurt.chunkCountOf(last)).toBe(0);
    expect(hurt.rowsView().rows.get(last)).toBeUndefined();
    rmSync(b2);
    expect(readHotHead(b2, h2)).toBeNull();
  });

  it('is written with the head by a sync, and made again by the reader of an older root without it', async () => {
    const root = tmp.path;
    const head = headOf(MIN_HOT_ROWS);
    await saveHead(root, 'topic-x', head);
    const hotFile = join(topicIndexDir(root, 'topic-x'), 'head-hot.bin');
    const headFile = join(topicIndexDir(root, 'topic-x'), 'head.json');
    expect(readHotHead(hotFile, headFile)).not.toBeNull();
    const expected = JSON.stringify((await loadHead(root, 'topic-x'))!.files);
    expect(expected).toBe(JSON.stringify(head.files));
    // An older root: head.json alone. Read as before, and the copy made for the next reader.
    rmSync(hotFile);
    const old = await loadHead(root, 'topic-x');
    expect(JSON.stringify(old!.files)).toBe(expected);
    expect(existsSync(hotFile)).toBe(true);
    const next = readHotHead(hotFile, headFile)!;
    expect(JSON.stringify(next.files)).toBe(expected);
    // A sync writes another head; the copy of the one before, put back, is not used.
    const before = readFileSync(hotFile);
    const changed = headOf(MIN_HOT_ROWS, 'other=');
    changed.files.set('docs/new.md', { size: 1, mtimeMs: 2, sha256: hash(3), role: 'docs', chunkCount: 0 });
    await saveHead(root, 'topic-x', changed);
    writeFileSync(hotFile, before);
    const reread = (await loadHead(root, 'topic-x'))!;
    expect(reread.files.listingDigest).toBeNull(); // set() cleared it, as written
    expect(JSON.stringify(reread.files)).toBe(JSON.stringify(changed.files));
    expect(reread.files.chunkCountOf('docs/new.md')).toBe(0);
    expect(reread.files.has('docs/new.md')).toBe(true);
    // A small head gets none.
    await saveHead(root, 'topic-y', headOf(MIN_HOT_ROWS - 1));
    expect(existsSync(join(topicIndexDir(root, 'topic-y'), 'head-hot.bin'))).toBe(false);
  });
});
