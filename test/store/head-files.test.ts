/**
 * headFromObjects reads HEAD's commit and tree from `.git` only where that is sure, and is then
 * what `git rev-parse HEAD^{commit} HEAD^{tree}` says; elsewhere it declines and git is asked.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { headFromObjects } from '../../src/lib/git-refs.js';
import { resolveRef } from '../../src/lib/sync/remote.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'first');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const byGit = (): { head: string; tree: string } => {
  const [head, tree] = git(root, 'rev-parse', 'HEAD^{commit}', 'HEAD^{tree}').split('\n');
  return { head: head!, tree: tree! };
};

it('reads a loose commit on a branch as git does, and resolveRef (sync) answers the same', () => {
  writeFileSync(join(root, 'b.txt'), 'b\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'second\n\nwith a body');
  expect(headFromObjects(root)).toEqual(byGit());
  expect(resolveRef(root, 'HEAD')).toBe(byGit().head);
});

it('declines where git must answer: packed objects, replace refs, a detached HEAD, a branch naming a tag, no commit', () => {
  git(root, 'gc', '-q');
  expect(headFromObjects(root)).toBeUndefined();
  writeFileSync(join(root, 'a.txt'), 'again\n');
  git(root, 'commit', '-q', '-am', 'loose again');
  expect(headFromObjects(root)).toEqual(byGit());

  // A replacement for HEAD's commit changes the tree git reads.
  const other = git(root, 'commit-tree', git(root, 'rev-parse', 'HEAD~1^{tree}'), '-m', 'replacement');
  git(root, 'replace', byGit().head, other);
  expect(headFromObjects(root)).toBeUndefined();
  git(root, 'replace', '-d', git(root, 'rev-parse', 'HEAD'));
  expect(headFromObjects(root)).toEqual(byGit());

  git(root, 'tag', '-a', '-m', 'tag', 'v1');
  git(root, 'checkout', '-q', '-b', 'tagged');
  // git's update-ref refuses this; a hand-edited ref file does not.
  writeFileSync(join(root, '.git', 'refs', 'heads', 'tagged'), `${git(root, 'rev-parse', 'v1')}\n`);
  expect(headFromObjects(root)).toBeUndefined();
  expect(resolveRef(root, 'HEAD')).toBe(byGit().head);

  git(root, 'checkout', '-q', '--detach', 'main');
  expect(headFromObjects(root)).toBeUndefined();

  const empty = tempDir();
  try {
    git(empty, 'init', '-q');
    expect(headFromObjects(empty)).toBeUndefined();
    expect(resolveRef(empty, 'HEAD')).toBeNull();
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
