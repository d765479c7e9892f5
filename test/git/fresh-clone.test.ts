/**
 * A knowledge root cloned from its remote has no .tkoma/ at all (the index and the staging folder
 * are never committed). Its first mutation other than a create must still work: the commit goes
 * through a temporary index under .tkoma/staging, which the clone does not have yet (before
 * 7445b85 `topic update` there failed with GIT_FAILED). Real binary, real bare remote (file://).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

describe('a fresh clone of a root', () => {
  const tmp = tmpDir('tkoma-git-clone-');
  const origin = join(tmp.path, 'kb');
  const bare = join(tmp.path, 'shared.git');
  const clone = join(tmp.path, 'kb-clone');

  beforeAll(async () => {
    await freshRoot(origin);
    await mustRun(createArgs('t1', makeRepo(join(tmp.path, 'u1'), { 'README.md': '# One\n\nFresh clone words.\n' }).url), origin);
    git(tmp.path, 'init', '-q', '--bare', '-b', 'main', bare);
    git(origin, 'remote', 'add', 'origin', bare);
    git(origin, 'push', '-q', '-u', 'origin', 'main');
    git(tmp.path, 'clone', '-q', bare, clone);
  });
  afterAll(() => tmp.cleanup());

  it('takes a topic update as its first mutation, committed on its branch', async () => {
    expect(existsSync(join(clone, '.tkoma'))).toBe(false);
    const head = git(clone, 'rev-parse', 'HEAD');

    const r = await cli(['topic', 'update', 't1', '--tag', 'x', '--json'], { root: clone });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.changed).toContain('tags');
    expect(git(clone, 'rev-parse', 'main')).toBe(r.json.commit);
    expect(git(clone, 'rev-parse', `${r.json.commit}^`)).toBe(head);
    expect(git(clone, 'show', 'main:references/t1/topic.md')).toMatch(/"x"/);
    expect(readFileSync(join(clone, 'references', 't1', 'topic.md'), 'utf8')).toMatch(/"x"/);
    // git's own index agrees with the commit: nothing staged, nothing left over.
    expect(git(clone, 'status', '--porcelain')).toBe('');
    expect(git(clone, 'fsck', '--no-progress', '--no-dangling')).toBe('');

    const shown = await cli(['topic', 'show', 't1', '--json'], { root: clone });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.tags).toContain('x');
    const found = await cli(['search', 'fresh clone words', '--topic', 't1', '--json'], { root: clone });
    expect(found.code, found.stderr).toBe(0);
    expect(found.json.results[0]?.path).toBe('README.md');
  });
});
