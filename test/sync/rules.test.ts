/**
 * The rules sync shares with every mutation, in-process on real repositories: no remote is
 * NO_REMOTE; uncommitted operator changes, a detached HEAD or a merge the tool did not start are
 * ROOT_BUSY with nothing fetched into the branch; --dry-run changes neither HEAD nor the files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { silentProgress } from '../../src/lib/progress.js';
import { serializeTopicMd } from '../../src/lib/store/frontmatter.js';
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

describe('a topic deleted on one side while a similar one was created there', () => {
  const bare = join(dir, 'renames.git');
  const [a, b] = [join(dir, 'ra'), join(dir, 'rb')];
  const note = (id: string, tags: string[]) =>
    serializeTopicMd({ id, title: id, type: 'ReferenceTopic', created_at: '2026-01-01T00:00:00Z', trust_score: 5, tags, status: 'active', fetched_at: '2026-01-01T00:00:00Z', max_age_days: 30, files: ['a.md', 'b.md'], sources: [{ type: 'git', url: 'file:///up' }] }, `# ${id}\n\nThe same upstream.\n`);
  const topic = (root: string, id: string, tags: string[]) => {
    mkdirSync(join(root, 'references', id), { recursive: true });
    writeFileSync(join(root, 'references', id, 'topic.md'), note(id, tags));
    for (const f of ['a.md', 'b.md']) writeFileSync(join(root, 'references', id, f), `# ${f}\n\nLong shared upstream text of ${f}, the same in both topics.\n`);
  };

  it('is not taken for a rename: the other side’s change stays with its own topic (a conflict), the new topic keeps its note', async () => {
    await initRoot(a);
    git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
    git(a, 'remote', 'add', 'origin', bare);
    topic(a, 't-two', ['x']);
    git(a, 'add', '-A');
    git(a, 'commit', '-q', '-m', 'two');
    await syncRoot(a, { progress: silentProgress });
    git(dir, 'clone', '-q', bare, b);
    git(a, 'rm', '-q', '-r', 'references/t-two');
    topic(a, 't-five', ['x']);
    git(a, 'add', '-A');
    git(a, 'commit', '-q', '-m', 'two out, five in');
    await syncRoot(a, { progress: silentProgress });
    writeFileSync(join(b, 'references', 't-two', 'topic.md'), note('t-two', ['x', 'kept']));
    git(b, 'commit', '-q', '-am', 'tag two');
    const r = await syncRoot(b, { progress: silentProgress });
    expect(r.conflicts).toEqual([{ path: 'references/t-two/topic.md', topic_id: 't-two', reason: 'topic deleted there, changed here' }]);
    expect(readFileSync(join(b, 'references', 't-five', 'topic.md'), 'utf8')).toBe(note('t-five', ['x']));
    expect(readFileSync(join(b, 'references', 't-two', 'topic.md'), 'utf8')).toContain('"kept"');
  });
});
