/**
 * Answers the binary gives without oclif (bin/run.cjs, cli/fast.ts) must read exactly as oclif's
 * own: each is compared with the same command made to go through oclif (DEBUG set, or
 * TKOMA_REF_NO_FAST_PATH), and the trace shows oclif was really skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, type CliResult, git, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir();
afterAll(() => tmp.cleanup());

let traces = 0;
function run(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string; loaded: string[] } {
  const trace = join(tmp.path, `trace-${traces++}.txt`);
  const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', DEBUG: '', TKOMA_TRACE_FILE: trace, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, loaded: readFileSync(trace, 'utf8').split('\n').filter(Boolean) };
}

describe('--version without oclif', () => {
  for (const args of [['--version'], ['--version', '--json'], ['--version', 'search', 'x']]) {
    it(`${args.join(' ')} answers as oclif does`, () => {
      const fast = run(args);
      // DEBUG names no namespace of ours or oclif's: nothing extra is printed, but oclif answers.
      const slow = run(args, { DEBUG: 'tkoma-nothing' });
      expect(slow.loaded.some((m) => m.includes('@oclif/core'))).toBe(true);
      expect(fast.loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
      expect({ status: fast.status, stdout: fast.stdout, stderr: fast.stderr }).toEqual({ status: slow.status, stdout: slow.stdout, stderr: slow.stderr });
      expect(fast.stdout).toMatch(args.includes('--json') ? /^\{"name":"tkoma-ref","version":"[^"]+","node":"v[^"]+","platform":"[a-z0-9]+-[a-z0-9]+"\}\n$/ : /^tkoma-ref\/\S+ \S+-\S+ node-v\S+\n$/);
    });
  }
});

describe('topic list on the fast path', () => {
  const root = join(tmp.path, 'kb');
  const cases: { args: string[]; input?: string }[] = [
    { args: ['topic', 'list', '--json'] },
    { args: ['topic', 'list'] },
    { args: ['topic', 'list', '--include-obsolete', '--json'] },
    { args: ['topic', 'list', '--input', '{"include_obsolete":true}', '--json'] },
    { args: ['topic', 'list', '--input', '-', '--json'], input: '{"include_obsolete":true}' },
    { args: ['topic', 'list', '--input', 'nope', '--json'] },
    { args: ['topic', 'list', '--input', '[1]'] },
    // Handed to oclif: the same answer either way.
    { args: ['topic', 'list', '--bogus', '--json'] },
    { args: ['topic', 'list', 'extra'] },
    { args: ['topic', 'list', '--help'] },
  ];

  beforeAll(async () => {
    await freshRoot(root);
    const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# A\n\nText.\n' });
    expect((await cli(['topic', 'create', '--yes', '--json', '--title', 'Listed', '--git', repo.url], { root })).code).toBe(0);
    // One healthy topic and one broken one (reported on stderr, listed last).
    mkdirSync(join(root, 'references', 'topic-bad'));
    writeFileSync(join(root, 'references', 'topic-bad', 'topic.md'), '---\nid: [broken\n---\n');
  });

  for (const { args, input } of cases) {
    it(`${args.join(' ')} answers as oclif does`, async () => {
      const fast = await cli(args, { root, ...(input ? { input } : {}) });
      const slow = await cli(args, { root, env: { TKOMA_REF_NO_FAST_PATH: '1' }, ...(input ? { input } : {}) });
      expect(fast).toEqual(slow);
    });
  }

  it('answers with no root as oclif does', async () => {
    const args = ['topic', 'list', '--root', join(tmp.path, 'nowhere')];
    for (const a of [args, [...args, '--json']]) expect(await cli(a)).toEqual(await cli(a, { env: { TKOMA_REF_NO_FAST_PATH: '1' } }));
  });

  it('lists without loading oclif, and reports the broken topic', () => {
    const r = run(['topic', 'list', '--json', '--root', root], { TKOMA_REF_EMBEDDER: 'none' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { topic_id: string }) => t.topic_id)).toEqual(['topic-listed', 'topic-bad']);
    expect(r.stderr).toContain('topic-bad');
    expect(r.loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
  });
});

describe('topic create --json on the fast path (a ghost\'s --input)', () => {
  const template = join(tmp.path, 'create-template');
  let url = '';
  let roots = 0;
  /** A fresh copy of one root with nothing created yet: each side of a comparison gets its own. */
  const fresh = (): string => {
    const root = join(tmp.path, `create-${roots++}`);
    cpSync(template, root, { recursive: true });
    return root;
  };
  /** Commit ids, request ids and times differ between two runs; everything else must not. */
  const same = (r: CliResult) => {
    const id = (s: string) => (typeof r.json?.request_id === 'string' ? s.split(r.json.request_id).join('<id>') : s);
    return { ...r, json: undefined, stdout: unstable(id(r.stdout)), stderr: unstable(id(r.stderr)) };
  };
  const unstable = (s: string) => s.replace(/\b[0-9a-f]{40}\b/g, '<commit>').replace(/commit [0-9a-f]{7}\b/g, 'commit <short>').replace(/\(\d+(\.\d+)?m?s\)/g, '(<secs>)').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>').replace(/"elapsed_ms":\d+/g, '"elapsed_ms":<n>');

  beforeAll(async () => {
    await freshRoot(template);
    url = makeRepo(join(tmp.path, 'create-up'), { 'README.md': '# Made\n\nText.\n', 'docs/a.md': '# A\n\nMore.\n' }).url;
  });

  const request = (extra: Record<string, unknown> = {}) => JSON.stringify({ topic_id: 'made', title: 'Made', sources: [{ type: 'git', url }], ...extra });
  const cases: { name: string; args: () => string[]; input?: string }[] = [
    { name: 'created (--yes)', args: () => ['topic', 'create', '--yes', '--json', '--input', request()] },
    { name: 'created, request on stdin', args: () => ['topic', 'create', '--json', '--yes', '--input', '-'], input: request() },
    { name: 'approval required (exit 4, line on stderr)', args: () => ['topic', 'create', '--json', '--input', request()] },
    { name: 'dry run', args: () => ['topic', 'create', '--json', '--dry-run', '--input', request()] },
    { name: 'ghost and model from flags', args: () => ['topic', 'create', '--json', '--yes', '--ghost', 'g1', '--model', 'm1', '--input', request()] },
    { name: 'a refused request', args: () => ['topic', 'create', '--json', '--yes', '--input', request({ title: '' })] },
    { name: 'input that is not JSON', args: () => ['topic', 'create', '--json', '--input', 'nope'] },
    // Handed to oclif: the same answer either way.
    { name: 'flags beside --input', args: () => ['topic', 'create', '--json', '--yes', '--tag', 'x', '--input', request()] },
    { name: 'without --json', args: () => ['topic', 'create', '--yes', '--input', request()] },
    { name: 'an unknown flag', args: () => ['topic', 'create', '--json', '--bogus', '--input', request()] },
  ];

  for (const { name, args, input } of cases) {
    it(`${name}: answers and commits as oclif does`, async () => {
      const [a, b] = [fresh(), fresh()];
      const fast = await cli(args(), { root: a, ...(input ? { input } : {}) });
      const slow = await cli(args(), { root: b, env: { TKOMA_REF_NO_FAST_PATH: '1' }, ...(input ? { input } : {}) });
      expect(same(fast)).toEqual(same(slow));
      // The same files committed; topic.md the same but for its times.
      expect(git(a, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe(git(b, 'ls-tree', '-r', '--name-only', 'HEAD'));
      const note = (root: string) => (existsSync(join(root, 'references', 'made', 'topic.md')) ? unstable(readFileSync(join(root, 'references', 'made', 'topic.md'), 'utf8')) : null);
      expect(note(a)).toBe(note(b));
      expect(git(a, 'log', '--format=%an <%ae> %s')).toBe(git(b, 'log', '--format=%an <%ae> %s'));
    });
  }

  it('ghost and model from the environment, as oclif reads them', async () => {
    const [a, b] = [fresh(), fresh()];
    const env = { TKOMA_REF_GHOST: 'env-ghost', TKOMA_REF_MODEL: 'env-model' };
    expect((await cli(['topic', 'create', '--json', '--yes', '--input', request()], { root: a, env })).code).toBe(0);
    expect((await cli(['topic', 'create', '--json', '--yes', '--input', request()], { root: b, env: { ...env, TKOMA_REF_NO_FAST_PATH: '1' } })).code).toBe(0);
    expect(git(a, 'log', '-1', '--format=%an <%ae>')).toBe(git(b, 'log', '-1', '--format=%an <%ae>'));
    expect(git(a, 'log', '-1', '--format=%an')).toContain('env-ghost');
  });

  it('answers with no root as oclif does', async () => {
    const args = ['topic', 'create', '--json', '--yes', '--input', request(), '--root', join(tmp.path, 'nowhere')];
    expect(await cli(args)).toEqual(await cli(args, { env: { TKOMA_REF_NO_FAST_PATH: '1' } }));
  });

  it('creates without loading oclif', () => {
    const root = fresh();
    const r = run(['topic', 'create', '--json', '--yes', '--input', request(), '--root', root], { TKOMA_REF_EMBEDDER: 'none' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'created', topic_id: 'made', file_count: 2 });
    expect(r.loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
  });
});

describe('init --json on the fast path', () => {
  let n = 0;
  const folder = () => join(tmp.path, `init-${n++}`);
  /** The two sides' answers with each side's own folder and commit id named alike (a commit's id holds its second, which two runs need not share). */
  const alike = (r: CliResult, root: string) => ({ ...r, json: undefined, stdout: r.stdout.split(root).join('<root>').replace(/\b[0-9a-f]{40}\b/g, '<commit>').replace(/commit [0-9a-f]{7}\b/g, 'commit <short>'), stderr: r.stderr.split(root).join('<root>') });
  let existing = '';
  /** One root `init` made, copied to each side (init records no path of its own). */
  const existingRoot = (): string => {
    if (!existing) {
      existing = join(tmp.path, 'init-existing');
      execFileSync(process.execPath, [BIN, 'init', '--json', '--root', existing], { env: { ...process.env, TKOMA_REF_EMBEDDER: 'none' } });
    }
    return existing;
  };
  const cases: { name: string; args: string[]; prepare?: (root: string) => void }[] = [
    { name: 'a new root', args: ['init', '--json'] },
    { name: 'an existing root', args: ['init', '--json'], prepare: (root) => cpSync(existingRoot(), root, { recursive: true }) },
    { name: 'a folder that is not empty', args: ['init', '--json'], prepare: (root) => (mkdirSync(root), writeFileSync(join(root, 'mine.txt'), 'x\n')) },
    // Handed to oclif: the same answer either way.
    { name: 'without --json', args: ['init'] },
    { name: 'with --embedder', args: ['init', '--json', '--embedder', 'none'] },
    { name: 'an unknown flag', args: ['init', '--json', '--bogus'] },
  ];
  for (const { name, args, prepare } of cases) {
    it(`${name}: answers and commits as oclif does`, async () => {
      const [a, b] = [folder(), folder()];
      prepare?.(a);
      prepare?.(b);
      const fast = await cli(args, { root: a });
      const slow = await cli(args, { root: b, env: { TKOMA_REF_NO_FAST_PATH: '1' } });
      expect(alike(fast, a)).toEqual(alike(slow, b));
      if (existsSync(join(a, '.git'))) {
        expect(git(a, 'ls-tree', '-r', 'HEAD')).toBe(git(b, 'ls-tree', '-r', 'HEAD'));
        expect(git(a, 'log', '--format=%an <%ae> %s')).toBe(git(b, 'log', '--format=%an <%ae> %s'));
      }
    });
  }

  it('makes a root without loading oclif', () => {
    const root = folder();
    const r = run(['init', '--json', '--root', root], { TKOMA_REF_EMBEDDER: 'none' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ root, created: true });
    expect(r.loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
  });
});
