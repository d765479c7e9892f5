import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultBranchOf,
  githubMetadata,
  lsRemotePatterns,
  parseGithubRepoJson,
  parseLsRemote,
  resolveRefIn,
} from '../../src/lib/sources/git-remote.js';
import { summariseGitStderr } from '../../src/lib/sources/git-run.js';
import { batches, classify } from '../../src/lib/sources/git-snapshot.js';
import { parseCatFileBatch, parseLsTree, pathMatches, unmatchedPaths } from '../../src/lib/sources/git-tree.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(40);

const LISTING = parseLsRemote(
  [
    'ref: refs/heads/main\tHEAD',
    `${A}\tHEAD`,
    `${A}\trefs/heads/main`,
    `${B}\trefs/heads/v2`,
    `${C}\trefs/tags/v1.0`,
    `${D}\trefs/tags/v1.0^{}`,
    `${C}\trefs/tags/v2`,
    '',
  ].join('\n'),
);

describe('ls-remote parsing and ref resolution', () => {
  it('reads the default branch from the HEAD symref', () => {
    expect(defaultBranchOf(LISTING)).toBe('main');
    expect(defaultBranchOf(parseLsRemote(`${A}\tHEAD\n`))).toBeNull();
  });

  it('resolves no ref to the default branch', () => {
    expect(resolveRefIn(LISTING)).toEqual({ ref: 'main', fetchTarget: 'HEAD', commit: A });
  });

  it('peels annotated tags to their commit', () => {
    expect(resolveRefIn(LISTING, 'v1.0')).toEqual({ ref: 'v1.0', fetchTarget: 'refs/tags/v1.0', commit: D });
    expect(resolveRefIn(LISTING, 'refs/tags/v1.0')?.commit).toBe(D);
  });

  it('prefers a branch over a tag of the same name', () => {
    expect(resolveRefIn(LISTING, 'v2')).toEqual({ ref: 'v2', fetchTarget: 'refs/heads/v2', commit: B });
  });

  it('takes a full commit id as it is, and knows when a ref is missing', () => {
    expect(resolveRefIn(LISTING, D.toUpperCase())).toEqual({ ref: D.toUpperCase(), fetchTarget: D, commit: D });
    expect(resolveRefIn(LISTING, 'nope')).toBeNull();
    expect(resolveRefIn(parseLsRemote(''))).toBeNull();
  });

  it('asks the remote only for the refs it needs', () => {
    expect(lsRemotePatterns()).toEqual(['HEAD']);
    expect(lsRemotePatterns(A)).toEqual(['HEAD']);
    expect(lsRemotePatterns('dev')).toEqual(['HEAD', 'refs/heads/dev', 'refs/tags/dev', 'refs/tags/dev^{}']);
    expect(lsRemotePatterns('refs/heads/x')).toEqual(['HEAD', 'refs/heads/x', 'refs/heads/x^{}']);
  });
});

describe('ls-tree parsing and path selection', () => {
  it('parses -z records, tabs and spaces in names included', () => {
    const out = `100644 blob ${A}\tdocs/a b.md\x00120000 blob ${B}\tlink\x00160000 commit ${C}\tsub\x00`;
    expect(parseLsTree(out)).toEqual([
      { mode: '100644', type: 'blob', oid: A, path: 'docs/a b.md' },
      { mode: '120000', type: 'blob', oid: B, path: 'link' },
      { mode: '160000', type: 'commit', oid: C, path: 'sub' },
    ]);
  });

  it('parses the bytes git printed as the text they decode to, non-UTF-8 names included', () => {
    const out = Buffer.concat([
      Buffer.from(`100644 blob ${A}\tdocs/\u00e9t\u00e9 \u{1f600}.md\x00`),
      Buffer.from(`100755 blob ${B}\tbad-`),
      Buffer.from([0xc3, 0x09, 0xff]),
      Buffer.from(`\x00040000 tree ${C}\tdocs\x00`),
    ]);
    expect(parseLsTree(out)).toEqual([
      { mode: '100644', type: 'blob', oid: A, path: 'docs/\u00e9t\u00e9 \u{1f600}.md' },
      { mode: '100755', type: 'blob', oid: B, path: 'bad-\ufffd\t\ufffd' },
      { mode: '040000', type: 'tree', oid: C, path: 'docs' },
    ]);
    // The whole text decoded first (as before) gives the same paths.
    const before = out
      .toString('utf8')
      .split('\0')
      .filter((r) => r !== '')
      .map((r) => r.slice(r.indexOf('\t') + 1));
    expect(parseLsTree(out).map((e) => e.path)).toEqual(before);
  });

  it('matches folders, files, and names that are either', () => {
    expect(pathMatches('docs/a.md', 'docs/')).toBe(true);
    expect(pathMatches('docs', 'docs/')).toBe(false);
    expect(pathMatches('docsx/a.md', 'docs/')).toBe(false);
    expect(pathMatches('docs/a.md', 'docs')).toBe(true);
    expect(pathMatches('docs', 'docs')).toBe(true);
    expect(pathMatches('docs.md', 'docs')).toBe(false);
    expect(unmatchedPaths(['docs/a.md', 'README.md'], ['docs/', 'README.md', 'src/', 'READ'])).toEqual(['src/', 'READ']);
  });
});

