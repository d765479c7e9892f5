/**
 * Paths from outside can never address anything outside the topic folder: property tests over
 * the pure checks, and real symbolic links planted in a topic folder for the file operations.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { forgetTopicIndex } from '../../src/lib/index/service.js';
import { assertNoLinks, isInside, readInside, removeInside, unsafePathReason } from '../../src/lib/safety/paths.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { normalizePaths } from '../../src/lib/sources/git-url.js';
import { urlSlug } from '../../src/lib/sources/web-url.js';
import { isValidTopicId, topicIdFromTitle } from '../../src/lib/store/model.js';
import { readManifest, resolveTopicPath, topicDir } from '../../src/lib/store/topic-files.js';
import { getReference } from '../../src/lib/topics/read.js';
import { validateTopicIdField } from '../../src/lib/topics/request.js';
import { tmpDir } from '../helpers/fixtures.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

/** Path pieces an attacker would try: traversal, separators, NUL, case and look-alike tricks. */
const hostileSegment = fc.oneof(
  fc.constantFrom('..', '.', '', '...', 'DOCS', 'docs', '%2e%2e', '..\\..', '\\', 'C:', '/', '//', '\u0000', '\u202E', '\u200B', '．．', '‥', '⁄', '∕', '／', '.git', '.GIT', 'topic.md', '.tkoma-files.jsonl', '-rf', ' ', '~', '$HOME', 'a'.repeat(300)),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const hostilePath = fc.array(hostileSegment, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(fc.sample(fc.constantFrom('/', '\\', '//'), 1)[0]!));

function typed(fn: () => unknown): 'ok' | string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (!(err instanceof TkomaError)) throw err; // an untyped error is a failure of the property
    return err.code;
  }
}

