/**
 * Answers the binary gives without oclif (bin/run.cjs, cli/fast.ts) must read exactly as oclif's
 * own: each is compared with the same command made to go through oclif (DEBUG set, or
 * TKOMA_REF_NO_FAST_PATH), and the trace shows oclif was really skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { allowLocalSources, BIN, cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';

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
    await cli(['init'], { root });
    allowLocalSources(root);
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
