/**
 * `tkoma-ref sync` through the built binary, three clones of one knowledge root sharing a real
 * bare repository (file://): disjoint topics, one topic updated on two sides (tags, body: merged,
 * then a real conflict resolved with `sync --continue`), one topic refreshed on two sides against
 * an upstream that moved (converges on the newer fetch), one deleted on one side and updated on
 * the other (a reported conflict). After the rounds every clone has the same tree, the conflicts
 * were exactly the reported ones, and a search on each clone answers the same.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, type CliResult, git, headOf, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-sync-');
const bare = join(tmp.path, 'shared.git');
const [A, B, C] = ['a', 'b', 'c'].map((n) => join(tmp.path, `kb-${n}`)) as [string, string, string];
let up: ReturnType<typeof makeRepo>;

async function ok(args: string[], root: string): Promise<CliResult> {
  const r = await cli(args, { root });
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r;
}

/** A topic made with the operator's own approval (--yes): how it was approved is not what sync is about. */
async function create(root: string, title: string, url: string, body: string, tags: string[]): Promise<string> {
  const request = JSON.stringify({ title, body, sources: [{ type: 'git', url }], tags });
  const r = await ok(['topic', 'create', '--yes', '--json', '--input', request], root);
  return r.json.topic_id as string;
}

const sync = (root: string, ...more: string[]): Promise<CliResult> => cli(['sync', '--json', ...more], { root });

/**
 * The bare remote's main, read from its loose ref file where there is one (a loose ref wins over
 * packed-refs in git too); git answers otherwise. With tree() below, the file starts 7 rev-parse
 * processes instead of 106, at ~24 ms of CPU each from the test worker here.
 */
function remoteMain(): string {
  try {
    const id = readFileSync(join(bare, 'refs', 'heads', 'main'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(id)) return id;
  } catch {
    // packed or missing: git knows
  }
  return git(bare, 'rev-parse', 'main');
}
/** A commit's tree never changes, so git is asked once per commit id (in a repository that has it). */
const trees = new Map<string, string>();
function treeOf(repo: string, commit: string): string {
  const known = trees.get(commit);
  if (known) return known;
  const t = git(repo, 'rev-parse', `${commit}^{tree}`);
  trees.set(commit, t);
  return t;
}
const tree = (root: string): string => treeOf(root, headOf(root));
const remoteTree = (): string => treeOf(bare, remoteMain());
const note = (root: string, id: string): string => readFileSync(join(root, 'references', id, 'topic.md'), 'utf8');

/**
 * Every clone syncs, then again in turn until all hold the remote's tree (two rounds suffice when
 * nothing conflicts). A clone whose HEAD is the remote's main has nothing to push or pull, so it
 * is not synced for nothing; the checks below hold whichever clones were synced.
 */
async function converge(): Promise<void> {
  const together = () => new Set([A, B, C].map(tree)).size === 1 && tree(A) === remoteTree();
  const current = (r: string) => headOf(r) === remoteMain();
  for (const r of [A, B, C]) if (!current(r)) expect((await sync(r)).code).toBe(0);
  for (const r of [A, B, C]) {
    if (together()) break;
    if (!current(r)) expect((await sync(r)).code).toBe(0);
  }
  expect(new Set([A, B, C].map(tree)).size).toBe(1);
  expect(tree(A)).toBe(remoteTree());
  for (const r of [A, B, C]) expect(git(r, 'ls-files', '-u')).toBe('');
}

/** files, manifest and topic.md agree: the same paths, every file's bytes are its record's. */
function consistent(root: string, id: string): { commit: string; paths: string[] } {
  const dir = join(root, 'references', id);
  const records = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string; sha256: string });
  for (const rec of records) expect(createHash('sha256').update(readFileSync(join(dir, rec.path))).digest('hex'), rec.path).toBe(rec.sha256);
  const text = note(root, id);
  const files = /files = \[([^\]]*)\]/.exec(text)![1]!.match(/"[^"]+"/g)!.map((s) => JSON.parse(s) as string);
  expect([...files].sort()).toEqual(records.map((r) => r.path).sort());
  return { commit: /commit = "([0-9a-f]+)"/.exec(text)![1]!, paths: files.sort() };
}

