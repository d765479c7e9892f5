/**
 * An operator's git racing the tool's mutations, all real processes: a bash loop that looks at
 * an older commit and comes back (`checkout --detach HEAD~1` / `checkout main`), shelves its own
 * work in progress (`git stash push` / `stash pop`) and commits its own files, while two lanes
 * of the real binary run creates, updates, file statuses, refreshes and deletes. Whatever
 * interleaving happens: every commit a mutation reported is on `main`, every operator file is
 * in the work tree (and on `main` once committed), no dangling blob holds operator content, fsck
 * is clean, nothing is left unmerged or staged.
 *
 * RACE_MUTATIONS sets the count (default 12, to stay cheap in CI; the closing measurement of
 * issue 23 used 200: docs/BENCHMARKS.md). The figures are printed, not asserted.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir, type CliResult } from '../helpers/fixtures.js';
import { createArgs, mustRun } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const COUNT = Number(process.env.RACE_MUTATIONS ?? 12);
const LANES = 2;

/** The operator: one bash process, until the stop file appears; logs each file it wrote. */
const OPERATOR = String.raw`
set -u
cd "$ROOT"
n=0
retry() { for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "$@" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
while [ ! -e "$STOP" ]; do
  n=$((n+1))
  # Look at history, then come back (the tool may refuse or race meanwhile).
  if git checkout -q --detach HEAD~1 2>/dev/null; then
    sleep 0.05
    until git checkout -q main 2>/dev/null; do sleep 0.05; done
  fi
  # Shelve my own work in progress, and take it back.
  echo "OPERATOR-live-$n" > ops/live.txt
  echo "live ops/live.txt OPERATOR-live-$n" >> "$LOG"
  if git stash push -q -- ops/live.txt 2>/dev/null; then
    retry git stash pop -q || echo "pop-failed $n" >> "$LOG"
  else
    echo "push-failed $n" >> "$LOG"
  fi
  # Commit a file of my own.
  c="OPERATOR-file-$n-$RANDOM"
  echo "$c" > "ops/op-$n.txt"
  echo "wrote ops/op-$n.txt $c" >> "$LOG"
  if retry git add "ops/op-$n.txt" && retry git commit -q -m "operator $n" -- "ops/op-$n.txt"; then
    echo "committed ops/op-$n.txt $c" >> "$LOG"
  fi
done
git checkout -q main 2>/dev/null
echo "done $n" >> "$LOG"
`;

