/**
 * The recovery rule, mutation by mutation: a mutation that fails or is killed gives back exactly
 * what the tool wrote and never touches the operator's work. Before each failure the operator has
 * uncommitted work in the very topic the mutation changes (and beside it): a hand edit of
 * topic.md, a hand edit of a fetched file, a file of their own, and a staged edit. After the
 * failure (a real SIGKILL at every crash point of the mutation, or a commit git refuses because
 * signing fails) and the recovery the next command runs, all of it is byte for byte as it was,
 * and the index still holds the operator's staged edit.
 */
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { crashAt, createArgs, leftovers, mustRun, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

type Trigger = { kind: 'kill'; point: string } | { kind: 'gpg' };

interface Mutation {
  name: string;
  args: (i: number) => string[];
  points: string[];
  before?: (i: number) => void;
}

describe("failed or killed mutations never touch the operator's work", () => {
  const tmp = tmpDir('tkoma-crash-operator-');
  /** Two topics and the operator's uncommitted work, made once; every case runs on its own copy. */
  const prepared = join(tmp.path, 'prepared');
  let prepState: State;
  let upstream: ReturnType<typeof makeRepo>;
  let freshUrl: string;
  let copies = 0;

  beforeAll(async () => {
    const keep = makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keeper\n\nAardvark field notes.\n' });
    upstream = makeRepo(join(tmp.path, 'target-up'), { 'README.md': '# Target\n\nBaseline words.\n', 'docs/guide.md': '# Guide\n\nStable.\n' });
    freshUrl = makeRepo(join(tmp.path, 'fresh-up'), { 'README.md': '# Fresh\n\nNew words.\n' }).url;
    await freshRoot(prepared);
    await mustRun(createArgs('keep', keep.url), prepared);
    await mustRun(createArgs('target', upstream.url), prepared);
    operatorWork(prepared);
    prepState = state(prepared);
  });
  afterAll(() => tmp.cleanup());

  /** The operator's uncommitted work: a topic.md note, a hand edit, a file of their own, a staged edit, edits elsewhere. */
  function operatorWork(root: string): void {
    const target = join(root, 'references', 'target');
    appendFileSync(join(target, 'topic.md'), '\nOperator note on the topic, not committed.\n');
    writeFileSync(join(target, 'docs', 'guide.md'), '# Guide\n\nHand-corrected by the operator.\n');
    writeFileSync(join(target, 'operator-added.md'), 'a file of my own\n');
    writeFileSync(join(target, 'README.md'), '# Target\n\nStaged by the operator.\n');
    git(root, 'add', '--', 'references/target/README.md');
    writeFileSync(join(root, 'references', 'keep', 'README.md'), '# Keeper\n\nEdited elsewhere.\n');
    writeFileSync(join(root, 'NOTES.md'), 'operator scratch\n');
  }

  interface State {
    files: Record<string, string>;
    notes: string;
    index: string;
    staged: string;
    head: string;
  }

  function state(root: string): State {
    return {
      files: snapshot(join(root, 'references')),
      notes: readFileSync(join(root, 'NOTES.md'), 'utf8'),
      index: git(root, 'ls-files', '-s'),
      staged: git(root, 'diff', '--cached', '--name-only'),
      head: git(root, 'rev-parse', 'HEAD'),
    };
  }

  /**
   * A copy of the prepared root and its state. The copy holds the same bytes, so `state()` of it
   * is the prepared one's: the files' hashes, git's index entries (ls-files prints no stat data),
   * what is staged and HEAD all come from those bytes.
   */
  function operatorRoot(): { root: string; before: State } {
    const root = join(tmp.path, `kb-${copies++}`);
    cpSync(prepared, root, { recursive: true });
    return { root, before: prepState };
  }

  const MUTATIONS: Mutation[] = [
    {
      name: 'create',
      args: (i) => createArgs(`fresh${i}`, freshUrl),
      points: ['create:locked', 'create:journaled', 'create:moved', 'create:before-commit', 'create:staged'],
    },
    {
      name: 'topic update',
      args: (i) => ['topic', 'update', 'target', '--title', `Renamed ${i}`, '--json'],
      points: ['update:locked', 'update:journaled', 'update:before-commit', 'update:staged', 'update:committed'],
    },
    {
      name: 'file status',
      args: (i) => ['file', 'status', '--topic', 'target', '--path', 'docs/guide.md', '--status', 'obsolete', '--reason', `reason ${i}`, '--json'],
      points: ['file-status:locked', 'file-status:journaled', 'file-status:before-commit', 'file-status:staged', 'file-status:committed'],
    },
    {
      name: 'refresh',
      args: () => ['refresh', 'target', '--json'],
      points: ['refresh:locked', 'refresh:journaled', 'refresh:built', 'refresh:aside', 'refresh:before-commit', 'refresh:staged'],
      before: (i) => void upstream.commit({ [`docs/new-${i}.md`]: `# New ${i}\n\nArrives.\n`, 'docs/guide.md': `# Guide\n\nUpstream revision ${i}.\n` }),
    },
    {
      name: 'delete',
      args: () => ['delete', 'target', '--yes', '--json'],
      points: ['delete:locked', 'delete:journaled', 'delete:before-commit', 'delete:staged'],
    },
  ];

  for (const m of MUTATIONS) {
    const triggers: Trigger[] = [...m.points.map((point) => ({ kind: 'kill' as const, point })), { kind: 'gpg' }];
    triggers.forEach((t, i) => {
      const label = t.kind === 'kill' ? `SIGKILL at ${t.point}` : 'a commit git refuses (signing fails)';
      it(`${m.name}: ${label}`, async () => {
        m.before?.(i);
        const { root, before } = operatorRoot();
        const target = join(root, 'references', 'target');
        if (t.kind === 'kill') {
          await crashAt(t.point, m.args(i), root);
        } else {
          // As `git config commit.gpgsign true` and `git config gpg.program false` write it.
          appendFileSync(join(root, '.git', 'config'), '[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n');
          const r = await cli(m.args(i), { root });
          expect(r.json?.error?.code, r.stdout + r.stderr).toBe('GIT_FAILED');
          expect(r.code).toBe(11);
          expect(r.json.error.message).toMatch(/gpg|sign/i);
        }
        // The next command recovers whatever a dead writer left.
        const list = await cli(['topic', 'list', '--json'], { root });
        expect(list.code, list.stdout + list.stderr).toBe(0);
        expect(leftovers(root)).toEqual([]);
        const after = state(root);
        const landed = t.kind === 'kill' && t.point.endsWith(':committed');
        if (!landed) {
          expect(after).toEqual(before);
        } else {
          // The tool's own commit landed (topic.md only); everything else of the operator's is as it was.
          expect(git(root, 'show', '--name-only', '--format=', 'HEAD')).toBe('references/target/topic.md');
          expect(readFileSync(join(target, 'topic.md'), 'utf8')).toContain('Operator note on the topic, not committed.');
          const { 'target/topic.md': _a, ...restAfter } = after.files;
          const { 'target/topic.md': _b, ...restBefore } = before.files;
          expect(restAfter).toEqual(restBefore);
          expect(after.notes).toBe(before.notes);
          expect(after.staged).toBe(before.staged);
        }
        expect(existsSync(join(root, 'references', `fresh${i}`))).toBe(false);
      });
    });
  }
});
