import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FindListing, listingByFind, listingsByFind, parseFindListing, prefetchListing, prefetchListings, takePrefetchedListing, worthHalves } from '../../src/lib/index/listing-prefetch.js';
import type { FileStat } from '../../src/lib/index/file-table.js';
import { sameFilesByListing, stampListing } from '../../src/lib/index/scan.js';
import { tableOf } from '../helpers/file-table.js';
import { walkFiles } from '../../src/lib/index/walk.js';
import { tmpDir } from '../helpers/fixtures.js';

/** Every file a listing holds. */
function mapOf(listing: FindListing | null): Map<string, FileStat> | null {
  const out = new Map<string, FileStat>();
  return listing?.each((rel, size, mtimeMs) => out.set(rel, { size, mtimeMs }) !== null) ? out : null;
}

/** What the in-process walk sees: the reference the find listing must equal. */
function walked(dir: string): Map<string, FileStat> {
  const out = new Map<string, FileStat>();
  walkFiles(dir, (rel, st) => {
    out.set(rel, { size: st.size, mtimeMs: st.mtimeMs });
    return true;
  });
  return out;
}

describe('parseFindListing (pure)', () => {
  it('has the digest of the bytes find wrote before and after it is read, UTF-8 or not', () => {
    const utf8 = Buffer.from('3 1700000000.1234567890 é/ü.md\x003 1700000000.1234567890 b.md\0', 'utf8');
    const latin1 = Buffer.concat([Buffer.from('3 1700000000.1234567890 '), Buffer.from([0xe9, 0x2e, 0x6d, 0x64, 0])]);
    for (const bytes of [utf8, latin1]) {
      const expected = createHash('sha256').update(bytes).digest('base64');
      const listing = new FindListing(Buffer.from(bytes));
      expect(listing.each(() => true)).toBe(true);
      expect(listing.digest()).toBe(expected);
      expect(mapOf(listing)!.size).toBe(bytes === utf8 ? 2 : 1);
    }
  });

  it('reads size, time and path, with spaces and newlines in names', () => {
    const got = parseFindListing('12 1795501203.5036673830 a b.md\0' + '0 7.0000000010 dir/new\nline\0');
    expect(got).toEqual(
      new Map([
        ['a b.md', { size: 12, mtimeMs: 1795501203 * 1e3 + 503667383 / 1e6 }],
        ['dir/new\nline', { size: 0, mtimeMs: 7 * 1e3 + 1 / 1e6 }],
      ]),
    );
    expect(parseFindListing('')).toEqual(new Map());
  });

  it('refuses a cut-off answer, a time before 1970 and a record of another shape', () => {
    expect(parseFindListing('12 1795501203.5036673830 a.md')).toBeNull();
    expect(parseFindListing('12 -5.0000000000 a.md\0')).toBeNull();
    expect(parseFindListing('12 1795501203 a.md\0')).toBeNull();
    expect(parseFindListing('x 1795501203.5036673830 a.md\0')).toBeNull();
    expect(parseFindListing('12 1795501203.50366738 a.md\0')).toBeNull(); // under nine digits
    expect(parseFindListing('12 1795501203.503667383 \0')).toBeNull(); // no path
    expect(parseFindListing('12 1795501203.503667383a.md\0')).toBeNull();
    expect(parseFindListing('1234567890123456 1.000000000 a.md\0')).toBeNull(); // too many digits to read exactly
    expect(parseFindListing('1 1.000000000 a.md\0' + '2 2.000000000 b.md')).toBeNull(); // good, then cut off
  });

  it('reads every record exactly as the regular expression it replaced (property)', () => {
    const reference = (text: string): Map<string, FileStat> | null => {
      const out = new Map<string, FileStat>();
      const records = text.split('\0');
      if (records.pop() !== '') return null;
      for (const record of records) {
        const m = /^(\d+) (\d+)\.(\d{9})\d* (.+)$/s.exec(record);
        if (!m) return null;
        out.set(m[4]!, { size: Number(m[1]), mtimeMs: Number(m[2]) * 1e3 + Number(m[3]) / 1e6 });
      }
      return out;
    };
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n);
    const pieces = ['0', '7', '12', '1795501203', '.', ' ', '503667383', '5036673830', 'a', 'b c', 'x\ny', '-', 'ü', ''];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const records = 1 + rand(3);
      for (let r = 0; r < records; r++) {
        const good = rand(4) > 0;
        text += good ? `${rand(100_000)} ${1_700_000_000 + rand(99_999_999)}.${String(rand(1e9)).padStart(9, '0')}${'0'.repeat(rand(2))} f${rand(50)}.md` : Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
        if (r < records - 1 || rand(8) > 0) text += '\0';
      }
      expect(parseFindListing(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});

describe('listingByFind (a real find against the walk)', () => {
  let tmp: ReturnType<typeof tmpDir>;
  let dir: string;
  beforeEach(() => {
    tmp = tmpDir();
    dir = join(tmp.path, 'topic');
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    mkdirSync(join(dir, '.git', 'objects'), { recursive: true });
    mkdirSync(join(dir, 'stage.tmp-12-3'), { recursive: true });
    mkdirSync(join(dir, 'empty'));
    writeFileSync(join(dir, 'topic.md'), '---\nid: x\n---\n');
    writeFileSync(join(dir, 'README.md'), '# readme\n');
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'src', 'deep', 'b c.py'), 'b = 2\n');
    writeFileSync(join(dir, 'src', 'deep', 'new\nline.md'), 'odd name\n');
    writeFileSync(join(dir, 'src', 'Größe – ü.md'), 'unicode\n');
    writeFileSync(join(dir, 'src', 'a.ts.tmp-99-1'), 'half written\n');
    writeFileSync(join(dir, 'src', 'a.tmp-x'), 'not a temp name of ours\n');
    // Names find's glob lets through to its regex, which keeps them: not temp names either.
    for (const name of ['b.tmp-1x-2', 'c.tmp-1-2.md', 'd.tmp-12-34x']) writeFileSync(join(dir, 'src', name), 'almost\n');
    writeFileSync(join(dir, '.git', 'objects', 'x'), 'git\n');
    writeFileSync(join(dir, 'stage.tmp-12-3', 'inside.md'), 'staged\n');
    symlinkSync(join(dir, 'README.md'), join(dir, 'link.md'));
    symlinkSync(join(dir, 'src'), join(dir, 'src-link'));
    utimesSync(join(dir, 'README.md'), new Date(1_000_000), new Date(3_000_000)); // atime apart from mtime
  });
  afterEach(() => tmp.cleanup());

  it('lists exactly what walkFiles visits, with the same size and mtime numbers', async () => {
    const byFind = mapOf(await listingByFind(dir));
    const byWalk = walked(dir);
    expect([...byWalk.keys()].sort()).toEqual(['README.md', 'src/Größe – ü.md', 'src/a.tmp-x', 'src/a.ts', 'src/b.tmp-1x-2', 'src/c.tmp-1-2.md', 'src/d.tmp-12-34x', 'src/deep/b c.py', 'src/deep/new\nline.md', 'topic.md']);
    expect(byFind).toEqual(byWalk);
  });

  it('lists a big folder by two finds at once, byte for byte what one find prints', async () => {
    writeFileSync(join(dir, 'top.tmp-5-6'), 'a temp file of ours at the top\n');
    const spawned = (): { count: () => number; onSpawn: () => void } => {
      let n = 0;
      return { count: () => n, onSpawn: () => void n++ };
    };
    const one = (await listingByFind(dir))!;
    const halves = spawned();
    const byHalves = await listingByFind(dir, 'find', halves.onSpawn, true);
    expect(halves.count()).toBe(3); // the entries, then one find per half
    expect(byHalves!.digest()).toBe(one.digest());
    expect(mapOf(byHalves)).toEqual(walked(dir));
    // A top-level name find would read as an expression: one find after the entries, same bytes.
    writeFileSync(join(dir, '-name'), 'dash\n');
    const fallback = spawned();
    const withDash = await listingByFind(dir, 'find', fallback.onSpawn, true);
    expect(fallback.count()).toBe(2);
    expect(withDash!.digest()).toBe((await listingByFind(dir))!.digest());
    expect(mapOf(withDash)!.has('-name')).toBe(true);
    // Nothing to list but pruned entries, or nothing at all: what one find prints, nothing.
    const bare = join(tmp.path, 'bare');
    mkdirSync(join(bare, '.git'), { recursive: true });
    expect((await listingByFind(bare, 'find', undefined, true))!.digest()).toBe((await listingByFind(bare))!.digest());
    expect(mapOf(await listingByFind(join(bare, '.git'), 'find', undefined, true))).toEqual(new Map());
    expect(await listingByFind(join(tmp.path, 'missing'), 'find', undefined, true)).toBeNull();
  });

  it('takes two finds for a topic whose head-hot.bin holds ~50k files or more', () => {
    const hot = join(tmp.path, 'head-hot.bin');
    expect(worthHalves(hot)).toBe(false); // none: a head under 4,000 files
    writeFileSync(hot, '');
    truncateSync(hot, 2_299_999);
    expect(worthHalves(hot)).toBe(false);
    truncateSync(hot, 2_300_000);
    expect(worthHalves(hot)).toBe(true);
  });

  it('is null when it cannot list: no such command, no such folder', async () => {
    expect(await listingByFind(dir, join(tmp.path, 'no-find-here'))).toBeNull();
    expect(await listingByFind(join(tmp.path, 'missing'))).toBeNull();
  });

  it('answers sameFilesByListing as sameFilesByStat would: metadata skipped, any difference false', async () => {
    const listing = (await listingByFind(dir))!;
    const table: Record<string, FileStat> = Object.fromEntries([...walked(dir)].filter(([rel]) => rel !== 'topic.md'));
    expect(sameFilesByListing(listing, tableOf(table))).toBe(true);
    expect(sameFilesByListing(listing, tableOf({ ...table, 'gone.md': { size: 1, mtimeMs: 1 } }))).toBe(false);
    const { 'src/a.ts': _dropped, ...fewer } = table;
    expect(sameFilesByListing(listing, tableOf(fewer))).toBe(false);
    expect(sameFilesByListing(listing, tableOf({ ...table, 'README.md': { size: 9, mtimeMs: 3_000_001 } }))).toBe(false);
    expect(sameFilesByListing(new FindListing(Buffer.from('1 0.0010000000 constructor\0')), tableOf({}))).toBe(false);
    // Unreadable past the first difference or not, a listing that cannot be read says so.
    expect(sameFilesByListing(new FindListing(Buffer.from('1 0.001 a.md\0')), tableOf({}))).toBeNull();
    expect(sameFilesByListing(new FindListing(Buffer.alloc(0)), tableOf({}))).toBe(true);
  });

  it('takes a listing byte for byte like the stamped one as the same files, and compares any other', async () => {
    const listing = (await listingByFind(dir))!;
    const table = tableOf(Object.fromEntries([...walked(dir)].filter(([rel]) => rel !== 'topic.md')));
    stampListing(table, listing);
    expect(table.listingDigest).toBe(listing.digest());
    // The digest alone decides: a table stamped with this listing's digest but saying other
    // things is taken at its word (what the stamp promises is that it was checked).
    const forged = tableOf({ 'elsewhere.md': { size: 1, mtimeMs: 1 } });
    forged.listingDigest = listing.digest();
    expect(sameFilesByListing(listing, forged)).toBe(true);
    // Another listing of the same files (topic.md touched: metadata) is compared record by record.
    utimesSync(join(dir, 'topic.md'), new Date(5_000_000), new Date(5_000_000));
    const after = (await listingByFind(dir))!;
    expect(after.digest()).not.toBe(listing.digest());
    expect(sameFilesByListing(after, table)).toBe(true);
    expect(sameFilesByListing(after, forged)).toBe(false);
    // A table that does not match is never stamped; an edit clears a stamp.
    const wrong = tableOf({ 'README.md': { size: 1, mtimeMs: 1 } });
    stampListing(wrong, after);
    expect(wrong.listingDigest).toBeNull();
    table.set('README.md', { ...table.get('README.md')!, size: 2 });
    expect(table.listingDigest).toBeNull();
  });

  it('hands a prefetched listing over once, and only for the folder it was started for', async () => {
    prefetchListing(dir);
    expect(takePrefetchedListing(join(tmp.path, 'other'))).toBeNull();
    const taken = takePrefetchedListing(dir);
    expect(taken).not.toBeNull();
    expect(mapOf(await taken)).toEqual(walked(dir));
    expect(takePrefetchedListing(dir)).toBeNull();
  });

  it('lists several folders in one process, each part byte for byte what find prints for it alone', async () => {
    // A second folder with a quote and a space in its name, an empty one, and the first again.
    const other = join(tmp.path, "it's b");
    mkdirSync(join(other, 'deep'), { recursive: true });
    writeFileSync(join(other, 'deep', 'x.md'), 'x\n');
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty);
    const dirs = [dir, empty, other];
    const parts = (await listingsByFind(dirs))!;
    expect([...parts.keys()]).toEqual(dirs);
    for (const d of dirs) expect(parts.get(d)!.digest(), d).toBe((await listingByFind(d))!.digest());
    expect(mapOf(parts.get(other)!)).toEqual(walked(other));
    expect(mapOf(parts.get(empty)!)).toEqual(new Map());
    // Any folder that cannot be listed makes the whole answer null (the caller walks).
    expect(await listingsByFind([dir, join(tmp.path, 'missing')])).toBeNull();
    expect(await listingsByFind([])).toEqual(new Map());
  });

  it('hands each of several prefetched listings over once', async () => {
    const other = join(tmp.path, 'b');
    mkdirSync(other);
    writeFileSync(join(other, 'y.md'), 'y\n');
    prefetchListings([dir, other]);
    expect(takePrefetchedListing(join(tmp.path, 'c'))).toBeNull();
    const b = takePrefetchedListing(other);
    const a = takePrefetchedListing(dir);
    expect(mapOf(await a)).toEqual(walked(dir));
    expect(mapOf(await b)).toEqual(walked(other));
    expect(takePrefetchedListing(dir)).toBeNull();
    expect(takePrefetchedListing(other)).toBeNull();
  });

  it('does not keep the process alive for a listing nobody collects', () => {
    // A `find` that never ends (until its reader has gone: then its next write fails): a process
    // that waited for it would be killed by the timeout.
    const bin = join(tmp.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'find'), '#!/bin/sh\nwhile printf x; do sleep 0.1; done\n');
    chmodSync(join(bin, 'find'), 0o755);
    const module = join(import.meta.dirname, '../../src/lib/index/listing-prefetch.ts');
    const script = `const m = await import(${JSON.stringify(module)}); m.prefetchListing(${JSON.stringify(dir)}); console.log('started');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
      timeout: 600_000, // a process that waited for find would never exit; this only ends such a hang
    });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('started');
  });
});
