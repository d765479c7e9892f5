/**
 * Bad input through the built binary: every case answers a stable code (JSON under --json),
 * exits non-zero, prints no stack trace, and leaves the knowledge root and its history untouched.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

describe('bad input is refused cleanly', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  let repoUrl = '';
  let commits = '';

  beforeAll(async () => {
    await freshRoot(root);
    repoUrl = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Hello\n\nWorld.\n' }).url;
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Hello Topic', '--git', repoUrl], { root });
    expect(r.code).toBe(0);
    commits = git(root, 'rev-list', '--count', 'HEAD');
  });
  afterAll(() => tmp.cleanup());

  const cases: { name: string; args: string[]; code: string; exit: number; input?: string }[] = [
    { name: 'unknown topic (get)', args: ['get', '--topic', 'topic-nope', '--path', 'README.md'], code: 'TOPIC_NOT_FOUND', exit: 3 },
    { name: 'unknown topic (update)', args: ['topic', 'update', 'topic-nope', '--status', 'obsolete'], code: 'TOPIC_NOT_FOUND', exit: 3 },
    { name: 'unknown topic (search)', args: ['search', 'x', '--topic', 'topic-nope'], code: 'TOPIC_NOT_FOUND', exit: 3 },
    { name: 'unknown file', args: ['get', '--topic', 'topic-hello-topic', '--path', 'nope.md'], code: 'FILE_NOT_FOUND', exit: 3 },
    { name: 'path outside the topic', args: ['get', '--topic', 'topic-hello-topic', '--path', '../../tkoma-ref.toml'], code: 'INVALID_PATH', exit: 2 },
    { name: 'absolute path', args: ['get', '--topic', 'topic-hello-topic', '--path', '/etc/passwd'], code: 'INVALID_PATH', exit: 2 },
    { name: 'topic id with ..', args: ['get', '--topic', '..', '--path', 'x'], code: 'INVALID_INPUT', exit: 2 },
    { name: 'file status outside the topic', args: ['file', 'status', '--topic', 'topic-hello-topic', '--path', '../x', '--status', 'obsolete', '--reason', 'r'], code: 'INVALID_PATH', exit: 2 },
    { name: 'invalid topic status', args: ['topic', 'update', 'topic-hello-topic', '--status', 'archived'], code: 'INVALID_ENUM', exit: 2 },
    { name: 'ext:: git URL', args: ['topic', 'create', '--title', 'X', '--git', 'ext::sh -c touch% /tmp/pwned'], code: 'UNSUPPORTED_SCHEME', exit: 2 },
    { name: 'option-looking git URL', args: ['topic', 'create', '--title', 'X', '--git=--upload-pack=touch /tmp/pwned'], code: 'INVALID_URL', exit: 2 },
    { name: 'file:// web page', args: ['topic', 'create', '--title', 'X', '--web', 'file:///etc/passwd'], code: 'UNSUPPORTED_SCHEME', exit: 2 },
    { name: 'option-looking ref', args: ['topic', 'create', '--title', 'X', '--git', 'file:///tmp/x', '--ref=--output=/tmp/x'], code: 'INVALID_REF', exit: 2 },
    { name: 'path with ..', args: ['topic', 'create', '--title', 'X', '--git', 'file:///tmp/x', '--path', '../etc'], code: 'INVALID_PATH', exit: 2 },
    { name: 'no sources', args: ['topic', 'create', '--title', 'X'], code: 'INVALID_INPUT', exit: 2 },
    { name: 'malformed JSON input', args: ['topic', 'create', '--input', '{"title":'], code: 'INVALID_JSON', exit: 2 },
    { name: 'JSON input from stdin, wrong type', args: ['topic', 'create', '--input', '-'], code: 'INVALID_INPUT', exit: 2, input: '{"title": 5, "sources": []}' },
    { name: 'unknown flag', args: ['topic', 'list', '--bogus'], code: 'INVALID_INPUT', exit: 2 },
    { name: 'bad token', args: ['topic', 'create', '--title', 'Y', '--git', 'file:///tmp/x', '--approve', 'v1.1.abc'], code: 'INVALID_TOKEN', exit: 2 },
    { name: 'delete without --yes', args: ['delete', 'topic-hello-topic'], code: 'CONFIRMATION_REQUIRED', exit: 2 },
    { name: 'existing topic', args: ['topic', 'create', '--yes', '--title', 'Hello Topic', '--git', 'file:///tmp/x'], code: 'TOPIC_EXISTS', exit: 6 },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.code}`, async () => {
      const r = await cli([...c.args, '--json'], { root, input: c.input });
      expect(r.json?.error?.code, r.stdout + r.stderr).toBe(c.code);
      expect(typeof r.json.error.message).toBe('string');
      expect(r.code).toBe(c.exit);
      expect(r.stdout.trim().split('\n')).toHaveLength(1); // exactly one JSON document
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(git(root, 'rev-list', '--count', 'HEAD')).toBe(commits);
      expect(git(root, 'status', '--porcelain')).toBe('');
    });
  }

  it('human errors are one readable line on stderr, not JSON and not a stack trace', async () => {
    const r = await cli(['get', '--topic', 'topic-nope', '--path', 'x'], { root });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('Error [TOPIC_NOT_FOUND]: no topic "topic-nope" (`tkoma-ref topic list` shows every topic)');
  });

  it('an unreachable source fails with SOURCE_UNREACHABLE and writes nothing', async () => {
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Gone', '--git', `file://${tmp.path}/does-not-exist`], { root });
    expect(r.json.error.code).toBe('SOURCE_UNREACHABLE');
    expect(r.code).toBe(5);
    expect(git(root, 'rev-list', '--count', 'HEAD')).toBe(commits);
  });

  it('paths that match nothing give EMPTY_FETCH and write nothing', async () => {
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Empty', '--git', repoUrl, '--path', 'nothing-here/'], { root });
    expect(['EMPTY_FETCH', 'SOURCE_UNREACHABLE']).toContain(r.json.error.code);
    expect(r.code).toBe(5);
    expect(git(root, 'rev-list', '--count', 'HEAD')).toBe(commits);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('a command on a folder that is not a root says so', async () => {
    const r = await cli(['topic', 'list', '--json'], { root: join(tmp.path, 'nowhere') });
    expect(r.json.error.code).toBe('ROOT_NOT_INITIALISED');
    expect(r.code).toBe(6);
  });

  it('a hand-broken topic.md is reported with file and line; other topics keep working', async () => {
    const dir = join(root, 'references', 'topic-broken');
    mkdirSync(dir, { recursive: true });
    const good = readFileSync(join(root, 'references/topic-hello-topic/topic.md'), 'utf8');
    writeFileSync(join(dir, 'topic.md'), good.replace('id = "topic-hello-topic"', 'id = "topic-broken"').replace(/trust_score = \d+/, 'trust_score = "high"'));
    const show = await cli(['topic', 'show', 'topic-broken', '--json'], { root });
    expect(show.json.error).toMatchObject({ code: 'MALFORMED_TOPIC', file: 'references/topic-broken/topic.md', line: 6 });
    expect(show.code).toBe(7);
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.code).toBe(0);
    expect(list.json.map((t: { topic_id: string; status: string }) => `${t.topic_id} ${t.status}`)).toEqual(['topic-hello-topic active', 'topic-broken broken']);
    expect(list.json[1].error).toMatchObject({ code: 'MALFORMED_TOPIC', file: 'references/topic-broken/topic.md', line: 6 });
    expect(list.stderr).toContain('references/topic-broken/topic.md:6');
    const search = await cli(['search', 'world', '--all', '--json'], { root });
    expect(search.code).toBe(0);
    expect(search.json.results.length).toBeGreaterThan(0);
  });
});