/** A small deterministic generator, so a failing run can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

interface Outcome {
  op: string;
  code: number;
  commit: string | null;
  error?: string;
  out: string;
}

describe('an operator racing mutations with checkout, stash and commits', () => {
  const tmp = tmpDir('tkoma-git-race-');
  const root = join(tmp.path, 'kb');
  const ups: ReturnType<typeof makeRepo>[] = [];

  beforeAll(async () => {
    for (const i of [1, 2, 3]) ups.push(makeRepo(join(tmp.path, `u${i}`), { 'README.md': `# Up ${i}\n\nWords ${i}.\n`, 'docs/a.md': `# A ${i}\n` }));
    await freshRoot(root);
    for (const i of [1, 2, 3]) await mustRun(createArgs(`t${i}`, ups[i - 1].url), root);
    execFileSync('bash', ['-c', 'mkdir -p ops && echo OPERATOR-live-0 > ops/live.txt && git add ops && git -c user.name=op -c user.email=op@x commit -q -m "operator start"'], { cwd: root });
  });
  afterAll(() => tmp.cleanup());

  // No time limit of its own: the run lasts as long as the machine needs for COUNT mutations;
  // vitest's hang net (vitest.config.ts) still ends a run that hangs.
  it(`${COUNT} mutations: none orphaned, no operator file lost`, async () => {
    const stop = join(tmp.path, 'stop');
    const log = join(tmp.path, 'operator.log');
    writeFileSync(log, '');
    const operator = spawn('bash', ['-c', OPERATOR], {
      env: { ...process.env, ROOT: root, STOP: stop, LOG: log, GIT_AUTHOR_NAME: 'op', GIT_AUTHOR_EMAIL: 'op@x', GIT_COMMITTER_NAME: 'op', GIT_COMMITTER_EMAIL: 'op@x' },
      stdio: 'ignore',
    });
    const operatorDone = new Promise<void>((r) => operator.on('close', () => r()));

    const outcomes: Outcome[] = [];
    const created: string[] = [];
    let next = 0;
    const lane = async (seed: number): Promise<void> => {
      const rand = prng(seed);
      for (let k = next++; k < COUNT; k = next++) {
        const t = `t${1 + Math.floor(rand() * 3)}`;
        const roll = rand();
        let op: string;
        let args: string[];
        if (roll < 0.1) {
          op = 'create';
          const id = `c${k}`;
          created.push(id);
          args = createArgs(id, ups[k % 3].url);
        } else if (roll < 0.18 && created.length > 0) {
          op = 'delete';
          args = ['delete', created.shift()!, '--yes', '--json'];
        } else if (roll < 0.3) {
          op = 'refresh';
          ups[Number(t.slice(1)) - 1].commit({ 'README.md': `# Up\n\nMoved ${k}.\n` });
          args = ['refresh', t, '--json'];
        } else if (roll < 0.55) {
          op = 'file status';
          args = ['file', 'status', '--topic', t, '--path', 'docs/a.md', '--status', k % 2 ? 'obsolete' : 'active', '--reason', `r${k}`, '--json'];
        } else {
          op = 'update';
          args = ['topic', 'update', t, '--tag', `k${k}`, '--json'];
        }
        const r: CliResult = await cli(args, { root });
        const commit = r.code === 0 ? ((r.json?.commit as string | null | undefined) ?? (r.json?.topics?.[0]?.commit as string | null | undefined) ?? null) : null;
        outcomes.push({ op, code: r.code, commit, error: r.json?.error?.code, out: (r.stdout + r.stderr).slice(0, 400) });
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(7 + i)));
    writeFileSync(stop, '');
    await operatorDone;

    // Every commit a mutation reported is on main.
    const orphaned = outcomes.filter((o) => {
      if (!o.commit) return false;
      try {
        git(root, 'merge-base', '--is-ancestor', o.commit, 'main');
        return false;
      } catch {
        return true;
      }
    });
    // Every operator file is in the work tree, and on main when its commit succeeded.
    const lines = readFileSync(log, 'utf8').split('\n');
    const lost: string[] = [];
    let lastLive = 'OPERATOR-live-0';
    for (const line of lines) {
      const [kind, path, content] = line.split(' ');
      if (kind === 'live') lastLive = content;
      if (kind === 'wrote' && readFileSync(join(root, path), 'utf8').trim() !== content) lost.push(`${path} (work tree)`);
      if (kind === 'committed' && git(root, 'show', `main:${path}`) !== content) lost.push(`${path} (main)`);
    }
    // The last work in progress is in the work tree, or still shelved when a pop lost a race.
    const shelved = git(root, 'stash', 'list', '--format=%H').split('\n').filter(Boolean).map((c) => git(root, 'show', `${c}:ops/live.txt`));
    if (readFileSync(join(root, 'ops', 'live.txt'), 'utf8').trim() !== lastLive && !shelved.includes(lastLive)) lost.push('ops/live.txt');
    const dangling = git(root, 'fsck', '--no-progress', '--dangling')
      .split('\n')
      .filter((l) => l.startsWith('dangling blob'))
      .filter((l) => git(root, 'cat-file', '-p', l.split(' ')[2]).includes('OPERATOR-'));

    const by = (pred: (o: Outcome) => boolean) => outcomes.filter(pred).length;
    const table = {
      mutations: outcomes.length,
      committed: by((o) => o.code === 0 && !!o.commit),
      ok_without_commit: by((o) => o.code === 0 && !o.commit),
      refused_root_busy: by((o) => o.error === 'ROOT_BUSY'),
      other_failures: outcomes.filter((o) => o.code !== 0 && o.error !== 'ROOT_BUSY').map((o) => `${o.op}:${o.error ?? o.code}`),
      // Per kind: committed / answered without a commit (nothing to change) / refused or failed.
      by_op: Object.fromEntries([...new Set(outcomes.map((o) => o.op))].sort().map((op) => {
        const of = outcomes.filter((o) => o.op === op);
        return [op, `${of.filter((o) => o.commit).length}/${of.filter((o) => o.code === 0 && !o.commit).length}/${of.filter((o) => o.code !== 0).length}`];
      })),
      operator_iterations: lines.find((l) => l.startsWith('done'))?.split(' ')[1],
      operator_commits: lines.filter((l) => l.startsWith('committed')).length,
      stash_push_failed: lines.filter((l) => l.startsWith('push-failed')).length,
      stash_pop_failed: lines.filter((l) => l.startsWith('pop-failed')).length,
      stash_entries_left: git(root, 'stash', 'list').split('\n').filter(Boolean).length,
      orphaned_commits: orphaned.length,
      operator_files_lost: lost.length,
      dangling_operator_blobs: dangling.length,
    };
    console.log(`race: ${JSON.stringify(table)}`);

    expect(orphaned.map((o) => `${o.op} ${o.commit}`)).toEqual([]);
    expect(lost).toEqual([]);
    expect(dangling).toEqual([]);
    // Refusals and lost races are fine; a failure of another kind is a bug (not found: a topic the
    // operator's checkout of an older commit took out of sight, or one deleted by the other lane).
    const bad = outcomes.filter((o) => o.code !== 0 && !['ROOT_BUSY', 'TOPIC_NOT_FOUND', 'LOCKED', 'TOPIC_EXISTS'].includes(o.error ?? ''));
    expect(bad.map((o) => `${o.op}: ${o.out}`)).toEqual([]);
    // How many commit depends on timing: on a busy machine the operator's loop can win all 12
    // (seen: 0 of 12 beside other suites, 7 of 12 alone). Each mutation either answered or was
    // refused as above; what must hold is that none of those that did commit is lost.
    expect(outcomes.length).toBe(COUNT);
    // The repository is sound and the tool left nothing staged or unmerged.
    expect(git(root, 'fsck', '--no-progress', '--no-dangling')).toBe('');
    expect(git(root, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(root, 'ls-files', '-u')).toBe('');
    // `git stash push -- PATH` is not atomic: it stages PATH (`add -u`), then unstages it with
    // `apply --index -R`, which fails when a mutation holds git's index lock at that moment; the
    // stash entry stays and PATH stays staged (git 2.39). That is the operator's own git, so their
    // shelved file may be staged after a failed push; nothing else may be.
    const pushFailed = lines.some((l) => l.startsWith('push-failed'));
    const staged = git(root, 'diff', '--cached', '--name-only').split('\n').filter(Boolean);
    expect(staged.filter((p) => !(pushFailed && p === 'ops/live.txt'))).toEqual([]);
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.code, list.stderr).toBe(0);
    expect((list.json as { status: string }[]).filter((t) => t.status === 'broken')).toEqual([]);
  });
});
