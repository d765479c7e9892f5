/**
 * git-index.ts answers `git ls-files -s` / `-u` from the index file itself, or declines (null)
 * where it cannot be sure. Checked on real repositories in many states, against git's own answer.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plainPathspecs, readIndexEntries } from '../../src/lib/git-index.js';
import { indexEntries } from '../../src/lib/root-git.js';
import { unmergedPaths } from '../../src/lib/root-state.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
  for (const [p, text] of Object.entries(FILES)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  git(root, 'add', '-A');
  // A name past 4,095 bytes (the entry's length field then says 0xfff): in the index only, as no
  // file system here takes such a path.
  const blob = git(root, 'hash-object', '-w', 'a.txt');
  git(root, 'update-index', '--add', '--cacheinfo', `100644,${blob},${LONG}`);
  git(root, 'commit', '-q', '-m', 'first');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  'a.txt': 'a\n',
  'references/t/x.md': 'x\n',
  'references/t/sub/y.md': 'y\n',
  'references/t-2/z.md': 'z\n',
  'references/tt/w.md': 'w\n',
  'références/é.md': 'e\n',
};
const LONG = `references/t/${'long-name/'.repeat(420)}deep.md`;

const index = (): Buffer => readFileSync(join(root, '.git', 'index'));
/** git's own answer, as the tool read it (UTF-8). */
const lsFiles = (...args: string[]): string => execFileSync('git', ['ls-files', ...args], { cwd: root, encoding: 'utf8' });
const asLsFilesS = (paths: string[]): string =>
  readIndexEntries(index(), { paths })!
    .map((e) => `${e.mode} ${e.oid} ${e.stage}\t${e.path}\0`)
    .join('');
const SCOPES: string[][] = [[], ['references/t'], ['references/t', 'a.txt'], ['references/t/x.md'], ['references'], ['références'], ['nothing/here']];

describe('git-index', () => {
  it('reads every entry as `git ls-files -s` lists it, under plain pathspecs (long and non-ASCII names too)', () => {
    expect(readIndexEntries(index())).not.toBeNull();
    for (const scope of SCOPES) expect({ scope, out: asLsFilesS(scope) }).toEqual({ scope, out: lsFiles('-s', '-z', '--', ...scope) });
  });

  it('reads unmerged entries as `git ls-files -u` does, after a conflicting merge', async () => {
    const main = git(root, 'symbolic-ref', '--short', 'HEAD');
    git(root, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(root, 'references/t/x.md'), 'other\n');
    git(root, 'commit', '-q', '-am', 'other');
    git(root, 'checkout', '-q', main);
    writeFileSync(join(root, 'references/t/x.md'), 'mine\n');
    git(root, 'commit', '-q', '-am', 'mine');
    try {
      git(root, 'merge', '-q', 'other');
    } catch {
      // the conflict is the point
    }
    for (const scope of SCOPES) expect({ scope, out: asLsFilesS(scope) }).toEqual({ scope, out: lsFiles('-s', '-z', '--', ...scope) });
    expect(unmergedPaths(root)).toEqual(['references/t/x.md']);
    expect(unmergedPaths(root, ['references'])).toEqual(['references/t/x.md']);
    expect(unmergedPaths(root, ['a.txt'])).toEqual([]);
    expect(await indexEntries(root, ['references/t'])).toBe(lsFiles('-s', '-z', '--', 'references/t'));
  });

  it('declines what it does not know: intent-to-add, skip-worktree, version 4, a split index, a bad or missing checksum', () => {
    const declines = (setup: () => void): void => {
      setup();
      expect(readIndexEntries(index())).toBeNull();
      git(root, 'reset', '-q');
      git(root, 'update-index', '--index-version', '2', '--no-split-index', '--no-skip-worktree', 'a.txt');
      expect(readIndexEntries(index())).not.toBeNull();
    };
    declines(() => {
      writeFileSync(join(root, 'new.txt'), 'n\n');
      git(root, 'add', '-N', 'new.txt');
    });
    declines(() => git(root, 'update-index', '--skip-worktree', 'a.txt'));
    declines(() => git(root, 'update-index', '--index-version', '4'));
    declines(() => git(root, 'update-index', '--split-index'));
    const bad = Buffer.from(index());
    bad[bad.length - 30] ^= 1;
    expect(readIndexEntries(bad)).toBeNull();
    // No checksum at all (git 2.40's index.skipHash writes zeros there).
    const unsummed = Buffer.from(index());
    unsummed.fill(0, unsummed.length - 20);
    expect(readIndexEntries(unsummed)).toBeNull();
  });

  it('takes only plain names as plain pathspecs', () => {
    expect(plainPathspecs(['references/t', 'a.txt', 'références/é.md'])).toBe(true);
    for (const p of ['references/*', 'a?', 'x[1]', ':(glob)a', 'a\\b', '', '.', 'a/../b', 'a/', '/a', 'a//b']) expect({ p, plain: plainPathspecs([p]) }).toEqual({ p, plain: false });
  });
});
