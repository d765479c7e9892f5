/**
 * installDriverConfig writes a fresh config's driver sections itself (one write, no git process):
 * the file must come out byte for byte as the `git config` calls it replaces write it, and git
 * must read every value back; anything else (a section to edit, the lock taken) is left to git.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { readGitConfig } from '../../src/lib/git-config.js';
import { DRIVER_CONFIG_KEYS, driverCommand, gitConfigWritten, installDriverConfig } from '../../src/lib/sync/drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'tkoma-driver-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env });
let n = 0;
const repo = (): string => {
  const r = join(dir, `r${n++}`);
  git(dir, 'init', '-q', r);
  return r;
};
const config = (r: string): Buffer => readFileSync(join(r, '.git', 'config'));
/** What the four `git config` calls installDriverConfig used to make write. */
const byGit = (r: string): void => {
  for (const [name, kind, label] of [['tkoma-topic', 'topic', 'topic note'], ['tkoma-records', 'records', 'manifest']] as const) {
    git(r, 'config', `merge.${name}.name`, `tkoma-ref ${label} merge`);
    git(r, 'config', `merge.${name}.driver`, driverCommand(kind));
  }
};
/** Runs `f` with no git on PATH: a git process would fail it. */
const withoutGit = <T>(f: () => T): T => {
  const path = process.env.PATH;
  process.env.PATH = join(dir, 'no-such-bin');
  try {
    return f();
  } finally {
    process.env.PATH = path;
  }
};
const none = new Map(DRIVER_CONFIG_KEYS.map((k) => [k, null]));

describe('installDriverConfig', () => {
  it('writes a fresh config as git config does, and git reads the commands back', () => {
    const [ours, theirs] = [repo(), repo()];
    chmodSync(join(ours, '.git', 'config'), 0o640);
    chmodSync(join(theirs, '.git', 'config'), 0o640);
    expect(withoutGit(() => installDriverConfig(ours, none))).toBe(true); // no git process
    byGit(theirs);
    expect(config(ours).toString()).toBe(config(theirs).toString());
    expect(statSync(join(ours, '.git', 'config')).mode & 0o777).toBe(0o640);
    expect(existsSync(join(ours, '.git', 'config.lock'))).toBe(false);
    const read = readGitConfig(ours, DRIVER_CONFIG_KEYS);
    expect(DRIVER_CONFIG_KEYS.map((k) => read.get(k))).toEqual([driverCommand('topic'), driverCommand('records')]);
    expect(installDriverConfig(ours)).toBe(false);
  });

  it('leaves a config with a section of ours, or one whose lock is held, to git', () => {
    const [ours, theirs] = [repo(), repo()];
    for (const r of [ours, theirs]) git(r, 'config', 'merge.tkoma-topic.driver', 'an older install');
    expect(installDriverConfig(ours, none)).toBe(true);
    byGit(theirs);
    expect(config(ours).toString()).toBe(config(theirs).toString());

    const held = repo();
    const before = config(held);
    writeFileSync(join(held, '.git', 'config.lock'), 'another git');
    expect(() => installDriverConfig(held, none)).toThrow(/config/);
    expect(config(held).equals(before)).toBe(true);
    expect(readFileSync(join(held, '.git', 'config.lock'), 'utf8')).toBe('another git');
  });

  it('quotes and escapes a value as git config writes it', () => {
    const r = repo();
    const values = ['plain words', 'a;b', 'x # y', ' lead', 'trail ', 'back\\slash "q"', 'tab\there'];
    values.forEach((v, i) => git(r, 'config', `t.k${i}`, v));
    const lines = config(r).toString().split('\n').filter((l) => l.startsWith('\tk'));
    expect(lines).toEqual(values.map((v, i) => `\tk${i} = ${gitConfigWritten(v)}`));
  });
});
