/**
 * Answers the binary gives without oclif (bin/run.cjs, cli/fast.ts) must read exactly as oclif's
 * own: each is compared with the same command made to go through oclif (DEBUG set, or
 * TKOMA_REF_NO_FAST_PATH), and the trace shows oclif was really skipped.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { BIN, PROJECT, tmpDir } from '../helpers/fixtures.js';

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
