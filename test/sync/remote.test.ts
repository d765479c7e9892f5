/**
 * The upstream sync uses and the "behind its remote" notice refresh and watch give, on real
 * repositories: the branch's upstream when set, else origin; behind counts only what the last
 * fetch brought (no network, never a pull).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
