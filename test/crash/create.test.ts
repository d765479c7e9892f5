/**
 * `topic create` killed (SIGKILL, via the TKOMA_REF_CRASH_AT test hook) at every step of phase 2.
 * After each crash the next command cleans up by itself: no half topic in `topic list`, `search`
 * or `git status`; the repository is sound; earlier topics are unchanged byte for byte; the same
 * create then succeeds.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, crashAt, createArgs, expectClean, expectConsistent, mustRun, searchPaths, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const POINTS = [
  'create:fetched', // staged in .tkoma/staging, lock not taken yet
  'create:locked', // write lock held, no journal
  'create:journaled', // journal written, nothing moved
  'create:moved', // complete folder renamed into references/, not committed
  'create:before-commit',
  'create:staged', // `git add` done, no commit
  'create:committed', // commit done, journal not removed, not indexed
];
const WORDS = ['zebrafish', 'quokka', 'narwhal', 'axolotl', 'pangolin', 'okapi', 'tapir'];

describe('create survives being killed at any point', () => {
  const tmp = tmpDir('tkoma-crash-create-');
  const root = join(tmp.path, 'kb');
  let keepSnap: Record<string, string>;
  const topics = ['keep'];

  beforeAll(async () => {
    const up = makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keeper\n\nAardvark field notes.\n', 'docs/a.md': '# A\n\nBurrows.\n' });
    await freshRoot(root);
    await mustRun(createArgs('keep', up.url), root);
    keepSnap = snapshot(join(root, 'references'));
  });
  afterAll(() => tmp.cleanup());

  POINTS.forEach((point, i) => {
    it(`killed at ${point}`, async () => {
      const id = `new-${i}`;
      const word = WORDS[i];
      const repo = makeRepo(join(tmp.path, `up-${i}`), { 'README.md': `# New ${i}\n\nAll about the ${word}.\n` });
      const before = commitCount(root);
      const refsBefore = snapshot(join(root, 'references'));

      await crashAt(point, createArgs(id, repo.url), root);
      const landed = point === 'create:committed';

      // The next command (topic list, inside expectConsistent) recovers; nothing half remains.
      await expectConsistent(root, landed ? [...topics, id] : topics);
      expect(commitCount(root)).toBe(before + (landed ? 1 : 0));
      const refsAfter = snapshot(join(root, 'references'));
      for (const [p, h] of Object.entries(refsBefore)) expect(refsAfter[p], p).toBe(h); // nothing lost
      if (!landed) expect(refsAfter).toEqual(refsBefore);
      // search agrees with the files: the committed topic is found (its index is built from the files).
      expect((await searchPaths(root, word)).includes(`${id}/README.md`)).toBe(landed);

      if (!landed) {
        const again = await cli(createArgs(id, repo.url), { root });
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(again.json.status).toBe('created');
      }
      topics.push(id);
      expectClean(root);
      expect(commitCount(root)).toBe(before + 1); // exactly one commit for the one successful create
      const keepNow = snapshot(join(root, 'references'));
      for (const [p, h] of Object.entries(keepSnap)) expect(keepNow[p], p).toBe(h);
    });
  });
});
