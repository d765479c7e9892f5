/**
 * Every file a topic's manifest lists is in the root's history, whatever a .gitignore says: a
 * fetched repository's own `.tkoma/` folder (the root's rule used to match it at every depth), or
 * an operator's rule. A clone of the root has every file `get` can serve.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, expectClean, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

describe('fetched files are always committed', () => {
  const tmp = tmpDir('tkoma-crash-tracked-');
  afterAll(() => tmp.cleanup());
  /** One `init` for the file (its .gitignore is what the first test reads); each root is a copy. */
  const upstream = () =>
    makeRepo(join(tmp.path, `up-${Math.random().toString(36).slice(2)}`), {
      'README.md': '# Upstream\n\nHello.\n',
      'docs/.tkoma/x.md': '# Nested state folder\n\nA reference file that lives under .tkoma/.\n',
      'docs/private/a.md': '# Private\n\nIgnored by an operator rule.\n',
    });

  it("a new root anchors /.tkoma/: a repository's own .tkoma/ files are committed and cloned", async () => {
    const root = join(tmp.path, 'kb1');
    await freshRoot(root);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toMatch(/^\/\.tkoma\/$/m);
    await mustRun(createArgs('nested', upstream().url), root);
    expect(git(root, 'ls-files', '--', 'references/nested/docs/.tkoma/x.md')).toBe('references/nested/docs/.tkoma/x.md');
    const clone = join(tmp.path, 'clone1');
    git(tmp.path, 'clone', '-q', root, clone);
    expect(readFileSync(join(clone, 'references/nested/docs/.tkoma/x.md'), 'utf8')).toContain('lives under .tkoma/');
    expectClean(root);
  });

  it('an old root is migrated on its next write: the line is anchored and the missing files committed', async () => {
    const root = join(tmp.path, 'kb2');
    await freshRoot(root);
    await mustRun(createArgs('nested', upstream().url), root);
    // The state a root made before this fix is in: unanchored rule, the nested file never committed.
    writeFileSync(join(root, '.gitignore'), '# Derived and disposable\n.tkoma/\n');
    git(root, 'rm', '-q', '--cached', 'references/nested/docs/.tkoma/x.md');
    git(root, 'commit', '-q', '-am', 'as an old version left it');
    expect(git(root, 'status', '--porcelain')).toBe('');

    await mustRun(['topic', 'update', 'nested', '--title', 'Migrated', '--json'], root);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toBe('# Derived and disposable\n/.tkoma/\n');
    const log = git(root, 'log', '--format=%s', '-2').split('\n');
    expect(log[0]).toMatch(/^update topic nested/);
    expect(log[1]).toMatch(/^anchor \.tkoma\/ in \.gitignore to the root, and add 1 fetched file/);
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD~1').split('\n').sort()).toEqual(['.gitignore', 'references/nested/docs/.tkoma/x.md']);
    expectClean(root);
    // Once only.
    await mustRun(['topic', 'update', 'nested', '--title', 'Again', '--json'], root);
    expect(git(root, 'log', '--format=%s', '-1')).toMatch(/^update topic nested/);
    expect(git(root, 'log', '--format=%s', '-2').split('\n')[1]).toMatch(/^update topic nested/);
  });

  it("an operator's ignore rule that matches fetched files does not keep them out of the commit", async () => {
    const root = join(tmp.path, 'kb3');
    await freshRoot(root);
    writeFileSync(join(root, '.gitignore'), `${readFileSync(join(root, '.gitignore'), 'utf8')}private/\n`);
    git(root, 'commit', '-q', '-am', 'operator: ignore private/');
    await mustRun(createArgs('ruled', upstream().url), root);
    expect(git(root, 'ls-files', '--', 'references/ruled/docs/private/a.md')).toBe('references/ruled/docs/private/a.md');
    expectClean(root);
  });
});
