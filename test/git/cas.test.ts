/**
 * The commit a mutation reports is on the branch it started on, or the mutation fails cleanly.
 * A real `topic update` is held just before its commit (the shared hold hook, src/lib/hold.ts:
 * it goes on when a file appears) while the test acts as the operator with real git: a checkout that
 * detaches HEAD, a commit elsewhere, an amend of the tip. Also: unmerged entries in another topic
 * (a stash pop that conflicted) do not stop a mutation, and are left exactly as they were.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun, start } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';


describe('a mutation racing the operator at its commit', () => {
  const tmp = tmpDir('tkoma-git-cas-');
  const root = join(tmp.path, 'kb');
  const topicMd = join(root, 'references', 't1', 'topic.md');

  beforeAll(async () => {
    await freshRoot(root);
    await mustRun(createArgs('t1', makeRepo(join(tmp.path, 'u1'), { 'README.md': '# One\n' }).url), root);
    await mustRun(createArgs('t2', makeRepo(join(tmp.path, 'u2'), { 'README.md': '# Two\n' }).url), root);
  });
  afterAll(() => tmp.cleanup());

  /** Starts `topic update t1 --tag <tag>` held before its commit; `go()` lets it finish. */
  async function held(tag: string) {
    const until = join(tmp.path, `go-${tag}`);
    const run = start(['topic', 'update', 't1', '--tag', tag, '--json'], { root, env: { TKOMA_REF_HOLD_AT: 'update:staged', TKOMA_REF_HOLD_UNTIL: until } });
    await run.waitForStderr(/held at update:staged/);
    return {
      go: async () => {
        writeFileSync(until, '');
        return run.done;
      },
    };
  }

  it('HEAD detached meanwhile: refused, nothing committed, the file put back', async () => {
    const before = readFileSync(topicMd, 'utf8');
    const index = git(root, 'ls-files', '-s');
    const main = git(root, 'rev-parse', 'main');
    const m = await held('detached');
    git(root, 'checkout', '-q', '--detach');
    const r = await m.go();
    expect(r.code, r.stdout + r.stderr).toBe(13);
    expect(r.json.error).toMatchObject({ code: 'ROOT_BUSY', state: 'detached' });
    expect(git(root, 'rev-parse', 'main')).toBe(main);
    expect(readFileSync(topicMd, 'utf8')).toBe(before);
    expect(git(root, 'ls-files', '-s')).toBe(index);
    git(root, 'checkout', '-q', 'main');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('an operator commit elsewhere meanwhile: the mutation lands on top of it', async () => {
    const m = await held('on-top');
    writeFileSync(join(root, 'mine.txt'), 'operator file\n');
    git(root, 'add', 'mine.txt');
    git(root, 'commit', '-q', '-m', 'operator');
    const operator = git(root, 'rev-parse', 'HEAD');
    const r = await m.go();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(git(root, 'rev-parse', 'main')).toBe(r.json.commit);
    expect(git(root, 'rev-parse', `${r.json.commit}^`)).toBe(operator);
    expect(git(root, 'show', 'main:mine.txt')).toBe('operator file');
    expect(git(root, 'show', 'main:references/t1/topic.md')).toMatch(/"on-top"/);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('the tip amended meanwhile: refused, the amended history kept', async () => {
    const before = readFileSync(topicMd, 'utf8');
    const m = await held('amended');
    git(root, 'commit', '-q', '--amend', '-m', 'operator, amended', '--', 'mine.txt');
    const amended = git(root, 'rev-parse', 'HEAD');
    const r = await m.go();
    expect(r.code, r.stdout + r.stderr).toBe(13);
    expect(r.json.error).toMatchObject({ code: 'ROOT_BUSY', state: 'moved' });
    expect(git(root, 'rev-parse', 'main')).toBe(amended);
    expect(readFileSync(topicMd, 'utf8')).toBe(before);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });

  it('unmerged entries in another topic stay exactly as they are; that topic is refused', async () => {
    // A stash pop that conflicts in t2's topic.md: unmerged entries, no operation in progress.
    const t2 = join(root, 'references', 't2', 'topic.md');
    const original = readFileSync(t2, 'utf8');
    writeFileSync(t2, original.replace('title = "Topic t2"', 'title = "Stashed title"'));
    git(root, 'stash', '-q');
    writeFileSync(t2, original.replace('title = "Topic t2"', 'title = "Committed title"'));
    git(root, 'commit', '-q', '-am', 'operator retitles t2');
    expect(() => execFileSync('git', ['stash', 'pop', '-q'], { cwd: root, stdio: 'ignore' })).toThrow();
    const unmerged = git(root, 'ls-files', '-s', '--', 'references/t2');
    expect(git(root, 'ls-files', '-u')).not.toBe('');

    const ok = await cli(['topic', 'update', 't1', '--tag', 'beside-a-conflict', '--json'], { root });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(git(root, 'rev-parse', 'main')).toBe(ok.json.commit);
    expect(git(root, 'ls-files', '-s', '--', 'references/t2')).toBe(unmerged);

    const refused = await cli(['topic', 'update', 't2', '--tag', 'x', '--json'], { root });
    expect(refused.code, refused.stdout + refused.stderr).toBe(13);
    expect(refused.json.error).toMatchObject({ code: 'ROOT_BUSY', state: 'unmerged', unmerged: ['references/t2/topic.md'] });
    expect(git(root, 'ls-files', '-s', '--', 'references/t2')).toBe(unmerged);
    expect(git(root, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });
});
