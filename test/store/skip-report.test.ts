import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { readSkipped, SKIPPED_FILE, writeSkipped } from '../../src/lib/store/skipped.js';
import { folderOf, includeHint, skipLines, skipReport } from '../../src/lib/topics/skip-report.js';

describe('skipReport', () => {
  it('counts per reason and per folder (two levels), most first, the rest as (other folders)', () => {
    const skipped = [
      ...Array.from({ length: 3 }, (_, i) => ({ path: `dist/f${i}.js`, reason: 'generated' })),
      { path: 'packages/cli/target/debug/x.d', reason: 'generated' },
      { path: 'packages/cli/big.bin', reason: 'binary' },
      { path: 'Cargo.lock', reason: 'lockfile' },
    ];
    const r = skipReport(skipped, 2, 2);
    expect(r.count).toBe(6);
    expect(r.by_reason).toEqual({ generated: 4, binary: 1, lockfile: 1 });
    expect(r.by_folder).toEqual([
      { folder: 'dist/', count: 3, by_reason: { generated: 3 } },
      { folder: 'packages/cli/', count: 2, by_reason: { generated: 1, binary: 1 } },
      { folder: '(other folders)', count: 1, by_reason: { lockfile: 1 } },
    ]);
    expect(r.sample).toEqual(skipped.slice(0, 2));
    expect(skipLines(r)).toEqual(['skipped 6: generated 4, binary 1, lockfile 1', '  by folder: dist/ 3 (generated), packages/cli/ 2 (generated, binary), (other folders) 1 (lockfile)']);
  });

  it('is empty and silent without skips', () => {
    expect(skipReport([])).toEqual({ count: 0, by_reason: {}, by_folder: [], sample: [] });
    expect(skipLines(skipReport([]))).toEqual([]);
  });

  it('names folders and hints', () => {
    expect(folderOf('a.md')).toBe('./');
    expect(folderOf('docs/a.md')).toBe('docs/');
    expect(folderOf('a/b/c/d.md')).toBe('a/b/');
    expect(includeHint('generated')).toContain('`paths`');
    expect(includeHint('too_large')).toContain('max_file_bytes');
    expect(includeHint('binary')).toContain('never fetched');
  });
});

describe('.tkoma-skipped.jsonl', () => {
  it('round-trips sorted records, drops unsafe or damaged lines, and is removed when empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-skipped-file-'));
    try {
      await writeSkipped(dir, [
        { path: 'z.lock', reason: 'lockfile', source: 'file:///r' },
        { path: 'dist/a.js', reason: 'generated', source: 'file:///r', bytes: 12 },
      ]);
      expect(readFileSync(join(dir, SKIPPED_FILE), 'utf8')).toBe(
        '{"path":"dist/a.js","reason":"generated","source":"file:///r","bytes":12}\n{"path":"z.lock","reason":"lockfile","source":"file:///r"}\n',
      );
      writeFileSync(join(dir, SKIPPED_FILE), readFileSync(join(dir, SKIPPED_FILE), 'utf8') + 'not json\n{"path":"../x","reason":"binary","source":""}\n');
      expect((await readSkipped(dir)).map((r) => r.path)).toEqual(['dist/a.js', 'z.lock']);
      await writeSkipped(dir, []);
      expect(await readSkipped(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
