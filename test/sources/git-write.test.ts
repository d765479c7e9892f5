import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFilesSync } from '../../src/lib/sources/git-write.js';
import { tempDir } from '../helpers/git-repos.js';

let dir: string;
let outside: string;
beforeEach(() => {
  dir = tempDir();
  outside = tempDir();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const w = (path: string, text: string) => ({ path, dest: join(dir, ...path.split('/')), data: Buffer.from(text) });

describe('writeFilesSync', () => {
  it('writes every file, creating its folders', () => {
    const failed = writeFilesSync([w('a.md', 'A'), w('docs/deep/b.md', 'B'), w('docs/c.md', ''), w('d.bin', '\0x\0')], true);
    expect(failed).toEqual([]);
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('A');
    expect(readFileSync(join(dir, 'docs/deep/b.md'), 'utf8')).toBe('B');
    expect(readFileSync(join(dir, 'docs/c.md'), 'utf8')).toBe('');
    expect(readFileSync(join(dir, 'd.bin'), 'utf8')).toBe('\0x\0');
  });

  it('exclusive: never overwrites a file already there (duplicate_path), nor writes through a link', () => {
    writeFileSync(join(dir, 'taken.md'), 'first source');
    writeFileSync(join(outside, 'target'), 'outside');
    symlinkSync(join(outside, 'target'), join(dir, 'link.md'));
    const failed = writeFilesSync([w('taken.md', 'second source'), w('link.md', 'through the link'), w('free.md', 'ok')], true);
    expect(failed).toEqual([
      { path: 'taken.md', reason: 'duplicate_path' },
      { path: 'link.md', reason: 'duplicate_path' },
    ]);
    expect(readFileSync(join(dir, 'taken.md'), 'utf8')).toBe('first source');
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('outside');
    expect(readFileSync(join(dir, 'free.md'), 'utf8')).toBe('ok');
  });

  it('overwriting: replaces a file but never follows a link (unsafe_path)', () => {
    writeFileSync(join(dir, 'old.md'), 'a much longer old text');
    writeFileSync(join(outside, 'target'), 'outside');
    symlinkSync(join(outside, 'target'), join(dir, 'link.md'));
    const failed = writeFilesSync([w('old.md', 'new'), w('link.md', 'through the link')], false);
    expect(failed).toEqual([{ path: 'link.md', reason: 'unsafe_path' }]);
    expect(readFileSync(join(dir, 'old.md'), 'utf8')).toBe('new');
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('outside');
    expect(lstatSync(join(dir, 'link.md')).isSymbolicLink()).toBe(true);
  });

  it('reports files whose folder cannot be made, and writes the rest', () => {
    writeFileSync(join(dir, 'plain'), 'a file, not a folder');
    mkdirSync(join(dir, 'ok'));
    const failed = writeFilesSync([w('plain/inside.md', 'x'), w('plain/other.md', 'y'), w('ok/fine.md', 'z')], true);
    expect(failed).toEqual([
      { path: 'plain/inside.md', reason: 'unsafe_path' },
      { path: 'plain/other.md', reason: 'unsafe_path' },
    ]);
    expect(readFileSync(join(dir, 'ok/fine.md'), 'utf8')).toBe('z');
  });
});
