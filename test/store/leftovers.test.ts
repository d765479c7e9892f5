/** The readdir-only check that lets `search` skip loading recovery when there is nothing to recover. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { nothingToRecover } from '../../src/lib/mutation/leftovers.js';
import { tmpDir } from '../helpers/fixtures.js';

describe('nothingToRecover', () => {
  let tmp: ReturnType<typeof tmpDir>;
  let state: string;
  beforeEach(() => {
    tmp = tmpDir();
    state = join(tmp.path, '.tkoma');
    mkdirSync(join(state, 'index'), { recursive: true });
    mkdirSync(join(state, 'journal'));
    mkdirSync(join(state, 'staging'));
  });
  afterEach(() => tmp.cleanup());

  it('is true for a root with no .tkoma/ and for empty journal and staging folders', () => {
    expect(nothingToRecover(join(tmp.path, 'elsewhere'))).toBe(true);
    expect(nothingToRecover(tmp.path)).toBe(true);
  });

  it('is false when a journal, a staging folder, a lock or a lock leftover is there', () => {
    const cases: [string, () => void][] = [
      ['journal', () => writeFileSync(join(state, 'journal', 'init.json'), '{}')],
      ['staging', () => mkdirSync(join(state, 'staging', 'fetch.123.0123abcd'))],
      ['write.lock', () => mkdirSync(join(state, 'write.lock'))],
      ['index.lock', () => mkdirSync(join(state, 'index.lock'))],
      ['.lock-tmp', () => mkdirSync(join(state, '.lock-tmp.123.0123abcd'))],
      ['.lock.gone', () => mkdirSync(join(state, 'write.lock.gone.123.0123abcd'))],
    ];
    for (const [what, make] of cases) {
      const t = tmpDir();
      state = join(t.path, '.tkoma');
      mkdirSync(join(state, 'journal'), { recursive: true });
      mkdirSync(join(state, 'staging'));
      make();
      expect(nothingToRecover(t.path), what).toBe(false);
      t.cleanup();
    }
  });
});
