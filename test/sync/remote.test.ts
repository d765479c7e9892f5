/**
 * The upstream sync uses and the "behind its remote" notice refresh and watch give, on real
 * repositories: the branch's upstream when set, else origin; behind counts only what the last
 * fetch brought (no network, never a pull).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { behindRemote, findUpstream } from '../../src/lib/sync/remote.js';

const dir = mkdtempSync(join(tmpdir(), 'tkoma-remote-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

describe('remote', () => {
  const bare = join(dir, 'shared.git');
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
  git(dir, 'clone', '-q', bare, a);
  git(a, 'checkout', '-q', '-b', 'main');
  writeFileSync(join(a, 'f.md'), 'one\n');
  git(a, 'add', '-A');
  git(a, 'commit', '-q', '-m', 'one');
  git(a, 'push', '-q', 'origin', 'main');
  git(dir, 'clone', '-q', bare, b);

  it('finds the upstream of the branch, else origin with the same name, else none', () => {
    expect(findUpstream(b, 'main')).toEqual({ branch: 'main', remote: 'origin', remoteBranch: 'main', trackingRef: 'refs/remotes/origin/main' });
    git(b, 'branch', '-q', 'side');
    expect(findUpstream(b, 'side')?.trackingRef).toBe('refs/remotes/origin/side');
    const lone = join(dir, 'lone');
    git(dir, 'init', '-q', '-b', 'main', lone);
    expect(findUpstream(lone, 'main')).toBeNull();
  });

  it('takes origin from the config exactly where `git remote` lists it', () => {
    // findUpstream reads `remote.origin.*` with the branch keys instead of asking `git remote`.
    const cases: [string, string][] = [
      ['url only', '[remote "origin"]\n\turl = /x\n'],
      ['fetch only', '[remote "origin"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'],
      ['a remote named origin.x', '[remote "origin.x"]\n\turl = /x\n'],
      ['Origin in another case', '[remote "Origin"]\n\turl = /x\n'],
      ['an empty section', '[remote "origin"]\n'],
      ['remote.pushDefault', '[remote]\n\tpushDefault = origin\n'],
      ['upstream, not origin', '[remote "upstream"]\n\turl = /x\n'],
    ];
    for (const [name, text] of cases) {
      const repo = join(dir, `cfg-${cases.findIndex((c) => c[0] === name)}`);
      git(dir, 'init', '-q', '-b', 'main', repo);
      writeFileSync(join(repo, '.git', 'config'), `${readFileSync(join(repo, '.git', 'config'), 'utf8')}${text}`);
      const listed = git(repo, 'remote').split('\n').includes('origin');
      expect({ name, origin: findUpstream(repo, 'main') !== null }).toEqual({ name, origin: listed });
    }
  });

  it('is behind only after a fetch brought commits in, and says so without pulling', () => {
    writeFileSync(join(a, 'f.md'), 'two\n');
    git(a, 'commit', '-q', '-am', 'two');
    git(a, 'push', '-q', 'origin', 'main');
    expect(behindRemote(b)).toBeNull(); // not fetched yet: nothing known
    git(b, 'fetch', '-q', 'origin');
    const before = git(b, 'rev-parse', 'HEAD');
    expect(behindRemote(b)).toMatchObject({ behind: 1, upstream: 'origin/main' });
    expect(behindRemote(b)!.message).toContain('`tkoma-ref sync`');
    expect(git(b, 'rev-parse', 'HEAD')).toBe(before);
    git(b, 'merge', '-q', '--ff-only', 'origin/main');
    expect(behindRemote(b)).toBeNull();
  });
});