describe('pure path checks (properties)', () => {
  const dir = resolve('/srv/kb/references/topic-x');

  it('resolveTopicPath never resolves outside the topic folder', () => {
    fc.assert(
      fc.property(fc.oneof(hostilePath, fc.string()), (p) => {
        let out: { rel: string; abs: string } | undefined;
        const code = typed(() => (out = resolveTopicPath(dir, p)));
        if (code === 'ok') {
          expect(isInside(dir, out!.abs)).toBe(true);
          expect(out!.rel.split('/')).not.toContain('..');
          expect(out!.rel.toLowerCase()).not.toBe('.tkoma-files.jsonl');
        } else expect(code).toBe('INVALID_PATH');
      }),
      { numRuns: 2000 },
    );
  });

  it('the git path normaliser only yields relative paths without traversal', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(hostilePath, fc.string()), { maxLength: 4 }), (paths) => {
        let out: string[] = [];
        const code = typed(() => (out = normalizePaths(paths)));
        if (code !== 'ok') {
          expect(code).toBe('INVALID_PATH');
          return;
        }
        for (const p of out) {
          expect(p.startsWith('/') || p.startsWith('-')).toBe(false);
          expect(p.split('/')).not.toContain('..');
          expect(p).not.toMatch(/[\\\u0000]/);
          expect(isInside(dir, resolve(dir, p))).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('a tree path is written only when it is a plain relative name', () => {
    fc.assert(
      fc.property(fc.oneof(hostilePath, fc.string()), (p) => {
        if (unsafePathReason(p) !== null) return;
        const abs = resolve(dir, ...p.split('/'));
        expect(isInside(dir, abs)).toBe(true);
        expect(abs.slice(dir.length + 1).split(sep).join('/')).toBe(p); // no aliasing: the file is exactly that path
      }),
      { numRuns: 2000 },
    );
    for (const bad of ['', '/etc/passwd', 'a/../b', './a', 'a//b', 'a\\b', 'a\nb', 'a\u202Eb', 'x/\u200Bx', 'a/', 'a'.repeat(256)]) {
      expect(unsafePathReason(bad)).not.toBeNull();
    }
  });

  it('web slugs and topic ids are single safe names', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), hostilePath), (u) => {
        const slug = urlSlug(u);
        expect(slug).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
        expect(slug).not.toContain('..');
        expect(slug.length).toBeLessThanOrEqual(100);
        expect(unsafePathReason(`${slug}.md`)).toBeNull();
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), hostilePath), (title) => {
        const id = topicIdFromTitle(title);
        expect(isValidTopicId(id)).toBe(true);
        expect(isInside('/kb/references', topicDir('/kb', id))).toBe(true);
        const code = typed(() => validateTopicIdField(title));
        if (code === 'ok') expect(isInside('/kb/references', topicDir('/kb', title))).toBe(true);
        else expect(code).toBe('INVALID_INPUT');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('file operations never go through a link', () => {
  let tmp: ReturnType<typeof tmpDir>;
  let dir: string;
  let outside: string;
  beforeEach(() => {
    tmp = tmpDir('tkoma-safety-paths-');
    dir = join(tmp.path, 'topic');
    outside = join(tmp.path, 'outside');
    mkdirSync(join(dir, 'docs'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret'), 'secret\n');
    writeFileSync(join(dir, 'docs', 'a.md'), '# A\n');
    symlinkSync(outside, join(dir, 'linked'));
    symlinkSync(join(outside, 'secret'), join(dir, 'docs', 'secret.md'));
  });
  afterEach(() => tmp.cleanup());

  const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e) => (e instanceof TkomaError ? e.code : `untyped: ${e}`));

  it('reads only regular files reached through real folders', async () => {
    expect((await readInside(dir, 'docs/a.md')).toString()).toBe('# A\n');
    expect(await code(readInside(dir, 'linked/secret'))).toBe('INVALID_PATH');
    expect(await code(readInside(dir, 'docs/secret.md'))).toBe('INVALID_PATH');
    expect(await code(readInside(dir, '../outside/secret'))).toBe('INVALID_PATH');
    expect(await code(readInside(dir, 'docs/none.md'))).toBe('FILE_NOT_FOUND');
    expect(await code(assertNoLinks(dir, 'linked', { last: 'dir' }))).toBe('INVALID_PATH');
  });

  it('removes only inside, and only files or links (never their targets)', async () => {
    await removeInside(dir, 'linked/secret');
    expect(existsSync(join(outside, 'secret'))).toBe(true);
    expect(await code(removeInside(dir, '../outside/secret'))).toBe('INVALID_PATH');
    await removeInside(dir, 'docs/secret.md');
    expect(existsSync(join(dir, 'docs', 'secret.md'))).toBe(false);
    expect(existsSync(join(outside, 'secret'))).toBe(true);
  });
});

describe('get and the manifest with planted links and hostile records', () => {
  let root: string;
  let cleanup: () => void;
  beforeEach(() => ({ root, cleanup } = makeTmpRoot()));
  afterEach(() => cleanup());

  it('get refuses a folder link inside the topic and never reads through it', async () => {
    const dir = await writeTopic(root, { id: 'topic-t', title: 'T', body: '# T\n', files: { 'docs/a.md': '# A\n' } });
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.md'), 'the secret\n');
    symlinkSync(outside, join(dir, 'ext'));
    symlinkSync(join(outside, 'secret.md'), join(dir, 'docs', 'link.md'));
    expect((await getReference(root, { topic: 'topic-t', path: 'docs/a.md' })).content).toBe('# A');
    for (const [path, want] of [
      ['ext/secret.md', 'INVALID_PATH'],
      ['docs/link.md', 'INVALID_PATH'],
      ['../../outside/secret.md', 'INVALID_PATH'],
      ['DOCS/../../..', 'INVALID_PATH'],
      ['.TKOMA-FILES.JSONL', 'INVALID_PATH'],
      ['docs\\a.md', 'INVALID_PATH'],
      ['docs/a.md\u0000', 'INVALID_PATH'],
    ] as const) {
      const err = await getReference(root, { topic: 'topic-t', path }).catch((e) => e);
      expect(err, path).toBeInstanceOf(TkomaError);
      expect((err as TkomaError).code, path).toBe(want);
      expect(JSON.stringify(err)).not.toContain('the secret');
    }
  });

  it('indexing never follows a link: linked files and folders stay out of search', async () => {
    const dir = await writeTopic(root, { id: 'topic-l', title: 'L', body: '# L\n', files: { 'docs/a.md': '# A\n\nordinary widget text\n' } });
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.md'), '# Secret\n\nzanzibarquux credentials\n');
    symlinkSync(outside, join(dir, 'ext'));
    symlinkSync(join(outside, 'secret.md'), join(dir, 'docs', 'link.md'));
    try {
      const res = await searchReferences(root, { question: 'zanzibarquux', topic: 'topic-l', embedder: null });
      expect(res.results).toEqual([]);
      const control = await searchReferences(root, { question: 'widget', topic: 'topic-l', embedder: null });
      expect(control.results.map((h) => h.path)).toEqual(['docs/a.md']);
    } finally {
      forgetTopicIndex(root);
    }
  });

  it('drops manifest records whose path could leave the folder', async () => {
    const dir = await writeTopic(root, { id: 'topic-m', title: 'M', body: '# M\n', files: { 'a.md': 'a\n' } });
    const line = (path: string) => JSON.stringify({ path, source_url: 'x', role: 'docs', bytes: 1, sha256: 'x', fetched_at: 'x' });
    writeFileSync(join(dir, '.tkoma-files.jsonl'), [line('a.md'), line('../../victim'), line('/etc/passwd'), line('a/../../b'), 'not json', '42', 'null'].join('\n'));
    expect((await readManifest(dir)).map((r) => r.path)).toEqual(['a.md']);
  });
});