describe('sync: three clones through a bare remote', () => {
  let tA = '';
  let tB = '';
  let tC = '';
  beforeAll(async () => {
    up = makeRepo(join(tmp.path, 'upstream'), { 'README.md': '# Gizmo\n\nGizmo frobnicates.\n', 'docs/use.md': '# Use\n\nCall gizmo().\n', 'docs/old.md': '# Old\n\nLegacy.\n' });
    git(tmp.path, 'init', '-q', '--bare', '-b', 'main', bare);
    // A root whose operator allows local upstreams (committed, so every clone has it).
    await freshRoot(A);
    git(A, 'remote', 'add', 'origin', bare);
    const first = await ok(['sync', '--json'], A);
    expect(first.json.pushed.commits.length).toBeGreaterThan(0);
    git(tmp.path, 'clone', '-q', bare, B);
    git(tmp.path, 'clone', '-q', bare, C);
  });
  afterAll(() => tmp.cleanup());

  it('disjoint topics merge by themselves, and each clone indexes what it pulled', async () => {
    tA = await create(A, 'Gizmo A', up.url, '# Gizmo A\n\nNotes of A.\n', ['gizmo']);
    tB = await create(B, 'Gizmo B', up.url, '# Gizmo B\n\nNotes of B.\n', ['gizmo']);
    tC = await create(C, 'Gizmo C', up.url, '# Gizmo C\n\nNotes of C.\n', ['gizmo']);
    const a = await sync(A);
    expect(a.json).toMatchObject({ status: 'synced', conflicts: [] });
    expect(a.json.pushed.topics.added).toEqual([tA]);
    const b = await sync(B);
    expect(b.json.pulled.topics.added).toEqual([tA]);
    expect(b.json.pushed.topics.added).toEqual([tB]);
    expect(b.json.merged.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(b.json.index.synced).toEqual([tA]);
    await converge();
    // The driver config is in every clone that ran the tool; .gitattributes came with the clone.
    expect(git(C, 'config', '--get', 'merge.tkoma-topic.driver')).toContain('merge-driver.js');
    expect(readFileSync(join(C, '.gitattributes'), 'utf8')).toContain('references/*/topic.md merge=tkoma-topic');
  });

  it('the same topic updated on two sides: tags as a set and body edits in different places merge', async () => {
    const body = (first: string, last: string) => `# Gizmo A\n\n${first}\n\nMiddle paragraph.\n\n${last}\n`;
    await ok(['topic', 'update', tA, '--body', body('Notes of A.', 'End.')], A);
    await converge();
    await ok(['topic', 'update', tA, '--tag', 'gizmo', '--tag', 'from-a', '--body', body('Notes of A, by A.', 'End.')], A);
    await ok(['topic', 'update', tA, '--tag', 'gizmo', '--tag', 'from-b', '--body', body('Notes of A.', 'End, by B.')], B);
    expect((await sync(A)).json.status).toBe('synced');
    const b = await sync(B);
    expect(b.json).toMatchObject({ status: 'synced', conflicts: [] });
    expect(b.json.merged.topics).toEqual([tA]);
    const merged = note(B, tA);
    expect(merged).toContain('tags = ["gizmo", "from-b", "from-a"]');
    expect(merged).toContain('Notes of A, by A.');
    expect(merged).toContain('End, by B.');
    await converge();
  });

  it('a body edited on both sides in the same place is a conflict, reported on both sides, finished by sync --continue', async () => {
    const at = (root: string, line: string) => ok(['topic', 'update', tB, '--body', `# Gizmo B\n\n${line}\n`], root);
    await at(A, 'Gizmo B, as A sees it.');
    await at(C, 'Gizmo B, as C sees it.');
    // As people run it: the text answers are the transcript of the conflict from both sides.
    const a = await cli(['sync'], { root: A });
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(a.stdout).toContain(`Pushed 1 commit (changed ${tB})`);
    const c = await sync(C);
    const human = await cli(['sync'], { root: C });
    process.stdout.write(`\n--- clone A (syncs first) ---\n$ tkoma-ref sync\n${a.stdout}\n--- clone C (syncs second) ---\n$ tkoma-ref sync --json\n${c.stdout}\n$ tkoma-ref sync\n${human.stdout}${human.stderr}\n`);
    expect(c.code).toBe(6);
    expect(c.json.status).toBe('conflicted');
    expect(c.json.conflicts).toEqual([{ path: `references/${tB}/topic.md`, topic_id: tB, reason: 'body edited on both sides' }]);
    // Exactly the reported paths are unmerged in git.
    expect(git(C, 'diff', '--name-only', '--diff-filter=U')).toBe(`references/${tB}/topic.md`);
    // A second sync refuses until it is resolved; other mutations too.
    expect(human.code).toBe(13);
    const text = note(C, tB);
    expect(text.split('\n+++\n')[0]).not.toContain('<<<<<<<');
    expect(text).toContain('<<<<<<< ours');
    const early = await sync(C, '--continue');
    expect(early.code).toBe(13);
    writeFileSync(join(C, 'references', tB, 'topic.md'), text.replace(/<<<<<<< ours\n[^]*?>>>>>>> theirs\n/, 'Gizmo B, as A and C agree.\n'));
    const stillMarked = await sync(C, '--continue');
    expect(stillMarked.code).toBe(13); // not yet `git add`ed
    git(C, 'add', `references/${tB}/topic.md`);
    const done = await sync(C, '--continue');
    expect(done.code, done.stdout).toBe(0);
    expect(done.json.status).toBe('synced');
    expect(done.json.merged.resolved).toEqual([tB]);
    expect(done.json.pushed.commits.length).toBeGreaterThan(0);
    await converge();
    expect(note(B, tB)).toContain('Gizmo B, as A and C agree.');
  });

  it('refreshed on two sides against an upstream that moved: one consistent state, the newer fetch', async () => {
    up.commit({ 'docs/use.md': '# Use\n\nCall gizmo(1).\n' }, [], 'use: one');
    await ok(['refresh', tA], A);
    const newest = up.commit({ 'docs/use.md': '# Use\n\nCall gizmo(2).\n', 'docs/new.md': '# New\n\nFresh page.\n' }, ['docs/old.md'], 'use: two');
    await ok(['refresh', tA], B);
    await ok(['topic', 'update', tA, '--tag', 'gizmo', '--tag', 'from-a', '--tag', 'from-b', '--tag', 'refreshed'], A);
    expect((await sync(A)).json.status).toBe('synced');
    const b = await sync(B);
    expect(b.json).toMatchObject({ status: 'synced', conflicts: [] });
    expect(b.json.merged.converged).toEqual([tA]);
    await converge();
    for (const r of [A, B, C]) {
      const state = consistent(r, tA);
      expect(state.commit).toBe(newest);
      expect(state.paths).toEqual(['README.md', 'docs/new.md', 'docs/use.md']);
      expect(readFileSync(join(r, 'references', tA, 'docs/use.md'), 'utf8')).toContain('gizmo(2)');
      expect(note(r, tA)).toContain('"refreshed"');
    }
  });

  it('deleted on one side and updated on the other: a reported conflict, the topic whole until the operator decides', async () => {
    await ok(['delete', tC, '--yes'], A);
    await ok(['topic', 'update', tC, '--tag', 'kept'], B);
    expect((await sync(A)).json.status).toBe('synced');
    const b = await sync(B);
    expect(b.code).toBe(6);
    expect(b.json.conflicts).toEqual([{ path: `references/${tC}/topic.md`, topic_id: tC, reason: 'topic deleted there, changed here' }]);
    expect(git(B, 'diff', '--name-only', '--diff-filter=U')).toBe(`references/${tC}/topic.md`);
    consistent(B, tC); // the whole topic is in the work tree, not a partial folder
    git(B, 'add', `references/${tC}`);
    expect((await sync(B, '--continue')).code).toBe(0);
    await converge();
    expect(note(A, tC)).toContain('"kept"');
  });

  it('after the rounds: the same tree, nothing unmerged, and the same search answer on every clone', async () => {
    const answers = [];
    for (const r of [A, B, C]) {
      expect(git(r, 'status', '--porcelain')).toBe('');
      const s = await ok(['search', 'gizmo frobnicates', '--json', '--limit', '5'], r);
      answers.push(JSON.stringify(s.json.results.map((h: { topic_id: string; path: string }) => [h.topic_id, h.path])));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!).length).toBeGreaterThan(0);
  });
});
