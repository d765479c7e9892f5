/**
 * `refresh` killed at every step: while the refreshed folder is being built beside the live one,
 * between the two renames of the swap, before and after the commit. Unless the commit landed,
 * the topic folder is byte for byte what it was; the next command cleans up by itself and the
 * next refresh applies the upstream change.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, crashAt, createArgs, expectClean, expectConsistent, mustRun, searchPaths, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const POINTS = [
  'refresh:fetched', // upstream fetched into staging, no lock
  'refresh:locked',
  'refresh:built', // refreshed folder complete beside the live one
  'refresh:aside', // mid-apply: old folder moved aside, new one not yet in place
  'refresh:before-commit', // new folder in place, not committed
  'refresh:staged',
  'refresh:committed',
];
const WORDS = ['marmoset', 'wombat', 'capybara', 'echidna', 'gharial', 'kinkajou', 'numbat'];

describe('refresh survives being killed at any point', () => {
  const tmp = tmpDir('tkoma-crash-refresh-');
  const root = join(tmp.path, 'kb');
  let upstream: ReturnType<typeof makeRepo>;
  let keepSnap: Record<string, string>;

  beforeAll(async () => {
    const keep = makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keeper\n\nAardvark field notes.\n' });
    upstream = makeRepo(join(tmp.path, 'target-up'), {
      'README.md': '# Target\n\nBaseline words.\n',
      'docs/guide.md': '# Guide\n\nStable guidance.\n',
      'src/old.py': 'def old():\n    return 1\n',
    });
    await freshRoot(root);
    await mustRun(createArgs('keep', keep.url), root);
    await mustRun(createArgs('target', upstream.url), root);
    keepSnap = snapshot(join(root, 'references', 'keep'));
  });
  afterAll(() => tmp.cleanup());

  POINTS.forEach((point, i) => {
    it(`killed at ${point}`, async () => {
      const word = WORDS[i];
      // An upstream change that adds, changes and (the first time) removes files.
      upstream.commit({ [`docs/new-${i}.md`]: `# New ${i}\n\nThe ${word} arrives.\n`, 'README.md': `# Target\n\nRevision ${i}.\n` }, i === 0 ? ['src/old.py'] : []);
      const targetDir = join(root, 'references', 'target');
      const snap = snapshot(targetDir);
      const before = commitCount(root);

      await crashAt(point, ['refresh', 'target', '--json'], root);
      const landed = point === 'refresh:committed';

      await expectConsistent(root, ['keep', 'target']);
      expect(commitCount(root)).toBe(before + (landed ? 1 : 0));
      if (!landed) expect(snapshot(targetDir)).toEqual(snap);
      expect(snapshot(join(root, 'references', 'keep'))).toEqual(keepSnap);
      expect((await searchPaths(root, word, 'target')).includes(`target/docs/new-${i}.md`)).toBe(landed);

      // The next refresh works and applies the change (or, when it landed, finds nothing new).
      const r = await cli(['refresh', 'target', '--json'], { root });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json.topics[0].added).toBe(landed ? 0 : 1);
      expect(r.json.topics[0].chunk_count).toBeGreaterThan(0);
      expectClean(root);
      expect(commitCount(root)).toBe(before + (landed ? 2 : 1));
    });
  });
});
