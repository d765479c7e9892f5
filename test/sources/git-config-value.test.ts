/**
 * The snapshot's remote URL is written into its config file by us (configFileValue), not by
 * `git config`: git must read back exactly what was written, whatever the characters.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { configFileValue, initBare } from '../../src/lib/sources/git-snapshot.js';
import { git, tempDir } from '../helpers/git-repos.js';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  git(dir, 'init', '-q', '--bare');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('reads back as written: quotes, backslashes, comment characters, spaces, tabs', () => {
  const values = [
    'file:///tmp/repo',
    'https://example.org/a b/c.git',
    'file:///tmp/x#y;z',
    ' leading and trailing ',
    'back\\slash and "quotes"',
    'tab\there',
    'new\nline',
    'ssh://git@example.org:2222/~user/repo.git',
  ];
  values.forEach((v, i) => appendFileSync(join(dir, 'config'), `[remote "r${i}"]\n\turl = ${configFileValue(v)}\n`));
  values.forEach((v, i) => {
    // Untrimmed (the helper trims): the spaces are part of the value.
    const read = execFileSync('git', ['config', '-z', '--get', `remote.r${i}.url`], { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    expect(read).toBe(`${v}\0`);
  });
});

it('the snapshot repository written by hand is the one `git init -q --bare` makes, less what a fetch never reads', async () => {
  // `dir` is git's own (beforeEach); ours is written beside it by initBare.
  const ours = tempDir();
  try {
    await initBare(ours);
    for (const f of ['HEAD', 'config']) expect({ f, text: readFileSync(join(ours, f), 'utf8') }).toEqual({ f, text: readFileSync(join(dir, f), 'utf8') });
    for (const d of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) expect(statSync(join(ours, d)).isDirectory()).toBe(true);
    expect(execFileSync('git', ['rev-parse', '--is-bare-repository'], { cwd: ours, encoding: 'utf8' })).toBe('true\n');
    expect(execFileSync('git', ['symbolic-ref', 'HEAD'], { cwd: ours, encoding: 'utf8' })).toBe('refs/heads/main\n');
  } finally {
    rmSync(ours, { recursive: true, force: true });
  }
});