describe('tree classification and blob batches', () => {
  const entries = parseLsTree(
    [
      `100644 blob ${A}\tdocs/b.md`,
      `100644 blob ${B}\tdocs/a.md`,
      `120000 blob ${C}\tdocs/link.md`,
      `100644 blob ${D}\tdocs/node_modules/x.js`,
      `160000 commit ${A}\tdocs/sub`,
      `100644 blob ${B}\tsrc/main.rs`,
      '',
    ].join('\x00'),
  );

  it('sorts candidates and names why the others are left out', () => {
    const c = classify(entries, ['docs/', 'nope']);
    expect(c.candidates.map((e) => e.path)).toEqual(['docs/a.md', 'docs/b.md']);
    expect(c.skipped).toEqual([
      { path: 'docs/link.md', reason: 'symlink' },
      { path: 'docs/node_modules/x.js', reason: 'node_modules' },
      { path: 'docs/sub', reason: 'submodule' },
    ]);
    expect(c.missing).toEqual(['nope']);
    expect(classify(entries, undefined).candidates).toHaveLength(3);
  });

  it('parses cat-file --batch output, binary content and missing objects included', () => {
    const body1 = Buffer.from('hello\nworld');
    const body2 = Buffer.from([0, 1, 2, 10, 10]);
    const out = Buffer.concat([
      Buffer.from(`${A} blob ${body1.length}\n`),
      body1,
      Buffer.from('\n'),
      Buffer.from(`${B} missing\n`),
      Buffer.from(`${C} blob ${body2.length}\n`),
      body2,
      Buffer.from('\n'),
    ]);
    const all = parseCatFileBatch(out);
    expect([...all.keys()]).toEqual([A, C]);
    expect(all.get(A)!.toString()).toBe('hello\nworld');
    expect([...all.get(C)!]).toEqual([0, 1, 2, 10, 10]);
    expect(parseCatFileBatch(out, 3).get(A)!.toString()).toBe('hel');
  });

  it('batches by count and by bytes, never leaving an item out', () => {
    expect(batches([1, 2, 3, 4, 5], () => 1, 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([5, 5, 20, 1], (n) => n, 100, 10)).toEqual([[5, 5], [20], [1]]);
    expect(batches([], () => 1)).toEqual([]);
  });
});

describe('summariseGitStderr'
, () => {
  it('keeps the fatal lines, drops progress, hides credentials', () => {
    const stderr = [
      'warning: redirecting to https://example.com/x.git/',
      "remote: Repository not found.",
      "fatal: repository 'https://me:tok3n@example.com/x.git/' not found",
    ].join('\n');
    const s = summariseGitStderr(stderr);
    expect(s).toContain('Repository not found');
    expect(s).toContain('https://***@example.com/x.git/');
    expect(s).not.toContain('tok3n');
    expect(s).not.toContain('redirecting');
    expect(summariseGitStderr('x'.repeat(1000)).length).toBeLessThanOrEqual(400);
  });
});

describe('GitHub metadata', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/repos/DioxusLabs/dioxus') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ size: 100_352, description: ' Fullstack app framework ', default_branch: 'main' }));
      } else {
        res.statusCode = 404;
        res.end('{"message":"Not Found"}');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads size and description from the REST API', async () => {
    const meta = await githubMetadata('DioxusLabs', 'dioxus', { apiBase: base, useGh: false });
    expect(meta).toEqual({ size_bytes: 100_352 * 1024, description: 'Fullstack app framework', default_branch: 'main' });
    expect(seen).toContain('/repos/DioxusLabs/dioxus');
  });

  it('answers null for unknown repositories and unreachable hosts', async () => {
    expect(await githubMetadata('nobody', 'nothing', { apiBase: base, useGh: false })).toBeNull();
    expect(await githubMetadata('a', 'b', { apiBase: 'http://127.0.0.1:1', useGh: false, timeoutMs: 2000 })).toBeNull();
  });

  it('ignores malformed answers', () => {
    expect(parseGithubRepoJson(null)).toBeNull();
    expect(parseGithubRepoJson({ size: 'big', description: '' })).toBeNull();
    expect(parseGithubRepoJson({ size: 2 })).toEqual({ size_bytes: 2048 });
  });
});
