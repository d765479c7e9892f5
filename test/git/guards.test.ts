/**
 * Every mutation refuses a root whose git is mid-operation (ROOT_BUSY, exit 13): a detached HEAD,
 * a merge stopped on conflicts (one in the mutated topic, one in another), a rebase stopped on a
 * conflict, a cherry-pick stopped on one. Refused means: nothing written, git's index byte for
 * byte as it was, fsck clean, the operation still there for the operator to finish.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'op', GIT_AUTHOR_EMAIL: 'op@example.com', GIT_COMMITTER_NAME: 'op', GIT_COMMITTER_EMAIL: 'op@example.com' };

/** A git command that may stop on a conflict (exit 1): its status, no throw. */
function gitMayFail(cwd: string, ...args: string[]): number {
  try {
    execFileSync('git', args, { cwd, env: gitEnv, stdio: 'ignore' });
    return 0;
  } catch (err) {
    return (err as { status: number }).status;
  }
}

function edit(root: string, rel: string, from: RegExp, to: string): void {
  const file = join(root, rel);
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
}

/**
 * Branch `side` and `main` change the same lines of t1's fetched README and of t2's topic.md
 * body, so merging, rebasing or cherry-picking one onto the other stops on two conflicts.
 */
function divergedBranches(root: string): void {
  git(root, 'checkout', '-q', '-b', 'side');
  edit(root, 'references/t1/README.md', /Baseline words\./, 'Side words.');
  edit(root, 'references/t2/topic.md', /^# Topic t2$/m, '# Topic t2\n\nSide note.');
  git(root, 'commit', '-q', '-am', 'side edits');
  git(root, 'checkout', '-q', 'main');
  edit(root, 'references/t1/README.md', /Baseline words\./, 'Main words.');
  edit(root, 'references/t2/topic.md', /^# Topic t2$/m, '# Topic t2\n\nMain note.');
  git(root, 'commit', '-q', '-am', 'main edits');
}

const STATES: { name: string; state: string; make: (root: string) => void; unmerged: boolean }[] = [
  { name: 'a detached HEAD', state: 'detached', unmerged: false, make: (r) => git(r, 'checkout', '-q', '--detach', 'HEAD~1') },
  {
    name: 'a merge stopped on conflicts in this topic and another',
    state: 'merge',
    unmerged: true,
    make: (r) => {
      divergedBranches(r);
      expect(gitMayFail(r, 'merge', 'side')).not.toBe(0);
    },
  },
  {
    name: 'a rebase stopped on a conflict',
    state: 'rebase',
    unmerged: true,
    make: (r) => {
      divergedBranches(r);
      git(r, 'checkout', '-q', 'side');
      expect(gitMayFail(r, 'rebase', 'main')).not.toBe(0);
    },
  },
  {
    name: 'a cherry-pick stopped on a conflict',
    state: 'cherry-pick',
    unmerged: true,
    make: (r) => {
      divergedBranches(r);
      expect(gitMayFail(r, 'cherry-pick', 'side')).not.toBe(0);
    },
  },
];

/**
 * A merge's conflicts are visible everywhere: t1's fetched README and t2's topic.md body hold
 * markers and unmerged entries.
 */
async function expectConflictsVisible(root: string): Promise<void> {
  const list = await cli(['topic', 'list', '--json'], { root });
  const byId = Object.fromEntries((list.json as { topic_id: string; conflicts?: string[] }[]).map((t) => [t.topic_id, t]));
  expect(byId.t1).toMatchObject({ conflicted: true, conflicts: ['README.md'] });
  expect(byId.t2).toMatchObject({ conflicted: true, conflicts: ['topic.md'] });
  const status = await cli(['index', 'status', '--json'], { root });
  expect(status.json.conflicts).toEqual([
    { topic_id: 't1', path: 'README.md' },
    { topic_id: 't2', path: 'topic.md' },
  ]);
  // Search: the hit with markers says so; a topic note with markers is not served as the note.
  const hits = await cli(['search', 'words', '--topic', 't1', '--json'], { root });
  expect(hits.code, hits.stderr).toBe(0);
  expect(hits.json.results.find((h: { path: string }) => h.path === 'README.md')).toMatchObject({ conflicted: true });
  const note = await cli(['search', 'note', '--topic', 't2', '--json'], { root });
  expect(note.json.topic).toMatchObject({ topic_id: 't2', conflicted: true, body: '' });
}

describe('mutations refuse a root whose git is mid-operation (ROOT_BUSY)', () => {
  const tmp = tmpDir('tkoma-git-guards-');
  const base = join(tmp.path, 'base');
  let t3url = '';

  beforeAll(async () => {
    const u1 = makeRepo(join(tmp.path, 'u1'), { 'README.md': '# One\n\nBaseline words.\n' });
    const u2 = makeRepo(join(tmp.path, 'u2'), { 'README.md': '# Two\n\nOther words.\n' });
    t3url = makeRepo(join(tmp.path, 'u3'), { 'README.md': '# Three\n' }).url;
    await freshRoot(base);
    await mustRun(createArgs('t1', u1.url), base);
    await mustRun(createArgs('t2', u2.url), base);
  });
  afterAll(() => tmp.cleanup());

  const MUTATIONS: { name: string; args: () => string[] }[] = [
    { name: 'create', args: () => createArgs('t3', t3url) },
    { name: 'update', args: () => ['topic', 'update', 't1', '--tag', 'two', '--json'] },
    { name: 'file status', args: () => ['file', 'status', '--topic', 't1', '--path', 'README.md', '--status', 'obsolete', '--reason', 'old', '--json'] },
    { name: 'refresh', args: () => ['refresh', 't1', '--json'] },
    { name: 'delete', args: () => ['delete', 't1', '--yes', '--json'] },
  ];

  for (const s of STATES) {
    it(`on ${s.name}: every mutation is refused and nothing changes`, async () => {
      const root = join(tmp.path, s.state);
      cpSync(base, root, { recursive: true });
      s.make(root);
      // Operator work the refusals must not touch: a note in the topic, a scratch file.
      writeFileSync(join(root, 'references', 't1', 'MY-NOTES.md'), 'operator notes\n');
      mkdirSync(join(root, 'scratch'), { recursive: true });
      writeFileSync(join(root, 'scratch', 'todo.txt'), 'operator todo\n');
      const index = git(root, 'ls-files', '-s');
      // HEAD's commit and every ref with its commit, in one process (rev-parse HEAD + for-each-ref).
      const refs = git(root, 'show-ref', '--head');
      const files = { ...snapshot(join(root, 'references')), ...snapshot(join(root, 'scratch')) };
      if (s.unmerged) expect(git(root, 'ls-files', '-u')).not.toBe('');

      for (const m of MUTATIONS) {
        const r = await cli(m.args(), { root });
        expect(r.code, `${m.name}: ${r.stdout}${r.stderr}`).toBe(13);
        expect(r.json.error.code).toBe('ROOT_BUSY');
        expect(r.json.error.state).toBe(s.state);
        expect(r.json.error.message).toMatch(s.state === 'detached' ? /git checkout main/ : new RegExp(`git ${s.state} --abort`));
        expect(git(root, 'ls-files', '-s'), m.name).toBe(index);
        expect(git(root, 'show-ref', '--head')).toBe(refs);
        expect({ ...snapshot(join(root, 'references')), ...snapshot(join(root, 'scratch')) }, m.name).toEqual(files);
      }
      expect(git(root, 'fsck', '--no-progress', '--no-dangling')).toBe('');
      expect(existsSync(join(root, 'references', 't3'))).toBe(false);
      // Readers keep answering, and say what state the root is in.
      const list = await cli(['topic', 'list', '--json'], { root });
      expect(list.code, list.stderr).toBe(0);
      const show = await cli(['topic', 'show', 't1', '--json'], { root });
      expect(show.code, show.stderr).toBe(0);
      expect(show.json.root_warning).toMatch(s.state === 'detached' ? /detached HEAD/ : new RegExp(`middle of a ${s.state}`));
      // Doctor: never a green check on this root.
      const doctor = await cli(['doctor', '--json'], { root });
      const check = (doctor.json.checks as { name: string; status: string; details: Record<string, unknown> }[]).find((c) => c.name === 'git-state')!;
      expect(check.status).toBe('warn');
      expect(check.details).toMatchObject(s.state === 'detached' ? { detached: true, operation: null } : { detached: s.state === 'rebase', operation: s.state, conflicted: true });
      if (s.unmerged) {
        // Its index check names the conflicted files its git check found (one look serves both).
        const index = (doctor.json.checks as { name: string; details: { conflicts?: unknown } }[]).find((c) => c.name === 'index')!;
        expect(index.details.conflicts).toEqual([
          { topic_id: 't1', path: 'README.md' },
          { topic_id: 't2', path: 'topic.md' },
        ]);
      }
      if (s.unmerged) await expectConflictsVisible(root);
    });
  }

  it('a mutation goes through once the operator finishes (merge --abort)', async () => {
    const root = join(tmp.path, 'merge');
    expect(gitMayFail(root, 'merge', '--abort')).toBe(0);
    const r = await mustRun(['topic', 'update', 't1', '--tag', 'two', '--json'], root);
    expect(git(root, 'branch', '--contains', r.json.commit, '--format=%(refname:short)')).toBe('main');
  });
});
