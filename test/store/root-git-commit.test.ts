/**
 * commitStaged with a scratch copy of the index: the commit holds exactly the given paths, an
 * operator's staged work elsewhere stays staged and out of it, and git's own refusals still fail
 * the commit.
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { commitStaged, isUnder, stageAll } from '../../src/lib/root-git.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
let scratch: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
  writeFileSync(join(root, 'NOTES.md'), 'notes\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  mkdirSync(join(root, 'references', 't', 'docs'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(root, 'references', 't', 'docs', `${i}.md`), `file ${i}\n`);
  scratch = join(tempDir(), 'commit-index');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(join(scratch, '..'), { recursive: true, force: true });
});

const committed = () => git(root, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort();
const stagedNow = () => git(root, 'diff', '--cached', '--name-only');
const indexFile = () => statSync(join(root, '.git', 'index'));

describe('commitStaged from a copy of the index', () => {
  it('commits exactly the paths from the copy, and leaves the index as staged', async () => {
    await stageAll(root, ['references/t']);
    const before = indexFile();
    const sha = await commitStaged(root, 'create topic t: 20 files\n\nT', {}, ['references/t'], scratch);
    expect(sha).toBe(git(root, 'rev-parse', 'HEAD'));
    expect(committed()).toEqual(Array.from({ length: 20 }, (_, i) => `references/t/docs/${i}.md`).sort());
    expect(git(root, 'log', '-1', '--format=%B')).toBe('create topic t: 20 files\n\nT');
    // Made from the copy: the index itself was not rewritten by the commit.
    const after = indexFile();
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(existsSync(scratch)).toBe(true);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it("an operator's staged edit elsewhere stays staged and out of the commit", async () => {
    writeFileSync(join(root, 'NOTES.md'), 'staged by the operator\n');
    git(root, 'add', 'NOTES.md');
    await stageAll(root, ['references/t']);
    await commitStaged(root, 'create topic t', {}, ['references/t'], scratch);
    expect(committed().every((p) => p.startsWith('references/t/'))).toBe(true);
    expect(committed().length).toBe(20);
    expect(stagedNow()).toBe('NOTES.md');
    expect(git(root, 'show', 'HEAD:NOTES.md')).toBe('notes');
  });

  it('a commit git refuses (signing fails) fails the same way, and HEAD stays', async () => {
    const head = git(root, 'rev-parse', 'HEAD');
    git(root, 'config', 'commit.gpgsign', 'true');
    git(root, 'config', 'gpg.program', 'false');
    await stageAll(root, ['references/t']);
    const err = await commitStaged(root, 'create topic t', {}, ['references/t'], scratch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TkomaError);
    expect((err as TkomaError).code).toBe('GIT_FAILED');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('without a scratch path, commits with the paths form', async () => {
    await stageAll(root, ['references/t']);
    await commitStaged(root, 'create topic t', {}, ['references/t']);
    expect(committed().length).toBe(20);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });
});

describe('isUnder', () => {
  it('is the path itself or inside it, never a sibling with the same prefix', () => {
    expect(isUnder('references/t', ['references/t'])).toBe(true);
    expect(isUnder('references/t/a.md', ['references/t'])).toBe(true);
    expect(isUnder('references/t2/a.md', ['references/t'])).toBe(false);
    expect(isUnder('NOTES.md', ['references/t', 'NOTES.md'])).toBe(true);
    expect(isUnder('references', ['references/t'])).toBe(false);
  });
});
