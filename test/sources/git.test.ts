import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { fetchGitSource, probeGitSource, remoteCommit, type GitSourceSpec } from '../../src/lib/sources/git.js';
import { languageOf } from '../../src/lib/sources/git-filter.js';
import { completeBlobs, withSnapshot } from '../../src/lib/sources/git-snapshot.js';
import { BIG_BYTES, KEPT_MAIN, SKIPPED_MAIN, commitOnMain, git, makeFixture, tempDir, type Fixture } from '../helpers/git-repos.js';

async function errorOf(p: Promise<unknown>): Promise<TkomaError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    return err as TkomaError;
  }
  throw new Error('expected a TkomaError');
}

/** Every path under dir, with symlinks reported as such (never followed). */
function walk(dir: string, prefix = ''): { path: string; kind: 'file' | 'symlink' | 'other' }[] {
  const out: { path: string; kind: 'file' | 'symlink' | 'other' }[] = [];
  for (const name of readdirSync(dir)) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const st = lstatSync(join(dir, name));
    if (st.isDirectory()) out.push(...walk(join(dir, name), rel));
    else out.push({ path: rel, kind: st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : 'other' });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const sizeOf = (s: string) => Buffer.byteLength(s);
const sorted = (xs: string[]) => [...xs].sort();

let fx: Fixture;
let ownTmp: string;
let savedTmp: string | undefined;

beforeAll(() => {
  // A private TMPDIR shows whether probe and fetch leave temporary clones behind.
  savedTmp = process.env.TMPDIR;
  ownTmp = join(tmpdir(), `tkoma-git-tests-${process.pid}-${Date.now()}`);
  mkdirSync(ownTmp);
  process.env.TMPDIR = ownTmp;
  fx = makeFixture();
});

afterAll(() => {
  fx.cleanup();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(ownTmp, { recursive: true, force: true });
});

function leftovers(): string[] {
  return readdirSync(ownTmp).filter((n) => n.startsWith('tkoma-ref-'));
}

describe('probeGitSource', () => {
  it('reports the default branch, commit, counts, bytes, languages and skips exactly', async () => {
    const p = await probeGitSource({ url: fx.url });
    const rust = ['src/lib.rs', 'src/main.rs', 'examples/hello.rs'];
    const ts = ['src/util.ts', 'app/[id]/page.tsx'];
    const md = ['README.md', 'docs/guide.md', 'docs/api.md'];
    const bytes = (ps: string[]) => ps.reduce((n, p) => n + sizeOf(KEPT_MAIN[p]!), 0);
    expect(p).toEqual({
      url: fx.url,
      display_name: 'demo',
      default_branch: 'main',
      ref: 'main',
      commit: fx.first,
      file_count: Object.keys(KEPT_MAIN).length,
      total_bytes: Object.values(KEPT_MAIN).reduce((n, t) => n + sizeOf(t), 0),
      languages: [
        { name: 'Rust', files: 3, bytes: bytes(rust) },
        { name: 'TypeScript', files: 2, bytes: bytes(ts) },
        { name: 'Markdown', files: 3, bytes: bytes(md) },
      ].sort((a, b) => b.bytes - a.bytes),
      skipped: { binary: 2, lockfile: 2, node_modules: 1, generated: 1, too_large: 1, symlink: 2 },
      kept_files: sorted(Object.keys(KEPT_MAIN)).map((path) => ({ path, bytes: sizeOf(KEPT_MAIN[path]!) })),
      skipped_files: expect.any(Array),
    });
    // Every skipped file is listed with its reason and, the blobs being at hand, its size.
    expect(Object.fromEntries(p.skipped_files.map((s) => [s.path, s.reason]))).toEqual(SKIPPED_MAIN);
    expect(p.skipped_files.find((s) => s.path === 'big.txt')?.bytes).toBe(BIG_BYTES);
    for (const f of [...rust, ...ts, ...md]) expect(languageOf(f)).toBeDefined();
    expect(leftovers()).toEqual([]);
  });

  it('counts only the requested folders and files, and names paths that match nothing', async () => {
    const p = await probeGitSource({ url: fx.url, paths: ['docs/', 'src/lib.rs', 'nope/'] });
    expect(p.file_count).toBe(3);
    expect(p.total_bytes).toBe(sizeOf(KEPT_MAIN['docs/guide.md']!) + sizeOf(KEPT_MAIN['docs/api.md']!) + sizeOf(KEPT_MAIN['src/lib.rs']!));
    expect(p.skipped).toEqual({ symlink: 1 });
    expect(p.missing_paths).toEqual(['nope/']);
    expect(p.languages.map((l) => [l.name, l.files])).toEqual([
      ['Markdown', 2],
      ['Rust', 1],
    ]);
  });

  it('resolves a branch, an annotated tag and a full commit id', async () => {
    const dev = await probeGitSource({ url: fx.url, ref: 'dev' });
    expect([dev.ref, dev.commit, dev.default_branch, dev.file_count]).toEqual(['dev', fx.dev, 'main', 9]);
    const tag = await probeGitSource({ url: fx.url, ref: 'v1.0' });
    expect([tag.ref, tag.commit]).toEqual(['v1.0', fx.first]);
    const sha = await probeGitSource({ url: fx.url, ref: fx.dev });
    expect([sha.ref, sha.commit, sha.file_count]).toEqual([fx.dev, fx.dev, 9]);
  });

  it('refuses refs the remote does not have', async () => {
    expect((await errorOf(probeGitSource({ url: fx.url, ref: 'no-such-branch' }))).code).toBe('INVALID_REF');
    expect((await errorOf(probeGitSource({ url: fx.url, ref: fx.first.slice(0, 10) }))).code).toBe('INVALID_REF');
    expect((await errorOf(probeGitSource({ url: fx.url, ref: 'f'.repeat(40) }))).code).toBe('INVALID_REF');
  });

  it('reports unknown sizes instead of downloading blobs when the server honours the filter', async () => {
    const lean = makeFixture({ allowFilter: true });
    try {
      const p = await probeGitSource({ url: lean.url });
      // Without blobs only name rules apply: big.txt and the NUL-filled data/raw.xyz still count.
      expect(p.file_count).toBe(Object.keys(KEPT_MAIN).length + 2);
      expect(p.total_bytes).toBeNull();
      expect(p.languages.every((l) => l.bytes === null)).toBe(true);
      expect(p.languages.map((l) => [l.name, l.files])).toEqual([
        ['Markdown', 3],
        ['Rust', 3],
        ['TypeScript', 2],
        ['Text', 1],
      ]);
      expect(p.skipped).toEqual({ binary: 1, lockfile: 2, node_modules: 1, generated: 1, symlink: 2 });
    } finally {
      lean.cleanup();
    }
  });

  it('fails with EMPTY_FETCH when the paths select nothing', async () => {
    const err = await errorOf(probeGitSource({ url: fx.url, paths: ['nope/'] }));
    expect(err.code).toBe('EMPTY_FETCH');
  });
});

describe('fetchGitSource', () => {
  it('copies every kept file, reports every skipped one, never copies a symlink', async () => {
    const dest = tempDir();
    try {
      const res = await fetchGitSource({ url: fx.url }, dest);
      expect(res.commit).toBe(fx.first);
      expect(res.ref).toBe('main');
      expect(res.files).toEqual(sorted(Object.keys(KEPT_MAIN)).map((p) => ({ path: p, bytes: sizeOf(KEPT_MAIN[p]!) })));
      expect(Object.fromEntries(res.skipped.map((s) => [s.path, s.reason]))).toEqual(SKIPPED_MAIN);
      const onDisk = walk(dest);
      expect(onDisk.every((e) => e.kind === 'file')).toBe(true);
      expect(onDisk.map((e) => e.path)).toEqual(sorted(Object.keys(KEPT_MAIN)));
      for (const [p, text] of Object.entries(KEPT_MAIN)) expect(readFileSync(join(dest, p), 'utf8')).toBe(text);
      expect(leftovers()).toEqual([]);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('fetches only the requested folder and single files, and flags paths that match nothing', async () => {
    const dest = tempDir();
    try {
      const res = await fetchGitSource({ url: fx.url, paths: ['./docs/', 'README.md', 'app/[id]/page.tsx', 'missing.md'] }, dest);
      const want = ['README.md', 'app/[id]/page.tsx', 'docs/api.md', 'docs/guide.md'];
      expect(res.files.map((f) => f.path)).toEqual(want);
      expect(walk(dest).map((e) => e.path)).toEqual(sorted(want));
      expect(res.skipped.map(({ path, reason }) => ({ path, reason }))).toEqual(
        expect.arrayContaining([
          { path: 'docs/escape.md', reason: 'symlink' },
          { path: 'missing.md', reason: 'not_found' },
        ]),
      );
      expect(res.skipped).toHaveLength(2);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('fetches a branch and a tag', async () => {
    const devDest = tempDir();
    const tagDest = tempDir();
    try {
      const dev = await fetchGitSource({ url: fx.url, ref: 'dev', paths: ['docs/'] }, devDest);
      expect(dev.commit).toBe(fx.dev);
      expect(dev.files.map((f) => f.path)).toContain('docs/dev-only.md');
      const tag = await fetchGitSource({ url: fx.url, ref: 'v1.0', paths: ['docs/'] }, tagDest);
      expect([tag.commit, tag.ref]).toEqual([fx.first, 'v1.0']);
      expect(tag.files.map((f) => f.path)).not.toContain('docs/dev-only.md');
    } finally {
      rmSync(devDest, { recursive: true, force: true });
      rmSync(tagDest, { recursive: true, force: true });
    }
  });

  it('pins a full commit id after upstream moves on, and remoteCommit sees the move', async () => {
    const moving = makeFixture();
    const dest = tempDir();
    try {
      const src: GitSourceSpec = { url: moving.url, ref: 'main' };
      expect((await remoteCommit(src)).commit).toBe(moving.first);
      const later = commitOnMain(moving, '# Demo v2\n');
      expect((await remoteCommit(src)).commit).toBe(later);
      expect((await remoteCommit({ url: moving.url })).commit).toBe(later);
      expect((await remoteCommit({ url: moving.url, ref: 'gone' })).commit).toBeNull();

      const pinned = await fetchGitSource({ url: moving.url, ref: moving.first, paths: ['README.md'] }, dest);
      expect([pinned.commit, pinned.ref]).toEqual([moving.first, moving.first]);
      expect(readFileSync(join(dest, 'README.md'), 'utf8')).toBe(KEPT_MAIN['README.md']);

      const head = await fetchGitSource({ url: moving.url, paths: ['README.md'] }, dest);
      expect(head.commit).toBe(later);
      expect(readFileSync(join(dest, 'README.md'), 'utf8')).toBe('# Demo v2\n');
    } finally {
      moving.cleanup();
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('answers a pinned commit without touching the network', async () => {
    const sha = 'ab'.repeat(20);
    expect(await remoteCommit({ url: 'https://git.invalid/nobody/nothing.git', ref: sha })).toEqual({ commit: sha });
  });

  it('gives the same result when the server honours the blob filter', async () => {
    const lean = makeFixture({ allowFilter: true });
    const dest = tempDir();
    try {
      const full = await fetchGitSource({ url: lean.url }, dest);
      expect(full.files.map((f) => f.path)).toEqual(sorted(Object.keys(KEPT_MAIN)));
      expect(Object.fromEntries(full.skipped.map((s) => [s.path, s.reason]))).toEqual(SKIPPED_MAIN);
      for (const [p, text] of Object.entries(KEPT_MAIN)) expect(readFileSync(join(dest, p), 'utf8')).toBe(text);
    } finally {
      lean.cleanup();
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('downloads only the selected blobs that pass the name rules', async () => {
    const lean = makeFixture({ allowFilter: true });
    const oid = (p: string) => git(lean.repo, 'rev-parse', `main:${p}`);
    try {
      await withSnapshot(lean.url, 'HEAD', ['docs/', 'src/lib.rs', 'assets/'], {}, async (snap) => {
        expect(snap.sizes.size).toBe(0); // the tree fetch brought no blobs
        await completeBlobs(snap);
        expect(sorted([...snap.sizes.keys()])).toEqual(sorted(['docs/guide.md', 'docs/api.md', 'src/lib.rs'].map(oid)));
        expect(snap.sizes.has(oid('assets/logo.png'))).toBe(false);
        expect(snap.sizes.has(oid('README.md'))).toBe(false);
      });
    } finally {
      lean.cleanup();
    }
  });

  it('applies maxFiles and maxFileBytes', async () => {
    const dest = tempDir();
    try {
      const few = await fetchGitSource({ url: fx.url, paths: ['docs/', 'src/'] }, dest, { maxFiles: 2 });
      expect(few.files.map((f) => f.path)).toEqual(['docs/api.md', 'docs/guide.md']);
      expect(few.skipped.filter((s) => s.reason === 'max_files').map((s) => s.path)).toEqual(['src/lib.rs', 'src/main.rs', 'src/util.ts']);

      const small = await fetchGitSource({ url: fx.url, paths: ['src/'] }, dest, { maxFileBytes: 50 });
      for (const f of small.files) expect(f.bytes).toBeLessThanOrEqual(50);
      expect(small.files.map((f) => f.path)).toEqual(['src/lib.rs']);
      expect(small.skipped).toEqual([
        { path: 'src/main.rs', reason: 'too_large', bytes: sizeOf(KEPT_MAIN['src/main.rs']!) },
        { path: 'src/util.ts', reason: 'too_large', bytes: sizeOf(KEPT_MAIN['src/util.ts']!) },
      ]);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('paths that name a skipped file or a folder inside a skipped area bring it in (evidence rules only)', async () => {
    const dest = tempDir();
    try {
      const res = await fetchGitSource({ url: fx.url, paths: ['node_modules/', 'Cargo.lock', 'dist/', 'src/', 'assets/'] }, dest);
      const got = res.files.map((f) => f.path);
      expect(got).toEqual(expect.arrayContaining(['node_modules/left-pad/index.js', 'Cargo.lock', 'dist/app.min.js', 'src/lib.rs']));
      // A binary stays out whatever the paths say.
      expect(res.skipped.map(({ path, reason }) => ({ path, reason }))).toEqual([{ path: 'assets/logo.png', reason: 'binary' }]);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('fails with EMPTY_FETCH when nothing matches or everything is skipped', async () => {
    const dest = tempDir();
    try {
      const none = await errorOf(fetchGitSource({ url: fx.url, paths: ['nope/', 'missing.md'] }, dest));
      expect(none.code).toBe('EMPTY_FETCH');
      const skippedOnly = await errorOf(fetchGitSource({ url: fx.url, paths: ['assets/', 'outside-link'] }, dest));
      expect(skippedOnly.code).toBe('EMPTY_FETCH');
      expect(skippedOnly.details.skipped).toEqual({ binary: 1, symlink: 1 });
      expect(readdirSync(dest)).toEqual([]);
      expect(leftovers()).toEqual([]);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });
});
