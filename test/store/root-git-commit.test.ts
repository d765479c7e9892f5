/**
 * commitStaged: the commit holds exactly the given paths, an operator's staged work elsewhere
 * stays staged and out of it, and git's own refusals fail the commit with HEAD unchanged.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { commitStaged, stageAll } from '../../src/lib/root-git.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
  writeFileSync(join(root, 'NOTES.md'), 'notes\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  mkdirSync(join(root, 'references', 't', 'docs'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(root, 'references', 't', 'docs', `${i}.md`), `file ${i}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const committed = () => git(root, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort();
const stagedNow = () => git(root, 'diff', '--cached', '--name-only');

describe('commitStaged', () => {
  it('commits exactly the paths, with the message, and leaves nothing staged', async () => {
    await stageAll(root, ['references/t']);
    const sha = await commitStaged(root, 'create topic t: 20 files\n\nT', {}, ['references/t']);
    expect(sha).toBe(git(root, 'rev-parse', 'HEAD'));
    expect(committed()).toEqual(Array.from({ length: 20 }, (_, i) => `references/t/docs/${i}.md`).sort());
    expect(git(root, 'log', '-1', '--format=%B')).toBe('create topic t: 20 files\n\nT');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it("an operator's staged edit elsewhere stays staged and out of the commit", async () => {
    writeFileSync(join(root, 'NOTES.md'), 'staged by the operator\n');
    git(root, 'add', 'NOTES.md');
    await stageAll(root, ['references/t']);
    await commitStaged(root, 'create topic t', {}, ['references/t']);
    expect(committed().every((p) => p.startsWith('references/t/'))).toBe(true);
    expect(committed().length).toBe(20);
    expect(stagedNow()).toBe('NOTES.md');
    expect(git(root, 'show', 'HEAD:NOTES.md')).toBe('notes');
  });

  it('a commit git refuses (signing fails) fails with GIT_FAILED, and HEAD stays', async () => {
    const head = git(root, 'rev-parse', 'HEAD');
    git(root, 'config', 'commit.gpgsign', 'true');
    git(root, 'config', 'gpg.program', 'false');
    await stageAll(root, ['references/t']);
    const err = await commitStaged(root, 'create topic t', {}, ['references/t']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TkomaError);
    expect((err as TkomaError).code).toBe('GIT_FAILED');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
  });
});
