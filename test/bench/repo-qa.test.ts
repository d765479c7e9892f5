/**
 * bench/repo-qa: the question set is well formed (every judged file exists in its package, as
 * the repository is built from it) and the smoke run works end to end.
 */
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { loadQuestions, packageFiles, runRepoQa } from '../../bench/repo-qa.js';
import { metric } from '../../bench/lib/records.js';
import { roleForPath } from '../../src/lib/chunking/paths.js';
import { tmpDir } from '../helpers/fixtures.js';

const tmp = tmpDir('tkoma-repo-qa-');
afterAll(() => tmp.cleanup());

describe('repo-qa questions', () => {
  const set = loadQuestions();
  it('has at least 40 questions over at least 4 repositories', () => {
    expect(set.questions.length).toBeGreaterThanOrEqual(40);
    expect(new Set(set.questions.map((q) => q.repo)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(set.questions.map((q) => q.id)).size).toBe(set.questions.length);
  });
  it('judges example files, so the example prior is measured', () => {
    const judged = set.questions.flatMap((q) => Object.entries(q.relevant).filter(([p, g]) => g === 2 && roleForPath(p) === 'example'));
    expect(judged.length).toBeGreaterThanOrEqual(3);
  });
  it('judges only files the repositories hold', () => {
    for (const spec of set.repos) {
      const paths = new Set([...packageFiles(spec)].map(([p]) => p));
      for (const q of set.questions.filter((x) => x.repo === spec.name)) {
        for (const p of Object.keys(q.relevant)) expect(paths.has(p), `${q.id}: ${p}`).toBe(true);
      }
    }
  });
});

describe('repo-qa smoke', () => {
  it('runs one repository, three questions, into records', async () => {
    const records = await runRepoQa({ smoke: true, workDir: join(tmp.path, 'work'), quiet: true });
    expect(records).toHaveLength(1);
    expect(records[0]!.bench).toBe('repo-qa');
    for (const m of ['top3', 'ndcg10', 'scraps3', 'dups3', 'queries']) expect(metric(records[0], m)).toBeTypeOf('number');
  });
});
