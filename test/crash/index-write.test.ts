/**
 * A sync writes its new segment's text file while it chunks, under a temporary name. Killed
 * there (SIGKILL through the TKOMA_REF_CRASH_AT hook, after the create's commit), the topic stays
 * created; the next command indexes it from its files and removes the half-written file.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeRepo, tmpDir } from '../helpers/fixtures.js';
import { crashAt, createArgs, expectConsistent, searchPaths } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

describe('a sync killed while writing its segment', () => {
  const tmp = tmpDir('tkoma-crash-index-');
  const root = join(tmp.path, 'kb');
  const indexDir = join(root, '.tkoma', 'index', 'topics', 'walrus');

  beforeAll(async () => {
    await freshRoot(root);
  });
  afterAll(() => tmp.cleanup());

  it('leaves the topic created; the next search indexes it and removes the temporary text file', async () => {
    const repo = makeRepo(join(tmp.path, 'walrus-up'), {
      'README.md': '# Walrus\n\nTusks and whiskers of the walrus.\n',
      'docs/ice.md': '# Ice\n\nWalrus herds haul out on sea ice.\n',
    });
    await crashAt('index:writing', createArgs('walrus', repo.url), root);
    const half = readdirSync(indexDir).filter((n) => n.includes('.tmp-'));
    expect(half).toHaveLength(1);
    expect(half[0]).toMatch(/^seg-\d+\.txt\.tmp-\d+-\d+$/);

    await expectConsistent(root, ['walrus']);
    expect(await searchPaths(root, 'sea ice')).toContain('walrus/docs/ice.md');
    const names = readdirSync(indexDir);
    expect(names.filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(names.filter((n) => n.startsWith('seg-')).map((n) => n.replace(/\d+/, 'G')).sort()).toEqual(['seg-G.lex', 'seg-G.rec', 'seg-G.txt']);
  });
});
