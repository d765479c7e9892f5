import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { filesUnchanged, listTopicFiles, sameFilesByStat, sameListing, type FileStat } from '../../src/lib/index/scan.js';
import { listFiles } from '../../src/lib/index/walk.js';
import { takePrefetchedWalk } from '../../src/lib/index/walk-prefetch.js';
import { PROJECT, tmpDir } from '../helpers/fixtures.js';

describe('sameFilesByStat (the check a search makes before anything else)', () => {
  let tmp: ReturnType<typeof tmpDir>;
  let dir: string;
  let table: Record<string, FileStat>;

  beforeEach(async () => {
    tmp = tmpDir();
    dir = join(tmp.path, 'topic');
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'topic.md'), '---\nid: x\n---\n');
    writeFileSync(join(dir, 'README.md'), '# readme\n');
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'src', 'deep', 'b.py'), 'b = 2\n');
    symlinkSync(join(dir, 'README.md'), join(dir, 'link.md'));
    table = Object.fromEntries(await listTopicFiles(dir));
  });
  afterEach(() => tmp.cleanup());

  it('holds for the table the listing gave, with or without a trailing slash', () => {
    expect(Object.keys(table).sort()).toEqual(['README.md', 'src/a.ts', 'src/deep/b.py']);
    expect(sameFilesByStat(dir, table)).toBe(true);
    expect(sameFilesByStat(`${dir}/`, table)).toBe(true);
  });

  it('fails on a changed mtime or size', () => {
    utimesSync(join(dir, 'src', 'a.ts'), new Date(1_000_000), new Date(1_000_000));
    expect(sameFilesByStat(dir, table)).toBe(false);
    expect(sameFilesByStat(dir, { ...table, 'src/a.ts': { ...table['src/a.ts']!, size: 1 } })).toBe(false);
  });

  it('fails when a file is added or removed', () => {
    writeFileSync(join(dir, 'src', 'deep', 'c.md'), 'new\n');
    expect(sameFilesByStat(dir, table)).toBe(false);
    rmSync(join(dir, 'src', 'deep', 'c.md'));
    expect(sameFilesByStat(dir, table)).toBe(true);
    rmSync(join(dir, 'src', 'deep', 'b.py'));
    expect(sameFilesByStat(dir, table)).toBe(false);
  });

  it('a missing folder matches only an empty table', () => {
    expect(sameFilesByStat(join(tmp.path, 'none'), {})).toBe(true);
    expect(sameFilesByStat(join(tmp.path, 'none'), table)).toBe(false);
  });

  it('a listing (what the start-up worker posts) answers as the walk does', async () => {
    const both = (t: Record<string, FileStat>): boolean => {
      const walked = sameFilesByStat(dir, t);
      expect(sameListing(listFiles(dir), t)).toBe(walked);
      return walked;
    };
    expect(both(table)).toBe(true);
    expect(both({ ...table, 'src/a.ts': { ...table['src/a.ts']!, mtimeMs: 1 } })).toBe(false);
    const { 'src/deep/b.py': _gone, ...fewer } = table;
    expect(both(fewer)).toBe(false);
    // topic.md is metadata at the top only: deeper, a file of that name is a reference.
    writeFileSync(join(dir, 'src', 'topic.md'), 'nested\n');
    expect(both(table)).toBe(false);
    expect(both(Object.fromEntries(await listTopicFiles(dir)))).toBe(true);
  });

  it('without a prefetched listing, filesUnchanged walks', async () => {
    expect(takePrefetchedWalk(dir)).toBeUndefined();
    expect(await filesUnchanged(dir, table)).toBe(true);
    writeFileSync(join(dir, 'src', 'deep', 'c.md'), 'new\n');
    expect(await filesUnchanged(dir, table)).toBe(false);
  });

  // The worker runs compiled code: this part uses the build (npm run build), as the CLI does.
  it('the start-up worker lists the folder as it is when started, once', async () => {
    const built = (await import(pathToFileURL(join(PROJECT, 'dist/lib/index/walk-prefetch.js')).href)) as typeof import('../../src/lib/index/walk-prefetch.js');
    utimesSync(join(dir, 'src', 'a.ts'), new Date(2_000_000), new Date(2_000_000)); // same size, new mtime
    writeFileSync(join(dir, 'src', 'deep', 'c.md'), 'new\n');
    built.prefetchWalk(dir);
    const listing = await built.takePrefetchedWalk(dir);
    expect(listing).not.toBeNull();
    expect(listing!.paths.slice().sort()).toEqual(listFiles(dir).paths.slice().sort());
    expect(sameListing(listing!, table)).toBe(false);
    expect(sameListing(listing!, Object.fromEntries(await listTopicFiles(dir)))).toBe(true);
    expect(built.takePrefetchedWalk(dir)).toBeUndefined();
  });
});
