/**
 * A `delete` killed after its commit but before it dropped the topic's derived index: the next
 * command (any command) drops it, without waiting for `watch` to reconcile.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { crashAt, createArgs, expectConsistent, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

describe('a killed delete leaves no index behind', () => {
  const tmp = tmpDir('tkoma-crash-delete-index-');
  afterAll(() => tmp.cleanup());

  it('the next command drops the index of a delete that landed', async () => {
    const root = join(tmp.path, 'kb');
    await freshRoot(root);
    await mustRun(createArgs('keep', makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keep\n\nOkapi.\n' }).url), root);
    await mustRun(createArgs('gone', makeRepo(join(tmp.path, 'gone-up'), { 'README.md': '# Gone\n\nNumbat.\n' }).url), root);
    const index = join(root, '.tkoma', 'index', 'topics', 'gone');
    expect(existsSync(index)).toBe(true);
    await crashAt('delete:committed', ['delete', 'gone', '--yes', '--json'], root);
    expect(existsSync(index)).toBe(true); // the kill came before the index was dropped
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.code, list.stdout + list.stderr).toBe(0);
    expect(existsSync(index)).toBe(false);
    expect(existsSync(join(root, '.tkoma', 'index', 'topics', 'keep'))).toBe(true);
    await expectConsistent(root, ['keep']);
  });
});
