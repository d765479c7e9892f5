/**
 * A running `tkoma-ref watch` follows the operator's git (issue 23, item 5): a checkout of an
 * older commit and back, and a `git pull` that brings another machine's edit, change topic files
 * under it; watch re-syncs the topics whose files changed (and only those) and the searches it
 * serves answer from the new files, with no restart. Real binary, real git, a real bare remote.
 * No clock in the assertions: each step waits for its condition, with a generous deadline.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun } from '../helpers/crash.js';
import { ping } from '../helpers/serve.js';
import { freshRoot } from '../helpers/roots.js';

interface WatchEvent {
  type?: string;
  topics?: string[];
  socket?: string;
  [k: string]: unknown;
}

/**
 * A hang net that still says where watch stopped (events, stderr), not a speed check: a step that
 * takes seconds quiet may take minutes at load 25. The tests and hooks have no limit of their own
 * beyond vitest's (vitest.config.ts).
 */
const DEADLINE_MS = 600_000;

describe('watch follows the operator\'s git', () => {
  const tmp = tmpDir('tkoma-git-watch-');
  const root = join(tmp.path, 'kb');
  const bare = join(tmp.path, 'shared.git');
  const other = join(tmp.path, 'kb-other');
  const events: WatchEvent[] = [];
  let child: ChildProcessWithoutNullStreams;
  let exited: Promise<number | null>;
  let socket = '';
  let stderr = '';

  /** Polls until `cond` holds; fails with `what` (and watch's stderr) past the deadline. */
  async function until(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
    const end = Date.now() + DEADLINE_MS;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`watch never got there: ${what}\nevents: ${JSON.stringify(events.slice(-10))}\nstderr: ${stderr}`);
      await sleep(150);
    }
  }
  /** Paths of the hits whose snippet has `word`, as the running watch answers them. */
  async function served(word: string): Promise<string[]> {
    const before = (await ping(socket)).answered.search ?? 0;
    const r = await cli(['search', word, '--all', '--json'], { root });
    expect(r.code, r.stderr).toBe(0);
    // The answer came from watch's memory, not from a search process catching up by itself.
    expect((await ping(socket)).answered.search ?? 0).toBe(before + 1);
    return (r.json.results as { topic_id: string; path: string; snippet: string }[]).filter((h) => h.snippet.includes(word)).map((h) => `${h.topic_id}/${h.path}`);
  }
  /** Topics watch synced in the events from `from` on. */
  const syncedSince = (from: number): string[] => [...new Set(events.slice(from).filter((e) => e.type === 'sync').flatMap((e) => e.topics ?? []))].sort();
  /** After a git operation: watch re-synced exactly `topics`, and serves `paths` for `word`. */
  async function follows(from: number, topics: string[], word: string, paths: string[]): Promise<void> {
    await until(`a sync of ${topics.join(', ')}`, () => topics.every((t) => syncedSince(from).includes(t)));
    let last: string[] = [];
    await until(`search ${word} → ${paths.join(', ') || 'nothing'}`, async () => {
      last = await served(word);
      return JSON.stringify(last) === JSON.stringify(paths);
    });
    expect(last).toEqual(paths);
    expect(syncedSince(from)).toEqual(topics);
  }
  const edit = (dir: string, rel: string, from: string, to: string): void => {
    const file = join(dir, rel);
    writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
  };

  beforeAll(async () => {
    await freshRoot(root);
    for (const [i, t] of ['t1', 't2', 't3'].entries()) {
      await mustRun(createArgs(t, makeRepo(join(tmp.path, `u${i}`), { 'README.md': `# ${t}\n\nWord${t} baseline text.\n` }).url), root);
    }
    git(tmp.path, 'init', '-q', '--bare', '-b', 'main', bare);
    git(root, 'remote', 'add', 'origin', bare);
    git(root, 'push', '-q', '-u', 'origin', 'main');
    git(tmp.path, 'clone', '-q', bare, other);

    child = spawn(process.execPath, [BIN, 'watch', '--json', '--reconcile-seconds', '3600', '--root', root], {
      env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' },
    });
    child.stderr.on('data', (d) => (stderr += d));
    exited = new Promise((r) => child.on('close', (code) => r(code)));
    createInterface({ input: child.stdout }).on('line', (l) => {
      const e = JSON.parse(l) as WatchEvent;
      events.push(e);
      if (e.type === 'serving') socket = e.socket as string;
    });
    // Serving, and the start-up reconcile done: later syncs are the git operations' own.
    await until('serving and reconciled', () => socket !== '' && events.some((e) => e.type === 'reconcile'));
  });
  afterAll(async () => {
    child?.kill('SIGTERM');
    await exited;
    tmp.cleanup();
  });

  it('a checkout of an older commit, and back', async () => {
    let from = events.length;
    edit(root, 'references/t1/README.md', 'baseline', 'zanzibar');
    git(root, 'commit', '-q', '-am', 'operator edits t1');
    await follows(from, ['t1'], 'zanzibar', ['t1/README.md']);

    from = events.length;
    git(root, 'checkout', '-q', '--detach', 'HEAD~1');
    await follows(from, ['t1'], 'zanzibar', []);

    from = events.length;
    git(root, 'checkout', '-q', 'main');
    await follows(from, ['t1'], 'zanzibar', ['t1/README.md']);
  });

  it('a pull that brings another machine\'s edit', async () => {
    git(root, 'push', '-q', 'origin', 'main');
    git(other, 'pull', '-q');
    edit(other, 'references/t2/README.md', 'baseline', 'quokka');
    git(other, 'commit', '-q', '-am', 'edits t2 elsewhere');
    git(other, 'push', '-q', 'origin', 'main');

    const from = events.length;
    git(root, 'pull', '-q', '--ff-only');
    await follows(from, ['t2'], 'quokka', ['t2/README.md']);
    // Still running: the same process answered throughout.
    expect(child.exitCode).toBeNull();
  });
});
