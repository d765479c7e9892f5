/** Carrying an operator's late writes from one folder into another (refresh), on a real file system. */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { changedEntries, placeEntry, scanTree } from '../../src/lib/topics/carry.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tkoma-carry-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('carry', () => {
  it('sees added, edited and deleted files between two scans', () => {
    const live = join(dir, 'live');
    mkdirSync(join(live, 'docs'), { recursive: true });
    writeFileSync(join(live, 'keep.md'), 'same\n');
    writeFileSync(join(live, 'docs', 'edit.md'), 'old\n');
    writeFileSync(join(live, 'gone.md'), 'bye\n');
    const before = scanTree(live);
    writeFileSync(join(live, 'docs', 'edit.md'), 'new, longer\n');
    rmSync(join(live, 'gone.md'));
    writeFileSync(join(live, 'added.md'), 'hi\n');
    expect(changedEntries(before, scanTree(live))).toEqual([
      { path: 'added.md', gone: false },
      { path: 'docs/edit.md', gone: false },
      { path: 'gone.md', gone: true },
    ]);
  });

  it('places files and symlinks (as links), and reports a source that is gone', async () => {
    const from = join(dir, 'from');
    const to = join(dir, 'to');
    mkdirSync(join(from, 'docs'), { recursive: true });
    mkdirSync(to);
    writeFileSync(join(from, 'docs', 'note.md'), 'operator text\n');
    symlinkSync('note.md', join(from, 'docs', 'alias.md'));
    expect(await placeEntry(from, to, 'docs/note.md')).toBe(true);
    expect(readFileSync(join(to, 'docs', 'note.md'), 'utf8')).toBe('operator text\n');
    expect(await placeEntry(from, to, 'docs/alias.md')).toBe(true);
    expect(lstatSync(join(to, 'docs', 'alias.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(to, 'docs', 'alias.md'))).toBe('note.md');
    expect(await placeEntry(from, to, 'missing.md')).toBe(false);
  });

  it('never writes through a link planted in the target folder', async () => {
    const from = join(dir, 'from');
    const to = join(dir, 'to');
    const outside = join(dir, 'outside');
    mkdirSync(join(from, 'docs'), { recursive: true });
    mkdirSync(to);
    mkdirSync(outside);
    writeFileSync(join(from, 'docs', 'x.md'), 'x\n');
    symlinkSync(outside, join(to, 'docs'));
    await expect(placeEntry(from, to, 'docs/x.md')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(() => readFileSync(join(outside, 'x.md'))).toThrow();
  });
});
