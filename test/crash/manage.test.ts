/**
 * `topic update`, `file status` and `delete` killed at each step; a stale `.git/index.lock` of a
 * killed git; and an operator's uncommitted edits in another topic, which recovery never touches.
 */
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, crashAt, createArgs, expectClean, expectConsistent, leftovers, mustRun, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const TOPICS = ['keep', 'target'];

const CASES: { point: string; args: string[] }[] = [
  ...['locked', 'before-commit', 'staged', 'committed'].map((p, i) => ({
    point: `update:${p}`,
    args: ['topic', 'update', 'target', '--title', `Renamed ${i}`, '--tag', `t${i}`, '--json'],
  })),
  ...['journaled', 'staged', 'committed'].map((p, i) => ({
    point: `file-status:${p}`,
    args: ['file', 'status', '--topic', 'target', '--path', 'README.md', '--status', i % 2 ? 'active' : 'obsolete', '--reason', `reason ${i}`, '--json'],
  })),
  // delete last: its committed case removes the topic.
  ...['journaled', 'before-commit', 'staged', 'committed'].map((p) => ({ point: `delete:${p}`, args: ['delete', 'target', '--yes', '--json'] })),
];

describe('update, file status and delete survive being killed', () => {
  const tmp = tmpDir('tkoma-crash-manage-');
  const root = join(tmp.path, 'kb');
  const targetDir = join(root, 'references', 'target');
  let keepSnap: Record<string, string>;

  beforeAll(async () => {
    const keep = makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keeper\n\nAardvark field notes.\n' });
    const target = makeRepo(join(tmp.path, 'target-up'), { 'README.md': '# Target\n\nBaseline words.\n', 'docs/guide.md': '# Guide\n\nStable.\n' });
    await freshRoot(root);
    await mustRun(createArgs('keep', keep.url), root);
    await mustRun(createArgs('target', target.url), root);
    keepSnap = snapshot(join(root, 'references', 'keep'));
  });
  afterAll(() => tmp.cleanup());

  for (const { point, args } of CASES) {
    it(`killed at ${point}`, async () => {
      const snap = snapshot(targetDir);
      const before = commitCount(root);
      await crashAt(point, args, root);
      const landed = point.endsWith(':committed');
      const deleted = landed && point.startsWith('delete');

      await expectConsistent(root, deleted ? ['keep'] : TOPICS);
      expect(commitCount(root)).toBe(before + (landed ? 1 : 0));
      if (!landed) expect(snapshot(targetDir)).toEqual(snap);
      if (deleted) expect(existsSync(targetDir)).toBe(false);
      expect(snapshot(join(root, 'references', 'keep'))).toEqual(keepSnap);
      if (!landed) {
        // The same command now works, as one commit.
        await mustRun(args, root);
        expect(commitCount(root)).toBe(before + 1);
        if (point.startsWith('delete')) {
          // Put the topic back for the next case (from git history, as an operator would).
          git(root, 'revert', '--no-edit', 'HEAD');
        }
        expectClean(root);
      }
    });
  }

  it('removes a stale .git/index.lock left by a killed git', async () => {
    await mustRun(createArgs('target2', makeRepo(join(tmp.path, 'target2-up'), { 'README.md': '# T2\n' }).url), root);
    const before = commitCount(root);
    await crashAt('update:staged', ['topic', 'update', 'target2', '--title', 'Locked out', '--json'], root);
    const lock = join(root, '.git', 'index.lock');
    writeFileSync(lock, 'half an index');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await expectConsistent(root, ['keep', 'target2']);
    expect(existsSync(lock)).toBe(false);
    await mustRun(['topic', 'update', 'target2', '--title', 'Unlocked', '--json'], root);
    expect(commitCount(root)).toBe(before + 1);
  });

  it("never touches an operator's uncommitted edits elsewhere", async () => {
    const keepReadme = join(root, 'references', 'keep', 'README.md');
    const note = join(root, 'references', 'keep', 'operator-note.md');
    writeFileSync(keepReadme, '# Keeper\n\nEdited by hand, not committed.\n');
    writeFileSync(note, 'a new file, not committed\n');
    const topLevel = join(root, 'NOTES.md');
    writeFileSync(topLevel, 'operator scratch\n');
    await crashAt('update:before-commit', ['topic', 'update', 'target2', '--title', 'Again', '--json'], root);
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.code).toBe(0);
    expect(leftovers(root)).toEqual([]);
    expect(readFileSync(keepReadme, 'utf8')).toContain('Edited by hand');
    expect(readFileSync(note, 'utf8')).toBe('a new file, not committed\n');
    expect(readFileSync(topLevel, 'utf8')).toBe('operator scratch\n');
    expect(readFileSync(join(root, 'references', 'target2', 'topic.md'), 'utf8')).toContain('title = "Unlocked"');
    // And our next commit does not sweep the operator's edits into it.
    await mustRun(['topic', 'update', 'target2', '--title', 'Again', '--json'], root);
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD')).toBe('references/target2/topic.md');
    expect(git(root, 'status', '--porcelain').split('\n').sort()).toEqual(['?? NOTES.md', '?? references/keep/operator-note.md', 'M references/keep/README.md']);
  });
});
