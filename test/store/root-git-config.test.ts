/**
 * The root's config read in one git process (readGitConfig) and a value read as a boolean
 * (configBool) answer what one `git config --get` per key and `git config --type=bool --get`
 * answered: checked against git itself, on a real repository.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configBool, readGitConfig } from '../../src/lib/git-config.js';
import { headAndPackDir } from '../../src/lib/root-git.js';
import { git, tempDir } from '../helpers/git-repos.js';

let root: string;
beforeEach(() => {
  root = tempDir();
  git(root, 'init', '-q');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What `git config --type=bool --get` says of the key (false when it refuses the value or the key is unset). */
function gitBool(key: string): boolean {
  try {
    return git(root, 'config', '--type=bool', '--get', key) === 'true';
  } catch {
    return false;
  }
}

describe('configBool', () => {
  // Each value written as git reads it from a config file; `null` is a key without `=`.
  const values: (string | null)[] = [null, '', 'true', 'TRUE', 'Yes', 'on', 'false', 'No', 'OFF', '0', '1', '2', '-1', '0x0', '0x10', '010', '00', '08', '1k', '0k', '3G', '4g', '2147483647', '2147483648', '-2147483647', '-2147483648', '-2147483649', '2097151k', '2097152k', '-2097151k', '-2097152k', ' 1', 'maybe', 'truex', '1.0', '+1', '1 2'];
  it.each(values.map((v) => [v]))('reads %j as git does', (value) => {
    appendFileSync(join(root, '.git', 'config'), value === null ? '[commit]\n\tgpgSign\n' : `[commit]\n\tgpgSign = "${value}"\n`);
    expect(configBool(readGitConfig(root, ['commit.gpgsign']).get('commit.gpgsign'))).toBe(gitBool('commit.gpgSign'));
  });

  it('reads an unset key as false', () => {
    expect(configBool(readGitConfig(root, ['commit.gpgsign']).get('commit.gpgsign'))).toBe(false);
  });
});

describe('readGitConfig', () => {
  it('answers each key as `git config --get` does: the last value, exact names only, absent when unset', () => {
    git(root, 'config', 'merge.tkoma-topic.driver', 'first %O');
    git(root, 'config', '--add', 'merge.tkoma-topic.driver', `n='/a b/node'; "$n" x %A\ny`);
    git(root, 'config', 'merge.Tkoma-Records.driver', 'other subsection case');
    // What `merge.tkoma-topic.driver` would match as an unescaped pattern (`.` any character).
    git(root, 'config', 'merge.tkoma-topicXdriver', 'not the key');
    const got = readGitConfig(root, ['merge.tkoma-topic.driver', 'merge.tkoma-records.driver', 'commit.gpgsign']);
    expect([...got.keys()]).toEqual(['merge.tkoma-topic.driver']);
    expect(got.get('merge.tkoma-topic.driver')).toBe(`n='/a b/node'; "$n" x %A\ny`);
    expect(got.get('merge.tkoma-topic.driver')).toBe(git(root, 'config', '--get', 'merge.tkoma-topic.driver'));
  });

  it('is empty outside a repository', () => {
    rmSync(join(root, '.git'), { recursive: true, force: true });
    expect(readGitConfig(root, ['commit.gpgsign']).size).toBe(0);
  });
});

describe('headAndPackDir', () => {
  it('gives the pack folder without a commit, and HEAD once there is one', () => {
    const packDir = join(git(root, 'rev-parse', '--absolute-git-dir'), 'objects', 'pack');
    expect(headAndPackDir(root)).toEqual({ head: null, tree: null, packDir });
    git(root, 'commit', '-q', '--allow-empty', '-m', 'first');
    expect(headAndPackDir(root)).toEqual({ head: git(root, 'rev-parse', 'HEAD'), tree: git(root, 'rev-parse', 'HEAD^{tree}'), packDir });
  });
});
