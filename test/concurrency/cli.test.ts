/**
 * Ten CLI processes at once (creates, updates, file status, searches, a refresh) on one root:
 * every one succeeds or fails cleanly, no change is lost, history stays linear with exactly one
 * commit per successful mutation, and the index and JSON files stay valid. Then a writer that
 * holds the lock: LOCKED (with the holder) after the timeout, readers unaffected, and a waiting
 * writer that takes over once the holder is killed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, type CliResult, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, createArgs, expectConsistent, mustRun, searchPaths, start } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...jsonFiles(p));
    else if (e.name.endsWith('.json') || e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

describe('concurrent init', () => {
  const tmp = tmpDir('tkoma-concurrent-init-');
  afterAll(() => tmp.cleanup());

  it('three inits of one folder: one creates it, the others find it, one commit', async () => {
    const root = join(tmp.path, 'kb');
    const results = await Promise.all([0, 1, 2].map(() => cli(['init', '--json'], { root })));
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(results.map((r) => r.json.created).sort()).toEqual([false, false, true]);
    expect(commitCount(root)).toBe(1);
    await expectConsistent(root, []);
  });
});

describe('ten concurrent CLI processes', () => {
  const tmp = tmpDir('tkoma-concurrency-');
  const root = join(tmp.path, 'kb');
  let beta: ReturnType<typeof makeRepo>;
  let fresh: ReturnType<typeof makeRepo>;

  beforeAll(async () => {
    const alpha = makeRepo(join(tmp.path, 'alpha-up'), { 'README.md': '# Alpha\n\nAardvark notes.\n', 'docs/a.md': '# A\n\nBurrows.\n' });
    beta = makeRepo(join(tmp.path, 'beta-up'), { 'README.md': '# Beta\n\nBadger notes.\n' });
    fresh = makeRepo(join(tmp.path, 'fresh-up'), { 'README.md': '# Fresh\n\nCapybara notes.\n' });
    await freshRoot(root);
    await mustRun(createArgs('alpha', alpha.url), root);
    await mustRun(createArgs('beta', beta.url), root);
    beta.commit({ 'docs/new.md': '# New\n\nDormouse arrives.\n' });
  });
  afterAll(() => tmp.cleanup());

  it('all succeed or fail cleanly; nothing lost; one commit per successful mutation', async () => {
    const before = git(root, 'rev-parse', 'HEAD');
    const commands: string[][] = [
      createArgs('gamma', fresh.url),
      createArgs('gamma', fresh.url), // the same id: exactly one wins
      createArgs('delta', fresh.url),
      ['topic', 'update', 'alpha', '--title', 'Alpha Renamed', '--json'],
      ['topic', 'update', 'alpha', '--tag', 'concurrent', '--json'],
      ['file', 'status', '--topic', 'alpha', '--path', 'docs/a.md', '--status', 'obsolete', '--reason', 'old', '--json'],
      ['topic', 'update', 'beta', '--max-age-days', '9', '--json'],
      ['refresh', 'beta', '--json'],
      ['search', 'aardvark', '--json'],
      ['search', 'badger', '--json'],
    ];
    // Ten processes queue for one write lock: each waits its turn however long the machine takes
    // (the default 30 s wait is a clock; at load 10+ the last in the queue can pass it).
    const results: CliResult[] = await Promise.all(commands.map((args) => cli(args, { root, env: { TKOMA_REF_LOCK_TIMEOUT: '600' } })));

    results.forEach((r, i) => {
      // Every answer is one valid JSON document; no stack traces.
      expect(r.json, `${commands[i].join(' ')}: ${r.stdout}${r.stderr}`).toBeDefined();
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    });
    const gammas = results.slice(0, 2);
    expect(gammas.map((r) => r.code).sort()).toEqual([0, 6]);
    expect(gammas.find((r) => r.code === 6)!.json.error.code).toBe('TOPIC_EXISTS');
    for (const r of results.slice(2)) expect(r.code, r.stdout + r.stderr).toBe(0);

    // Exactly one commit per successful mutation, in a linear history.
    const shas = results.flatMap((r) => {
      const j = r.json;
      if (r.code !== 0) return [];
      if (j.commit) return [j.commit];
      if (Array.isArray(j.topics)) return j.topics.map((t: { commit: string | null }) => t.commit).filter(Boolean);
      return [];
    });
    expect(shas).toHaveLength(7);
    const history = git(root, 'rev-list', `${before}..HEAD`).split('\n');
    expect(history.sort()).toEqual([...shas].sort());
    expect(git(root, 'rev-list', '--merges', 'HEAD')).toBe('');

    // No lost update: the three changes to alpha all landed.
    const alpha = readFileSync(join(root, 'references', 'alpha', 'topic.md'), 'utf8');
    expect(alpha).toContain('title = "Alpha Renamed"');
    expect(alpha).toContain('"concurrent"');
    expect(alpha).toContain('reason = "old"');
    expect(readFileSync(join(root, 'references', 'beta', 'topic.md'), 'utf8')).toContain('max_age_days = 9');

    await expectConsistent(root, ['alpha', 'beta', 'delta', 'gamma']);
    expect(await searchPaths(root, 'dormouse', 'beta')).toContain('beta/docs/new.md');
    const status = await mustRun(['index', 'status', '--json'], root);
    expect(status.json.pending).toEqual({ changed: 0, added: 0, removed: 0 });
    for (const f of jsonFiles(join(root, '.tkoma'))) {
      const text = readFileSync(f, 'utf8');
      if (f.endsWith('.jsonl')) for (const line of text.split('\n').filter(Boolean)) JSON.parse(line);
      else expect(() => JSON.parse(text), f).not.toThrow();
    }
  });

  it('a writer holding the lock: LOCKED names it after the timeout; readers go on; a waiting writer takes over when it dies', async () => {
    const count = commitCount(root);
    const holder = start(['topic', 'update', 'beta', '--title', 'Held', '--json'], { root, env: { TKOMA_REF_CRASH_AT: 'pause@update:before-commit' } });
    await holder.waitForStderr(/paused at/);

    const locked = await cli(['topic', 'update', 'alpha', '--title', 'Blocked', '--json'], { root, env: { TKOMA_REF_LOCK_TIMEOUT: '1' } });
    expect(locked.code).toBe(6);
    expect(locked.json.error).toMatchObject({ code: 'LOCKED', lock: 'write', holder: { pid: holder.child.pid, command: 'tkoma-ref topic update' } });
    expect(Date.parse(locked.json.error.holder.since)).not.toBeNaN();
    expect(locked.json.error.message).toContain(`pid ${holder.child.pid}`);

    // Readers are never blocked by a writer.
    expect((await cli(['topic', 'list', '--json'], { root })).code).toBe(0);
    expect((await cli(['search', 'aardvark', '--json'], { root })).code).toBe(0);

    // A long wait: it only catches a hang; the waiter takes over as soon as the holder dies, however busy the machine.
    const waiter = start(['topic', 'update', 'alpha', '--title', 'After', '--json'], { root, env: { TKOMA_REF_LOCK_TIMEOUT: '600' } });
    holder.child.kill('SIGKILL');
    await holder.done;
    const w = await waiter.done;
    expect(w.code, w.stdout + w.stderr).toBe(0);
    expect(w.json.commit).toMatch(/^[0-9a-f]{40}$/);
    await expectConsistent(root, ['alpha', 'beta', 'delta', 'gamma']);
    expect(commitCount(root)).toBe(count + 1);
    expect(readFileSync(join(root, 'references', 'beta', 'topic.md'), 'utf8')).not.toContain('Held');
  });
});
