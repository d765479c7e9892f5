import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FileMemo } from '../src/lib/file-memo.js';

describe('FileMemo', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'tkoma-memo-'));
    dirs.push(d);
    return d;
  };

  it('loads once while the file is unchanged, again after an edit', async () => {
    const file = join(tmp(), 'a.toml');
    writeFileSync(file, 'one');
    const memo = new FileMemo<string>();
    let loads = 0;
    const load = async (): Promise<string> => {
      loads++;
      return readFileSync(file, 'utf8');
    };
    expect(await memo.get(file, load)).toBe('one');
    expect(await memo.get(file, load)).toBe('one');
    expect(loads).toBe(1);
    // Same size, another mtime: an edit by hand.
    writeFileSync(file, 'two');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await memo.get(file, load)).toBe('two');
    expect(loads).toBe(2);
  });

  it('never remembers a missing file, nor a failed load', async () => {
    const file = join(tmp(), 'missing.toml');
    const memo = new FileMemo<string>();
    let loads = 0;
    const load = async (): Promise<string> => `default ${++loads}`;
    expect(await memo.get(file, load)).toBe('default 1');
    expect(await memo.get(file, load)).toBe('default 2');
    writeFileSync(file, 'x');
    await expect(memo.get(file, async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(await memo.get(file, load)).toBe('default 3');
  });
});
