/**
 * The rules sync shares with every mutation, in-process on real repositories: no remote is
 * NO_REMOTE; uncommitted operator changes, a detached HEAD or a merge the tool did not start are
 * ROOT_BUSY with nothing fetched into the branch; --dry-run changes neither HEAD nor the files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { silentProgress } from '../../src/lib/progress.js';
import { initRoot } from '../../src/lib/store/root.js';
import { syncRoot } from '../../src/lib/sync/sync.js';

const dir = mkdtempSync(join(tmpdir(), 'tkoma-sync-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof TkomaError) return err.code;
    throw err;
  }
}

describe('sync refuses what is not its to change', () => {
  const bare = join(dir, 'shared.git');
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  const run = (root: string, opts: { dryRun?: boolean } = {}) => syncRoot(root, { progress: silentProgress, ...opts });

  it('a root without a remote is NO_REMOTE', async () => {
    await initRoot(a);
    expect(await code(run(a))).toBe('NO_REMOTE');
  });

  it('pushes the first time, and a dry run elsewhere changes nothing but says what would come', async () => {
    git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
    git(a, 'remote', 'add', 'origin', bare);
    const first = await run(a);
    expect(first.pushed.commits.length).toBe(1);
    git(dir, 'clone', '-q', bare, b);
    writeFileSync(join(a, 'references', 'note.md'), 'a hand-written note\n');
    git(a, 'add', '-A');
    git(a, 'commit', '-q', '-m', 'note');
    await run(a);
    const head = git(b, 'rev-parse', 'HEAD');
    const dry = await run(b, { dryRun: true });
    expect(dry.status).toBe('dry_run');
    expect(dry.pulled.commits.length).toBe(1);
    expect(git(b, 'rev-parse', 'HEAD')).toBe(head);
    expect(() => readFileSync(join(b, 'references', 'note.md'))).toThrow();
  });

  it('uncommitted changes, a detached HEAD and an operator merge are ROOT_BUSY, nothing merged', async () => {
    const head = git(b, 'rev-parse', 'HEAD');
    writeFileSync(join(b, 'tkoma-ref.toml'), readFileSync(join(b, 'tkoma-ref.toml'), 'utf8') + '\n# mine\n');
    expect(await code(run(b))).toBe('ROOT_BUSY');
    expect(git(b, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(b, 'tkoma-ref.toml'), 'utf8')).toContain('# mine');
    git(b, 'checkout', '-q', '--', 'tkoma-ref.toml');
    git(b, 'checkout', '-q', '--detach');
    expect(await code(run(b))).toBe('ROOT_BUSY');
    git(b, 'checkout', '-q', 'main');
    // An operator's own merge in progress (conflicting edits of one file).
    git(b, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(b, 'README.md'), 'side\n');
    git(b, 'commit', '-q', '-am', 'side');
    git(b, 'checkout', '-q', 'main');
    writeFileSync(join(b, 'README.md'), 'main\n');
    git(b, 'commit', '-q', '-am', 'main');
    expect(() => git(b, 'merge', '-q', 'side')).toThrow();
    expect(await code(run(b))).toBe('ROOT_BUSY');
    expect(git(b, 'diff', '--name-only', '--diff-filter=U')).toBe('README.md');
    git(b, 'merge', '--abort');
    const ok = await run(b);
    expect(ok.pulled.commits.length).toBe(1);
    expect(readFileSync(join(b, 'references', 'note.md'), 'utf8')).toBe('a hand-written note\n');
  });
});
