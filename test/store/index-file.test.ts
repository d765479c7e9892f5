/**
 * indexIsTree (mutation/index-file.ts) says yes only when a git index holds exactly a tree, as
 * git itself tells (`git diff --cached`, `ls-files -u`): the commit step then skips `read-tree`
 * and `reset`. And unmergedPaths answers from the last `ls-files -u` only while the index file is
 * unchanged. Checked on real repositories, against git.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexIsTree } from '../../src/lib/mutation/index-file.js';
import { unmergedPaths } from '../../src/lib/root-state.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  writeFileSync(join(root, 'b.txt'), 'b\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'first');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const index = (): Buffer => readFileSync(join(root, '.git', 'index'));
const headTree = (): string => git(root, 'rev-parse', 'HEAD^{tree}');

/** Branch `other` and the current branch each change a.txt their own way. */
function divergeOnA(): void {
  const main = git(root, 'symbolic-ref', '--short', 'HEAD');
  git(root, 'checkout', '-q', '-b', 'other');
  writeFileSync(join(root, 'a.txt'), 'other\n');
  git(root, 'commit', '-q', '-am', 'other');
  git(root, 'checkout', '-q', main);
  writeFileSync(join(root, 'a.txt'), 'mine\n');
  git(root, 'commit', '-q', '-am', 'mine');
}

/** Merges `other`, which conflicts on a.txt (git exits non-zero: the conflict is the point). */
function mergeInConflict(): void {
  try {
    git(root, 'merge', '-q', 'other');
  } catch {
    // expected
  }
}

describe('indexIsTree', () => {
  it('is true right after a commit, and false for another tree', () => {
    expect(indexIsTree(index(), headTree())).toBe(true);
    expect(indexIsTree(index(), git(root, 'hash-object', '-t', 'tree', '/dev/null'))).toBe(false);
  });

  it('is false once the operator stages a change, a new file, or a removal', () => {
    writeFileSync(join(root, 'a.txt'), 'changed\n');
    git(root, 'add', 'a.txt');
    expect(indexIsTree(index(), headTree())).toBe(false);
    git(root, 'reset', '-q');
    writeFileSync(join(root, 'c.txt'), 'c\n');
    git(root, 'add', 'c.txt');
    expect(indexIsTree(index(), headTree())).toBe(false);
    git(root, 'reset', '-q');
    git(root, 'rm', '-q', '--cached', 'b.txt');
    expect(indexIsTree(index(), headTree())).toBe(false);
  });

  it('is false for intent-to-add and skip-worktree entries, index version 4 and an untracked cache', () => {
    writeFileSync(join(root, 'c.txt'), 'c\n');
    git(root, 'add', '-N', 'c.txt');
    expect(indexIsTree(index(), headTree())).toBe(false);
    git(root, 'rm', '-q', '--cached', 'c.txt');
    git(root, 'update-index', '--skip-worktree', 'a.txt');
    expect(indexIsTree(index(), headTree())).toBe(false);
    git(root, 'update-index', '--no-skip-worktree', 'a.txt');
    git(root, 'update-index', '--index-version', '4');
    expect(indexIsTree(index(), headTree())).toBe(false);
    git(root, 'update-index', '--index-version', '2');
    git(root, 'update-index', '--untracked-cache');
    git(root, 'status', '--porcelain');
    expect(indexIsTree(index(), headTree())).toBe(false);
  });

  it('reads names past the 12-bit length field (4,095 bytes and more)', () => {
    // Too long for the file system; git keeps it in the index and the tree all the same.
    const long = Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(199, 'd')).join('/') + '/f.txt';
    const blob = git(root, 'hash-object', '-w', 'a.txt');
    git(root, 'update-index', '--add', '--cacheinfo', `100644,${blob},${long}`);
    git(root, 'commit', '-q', '-m', 'long');
    expect(long.length).toBeGreaterThan(0xfff);
    expect(indexIsTree(index(), headTree())).toBe(true);
  });

  it('is false with unmerged entries', () => {
    divergeOnA();
    mergeInConflict();
    rmSync(join(root, '.git', 'MERGE_HEAD'));
    expect(indexIsTree(index(), headTree())).toBe(false);
  });
});

describe('unmergedPaths', () => {
  it('follows the index: a conflict appears and goes as git says', () => {
    expect(unmergedPaths(root)).toEqual([]);
    expect(unmergedPaths(root)).toEqual([]); // answered again from the same index
    divergeOnA();
    expect(unmergedPaths(root)).toEqual([]);
    mergeInConflict();
    expect(unmergedPaths(root)).toEqual(['a.txt']);
    expect(unmergedPaths(root, ['b.txt'])).toEqual([]);
    git(root, 'add', 'a.txt');
    expect(unmergedPaths(root)).toEqual([]);
  });
});
