/**
 * The index follows git: after the operator's checkout, stash pop, reset or merge, the next
 * search answers from the files as they are now, and re-syncs only the topics that changed
 * (the other topics' index heads are not rewritten).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const TOPICS = ['t1', 't2', 't3'];

describe('the index follows the operator\'s git', () => {
  const tmp = tmpDir('tkoma-git-follow-');
  const root = join(tmp.path, 'kb');
  const heads = (): Record<string, string> => Object.fromEntries(TOPICS.map((t) => [t, readFileSync(join(root, '.tkoma', 'index', 'topics', t, 'head.json'), 'utf8')]));
  /** Paths of the hits for `word` across all topics, after which the topics whose head changed. */
  async function searchAll(word: string): Promise<{ paths: string[]; resynced: string[] }> {
    const before = heads();
    const r = await cli(['search', word, '--all', '--json'], { root });
    expect(r.code, r.stderr).toBe(0);
    const after = heads();
    return {
      paths: (r.json.results as { topic_id: string; path: string; snippet: string }[]).filter((h) => h.snippet.includes(word)).map((h) => `${h.topic_id}/${h.path}`),
      resynced: TOPICS.filter((t) => before[t] !== after[t]),
    };
  }
  const edit = (rel: string, from: string, to: string): void => {
    const file = join(root, rel);
    writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
  };

  beforeAll(async () => {
    await freshRoot(root);
    for (const [i, t] of TOPICS.entries()) {
      await mustRun(createArgs(t, makeRepo(join(tmp.path, `u${i}`), { 'README.md': `# ${t}\n\nWord${t} baseline text.\n` }).url), root);
    }
    await mustRun(['search', 'baseline', '--all', '--json'], root);
  });
  afterAll(() => tmp.cleanup());

  it('a commit, then a checkout of the commit before it and back', async () => {
    edit('references/t1/README.md', 'baseline', 'zanzibar');
    git(root, 'commit', '-q', '-am', 'operator edits t1');
    expect(await searchAll('zanzibar')).toEqual({ paths: ['t1/README.md'], resynced: ['t1'] });
    git(root, 'checkout', '-q', '--detach', 'HEAD~1');
    expect(await searchAll('zanzibar')).toEqual({ paths: [], resynced: ['t1'] });
    git(root, 'checkout', '-q', 'main');
    expect(await searchAll('zanzibar')).toEqual({ paths: ['t1/README.md'], resynced: ['t1'] });
  });

  it('stash and stash pop', async () => {
    edit('references/t2/README.md', 'baseline', 'quokka');
    expect((await searchAll('quokka')).paths).toEqual(['t2/README.md']);
    git(root, 'stash', '-q');
    expect(await searchAll('quokka')).toEqual({ paths: [], resynced: ['t2'] });
    git(root, 'stash', 'pop', '-q');
    expect(await searchAll('quokka')).toEqual({ paths: ['t2/README.md'], resynced: ['t2'] });
    git(root, 'checkout', '-q', '--', 'references/t2/README.md');
    await searchAll('quokka');
  });

  it('a merge of a branch, then a hard reset back', async () => {
    git(root, 'checkout', '-q', '-b', 'side');
    edit('references/t3/README.md', 'baseline', 'marmoset');
    git(root, 'commit', '-q', '-am', 'side edits t3');
    git(root, 'checkout', '-q', 'main');
    expect((await searchAll('marmoset')).paths).toEqual([]);
    git(root, 'merge', '-q', '--no-edit', '--no-ff', 'side');
    expect(await searchAll('marmoset')).toEqual({ paths: ['t3/README.md'], resynced: ['t3'] });
    git(root, 'reset', '-q', '--hard', 'HEAD~1');
    expect(await searchAll('marmoset')).toEqual({ paths: [], resynced: ['t3'] });
  });
});
