/**
 * The fetched blobs packed for the root (packInto), moved into its object store (adoptPacks):
 * `git add` then finds them instead of writing them, and stages exactly what it would have.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptPacks, stageAll } from '../../src/lib/root-git.js';
import { fetchGitSource } from '../../src/lib/sources/git.js';
import { fastImportPath, packForRoot } from '../../src/lib/sources/git-tree.js';
import { git, makeFixture, tempDir, type Fixture } from '../helpers/git-repos.js';

let fx: Fixture;
let work: string;
beforeEach(() => {
  fx = makeFixture({ allowFilter: true });
  work = tempDir();
});
afterEach(() => {
  fx.cleanup();
  rmSync(work, { recursive: true, force: true });
});

/** A root with one commit, and the fetched files copied under references/t. */
function rootWith(fetched?: string): string {
  const root = join(work, 'root');
  mkdirSync(root);
  git(root, 'init', '-q');
  writeFileSync(join(root, 'README.md'), 'root\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  if (fetched) cpSync(fetched, join(root, 'references', 't'), { recursive: true });
  return root;
}

const looseObjects = (root: string) => Number(/^count: (\d+)$/m.exec(git(root, 'count-objects', '-v'))![1]);

describe('packInto and adoptPacks', () => {
  it('stores every kept blob once, so git add writes none of them again', async () => {
    const dest = join(work, 'fetched');
    const packs = join(work, 'packs');
    const res = await fetchGitSource({ url: fx.url }, dest, { packInto: join(packs, '0'), packMinFiles: 1 });
    expect(readdirSync(join(packs, '0')).filter((n) => n.endsWith('.idx')).length).toBe(1);

    const root = rootWith(dest);
    const before = looseObjects(root);
    expect(await adoptPacks(root, packs)).toBe(true);
    expect(readdirSync(join(packs, '0'))).toEqual([]);
    await stageAll(root, ['references/t'], { blobsStored: true });
    expect(looseObjects(root)).toBe(before);
    const staged = git(root, 'ls-files', '-s', '--', 'references/t').split('\n');
    expect(staged.length).toBe(res.files.length);
    for (const line of staged) {
      const [, oid, , path] = line.split(/\s+/);
      expect(git(root, 'hash-object', '--', path!)).toBe(oid);
      expect(git(root, 'cat-file', '-t', oid!)).toBe('blob');
    }
    git(root, 'fsck', '--no-dangling');
    // The folder trees are stored too: writing the tree adds only the three above the files'
    // folders (the root's, references/ and references/t, which holds no source folder's exact set).
    const staged0 = looseObjects(root);
    git(root, 'write-tree');
    expect(looseObjects(root) - staged0).toBe(3);
  });

  it('a root rule that changes the bytes on add still stages what git add would', async () => {
    const dest = join(work, 'fetched');
    const packs = join(work, 'packs');
    await fetchGitSource({ url: fx.url, paths: ['docs/'] }, dest, { packInto: join(packs, '0'), packMinFiles: 1 });
    const root = rootWith(dest);
    // A clean filter that upper-cases: none of the fetched blobs is what git add stores.
    git(root, 'config', 'filter.up.clean', 'tr a-z A-Z');
    writeFileSync(join(root, '.gitattributes'), 'references/** filter=up\n');
    expect(await adoptPacks(root, packs)).toBe(true);
    await stageAll(root, ['references/t'], { blobsStored: true });
    const oid = git(root, 'rev-parse', ':references/t/docs/guide.md');
    expect(git(root, 'cat-file', 'blob', oid)).toBe('# GUIDE\n\nINSTALL IT, THEN RUN IT.');
  });

  it('makes no pack for a few files (git add stores them itself, in one pack of its own)', async () => {
    const dest = join(work, 'fetched');
    const packs = join(work, 'packs');
    const res = await fetchGitSource({ url: fx.url }, dest, { packInto: join(packs, '0') });
    expect(res.files.length).toBeLessThan(32);
    expect(existsSync(join(packs, '0'))).toBe(false);
    const root = rootWith(dest);
    const before = looseObjects(root);
    await stageAll(root, ['references/t']);
    expect(looseObjects(root)).toBe(before);
    for (const f of res.files) expect(git(root, 'rev-parse', `:references/t/${f.path}`)).toBe(git(root, 'hash-object', '--', `references/t/${f.path}`));
  });

  it('adopts nothing when there is no pack', async () => {
    const root = rootWith();
    expect(await adoptPacks(root, join(work, 'missing'))).toBe(false);
    mkdirSync(join(work, 'empty', '0'), { recursive: true });
    expect(await adoptPacks(root, join(work, 'empty'))).toBe(false);
  });
});

describe('fastImportPath', () => {
  it('quotes every path, escaping quotes and backslashes only', () => {
    expect(fastImportPath('docs/a b.md')).toBe('"docs/a b.md"');
    expect(fastImportPath('"q".md')).toBe('"\\"q\\".md"');
    expect(fastImportPath('back\\slash/é.md')).toBe('"back\\\\slash/é.md"');
  });

  it('packs every folder tree of thousands of files, its commands written to git a piece at a time', async () => {
    const repo = join(work, 'many');
    mkdirSync(repo);
    git(repo, 'init', '-q', '--bare');
    const blobs = ['a', 'b', 'c'].map((t) => execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, input: `${t}\n`, encoding: 'utf8' }).trim());
    // 9,000 files in 150 folders, two deep: past several pieces of 4,096 lines.
    const files = Array.from({ length: 9000 }, (_, i) => ({ path: `d${i % 15}/e${i % 150}/f "${i}".md`, oid: blobs[i % 3]! }));
    await packForRoot(repo, files, join(work, 'pack'));
    const idx = readdirSync(join(work, 'pack')).find((n) => n.endsWith('.idx'))!;
    const packed = new Set(git(repo, 'verify-pack', '-v', join(work, 'pack', idx)).split('\n').map((l) => l.split(' ')[0]));
    // The same folders' trees as git itself builds them from an index of the files.
    const index = join(work, 'many.index');
    const env = { ...process.env, GIT_INDEX_FILE: index };
    execFileSync('git', ['update-index', '--add', '-z', '--index-info'], { cwd: repo, env, input: files.map((f) => `100644 ${f.oid}\t${f.path}\0`).join('') });
    const root = execFileSync('git', ['write-tree'], { cwd: repo, env, encoding: 'utf8' }).trim();
    const trees = git(repo, 'ls-tree', '-r', '-d', '-t', root).split('\n').map((l) => l.split(/\s+/)[2]!);
    expect(trees.length).toBe(165);
    for (const oid of [...trees, ...blobs]) expect(packed.has(oid), oid).toBe(true);
  });
});
