import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { FileStat } from '../../src/lib/index/file-table.js';
import { listTopicFiles, sameFilesByStat } from '../../src/lib/index/scan.js';
import { tableOf } from '../helpers/file-table.js';
import { tmpDir } from '../helpers/fixtures.js';

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
    expect(sameFilesByStat(dir, tableOf(table))).toBe(true);
    expect(sameFilesByStat(`${dir}/`, tableOf(table))).toBe(true);
  });

  it('fails on a changed mtime or size', () => {
    utimesSync(join(dir, 'src', 'a.ts'), new Date(1_000_000), new Date(1_000_000));
    expect(sameFilesByStat(dir, tableOf(table))).toBe(false);
    expect(sameFilesByStat(dir, tableOf({ ...table, 'src/a.ts': { ...table['src/a.ts']!, size: 1 } }))).toBe(false);
  });

  it('fails when a file is added or removed', () => {
    writeFileSync(join(dir, 'src', 'deep', 'c.md'), 'new\n');
    expect(sameFilesByStat(dir, tableOf(table))).toBe(false);
    rmSync(join(dir, 'src', 'deep', 'c.md'));
    expect(sameFilesByStat(dir, tableOf(table))).toBe(true);
    rmSync(join(dir, 'src', 'deep', 'b.py'));
    expect(sameFilesByStat(dir, tableOf(table))).toBe(false);
  });

  it('a missing folder matches only an empty table', () => {
    expect(sameFilesByStat(join(tmp.path, 'none'), tableOf({}))).toBe(true);
    expect(sameFilesByStat(join(tmp.path, 'none'), tableOf(table))).toBe(false);
  });
});
