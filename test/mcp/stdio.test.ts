/**
 * `tkoma-ref mcp` end to end through the built binary (`npm run build` first), with the SDK's own
 * Client over stdio: every tool with the CLI's --json shapes (approval: test/mcp/approval.test.ts),
 * errors with the CLI's codes,
 * resources, the prompt, a CLI writer at the same time, a hand edit seen by the next call.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { call, connect, type Connected } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-');
const root = join(tmp.path, 'kb');
let upstream: ReturnType<typeof makeRepo>;
let plain: Connected;

const TOOLS = ['reference_topic_search', 'reference_topic_list', 'reference_topic_create', 'reference_topic_update', 'reference_search', 'reference_get', 'reference_file_update'];

beforeAll(async () => {
  await freshRoot(root);
  upstream = makeRepo(join(tmp.path, 'gears'), {
    'README.md': '# Gears\n\nGears mesh with other gears.\n\n## Ratios\n\nThe gear ratio is teeth over teeth.\n',
    'docs/lubrication.md': '# Lubrication\n\nUse grease on the teeth every hundred hours.\n',
    'docs/old.md': '# Old gears\n\nWooden gears were common before steel.\n',
    'src/mesh.py': 'def mesh(a, b):\n    """Mesh two gears."""\n    return a.teeth / b.teeth\n',
  });
  const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Gears', '--body', 'Gears, gear trains and ratios.', '--tag', 'mechanics', '--git', upstream.url], { root });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  plain = await connect(root);
});

afterAll(async () => {
  await plain?.close();
  tmp.cleanup();
});

describe('discovery', () => {
  it('lists exactly the seven ghost tools, with schemas that teach', async () => {
    const { tools } = await plain.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(200);
      expect(t.inputSchema.type).toBe('object');
      for (const [k, p] of Object.entries(t.inputSchema.properties ?? {})) expect((p as { description?: string }).description, `${t.name}.${k}`).toBeTruthy();
    }
    const create = tools.find((t) => t.name === 'reference_topic_create')!;
    expect(Object.keys(create.inputSchema.properties!)).toEqual(expect.arrayContaining(['title', 'body', 'sources', 'tags', 'max_age_days', 'trust_score', 'approval_token']));
    expect(tools.find((t) => t.name === 'reference_search')!.annotations?.readOnlyHint).toBe(true);
    expect(tools.some((t) => /refresh|delete/.test(t.name))).toBe(false);
  });

  it('says in three lines what it is for', () => {
    const lines = plain.client.getInstructions()!.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.join(' ')).toMatch(/reference_topic_search/);
  });
});

describe('read tools answer with the CLI --json shapes', () => {
  it('reference_topic_search', async () => {
    const r = await call(plain, 'reference_topic_search', { query: 'gear ratios' });
    expect(r.isError).toBe(false);
    const c = await cli(['topic', 'search', 'gear ratios', '--json', '--no-server'], { root });
    expect(r.data).toEqual({ topics: c.json });
    expect(r.data.topics[0].topic_id).toBe('topic-gears');
    expect(r.text).toContain('topic-gears');
  });

  it('reference_topic_list', async () => {
    const r = await call(plain, 'reference_topic_list', {});
    const c = await cli(['topic', 'list', '--json'], { root });
    expect(r.data).toEqual({ topics: c.json });
    expect(r.data.topics.map((t: { topic_id: string }) => t.topic_id)).toContain('topic-gears');
  });

  it('reference_search', async () => {
    const r = await call(plain, 'reference_search', { topic: 'topic-gears', question: 'grease teeth' });
    expect(r.isError).toBe(false);
    const c = await cli(['search', 'grease teeth', '--topic', 'topic-gears', '--json', '--no-server'], { root });
    expect(r.data).toEqual(c.json);
    expect(r.data.results[0].path).toBe('docs/lubrication.md');
    expect(r.text).toContain('Gears, gear trains and ratios.'); // the topic body is the context
    expect(r.text).toContain('topic-gears/docs/lubrication.md');
  });

  it('reference_get by note id and by topic + path, with a line range', async () => {
    const byId = await call(plain, 'reference_get', { note_id: 'topic-gears/README.md#L3-L3' });
    const c = await cli(['get', '--id', 'topic-gears/README.md#L3-L3', '--json'], { root });
    expect(byId.data).toEqual(c.json);
    expect(byId.data.content).toBe('Gears mesh with other gears.');
    const byPath = await call(plain, 'reference_get', { topic: 'topic-gears', path: 'src/mesh.py', max_chars: 10 });
    expect(byPath.data.truncated).toBe(true);
    expect(byPath.data.content).toBe('def mesh(a');
  });
});

describe('errors are tool results with the CLI codes', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['reference_search', { topic: 'no-such-topic', question: 'x' }, 'TOPIC_NOT_FOUND'],
    ['reference_get', { topic: 'topic-gears', path: 'nope.md' }, 'FILE_NOT_FOUND'],
    ['reference_topic_update', { topic_id: 'topic-gears', status: 'gone' }, 'INVALID_ENUM'],
    ['reference_topic_update', { topic_id: 'topic-gears', colour: 'red' }, 'INVALID_INPUT'],
    ['reference_search', {}, 'INVALID_INPUT'],
    ['reference_file_update', { topic: 'topic-gears', path: 'docs/old.md', status: 'obsolete' }, 'INVALID_INPUT'], // no reason
    ['reference_topic_create', { title: 'X', body: 'x', sources: [{ type: 'git', url: 'ftp://example.com/x' }] }, 'UNSUPPORTED_SCHEME'],
    ['reference_topic_create', { title: 'Gears', body: 'x', sources: [{ type: 'git', url: 'file:///nowhere' }] }, 'TOPIC_EXISTS'],
    ['reference_topic_refresh', { topic_id: 'topic-gears' }, 'INVALID_INPUT'],
  ];
  for (const [tool, args, code] of cases) {
    it(`${tool} ${JSON.stringify(args)} → ${code}`, async () => {
      const r = await call(plain, tool, args);
      expect(r.isError).toBe(true);
      expect(r.data.error.code).toBe(code);
      expect(r.text).toMatch(new RegExp(`^ERROR ${code}: `));
    });
  }
});

describe('curating', () => {
  it('reference_topic_update and reference_file_update commit with the CLI shapes', async () => {
    const u = await call(plain, 'reference_topic_update', { topic_id: 'topic-gears', max_age_days: 60, tags: ['mechanics', 'gears'] });
    expect(u.isError, u.text).toBe(false);
    expect(u.data).toMatchObject({ topic_id: 'topic-gears', changed: ['max_age_days', 'tags'], max_age_days: 60, tags: ['mechanics', 'gears'] });
    expect(u.data.commit).toMatch(/^[0-9a-f]{40}$/);

    const f = await call(plain, 'reference_file_update', { topic: 'topic-gears', path: 'docs/old.md', status: 'obsolete', reason: 'wooden gears are history' });
    expect(f.isError, f.text).toBe(false);
    expect(f.data).toMatchObject({ topic_id: 'topic-gears', path: 'docs/old.md', status: 'obsolete' });
    const s = await call(plain, 'reference_search', { topic: 'topic-gears', question: 'wooden gears steel' });
    expect(s.data.results.map((h: { path: string }) => h.path)).not.toContain('docs/old.md');
  });

  it('a CLI writer at the same time: both changes land, each in its own commit', async () => {
    const [mcp, shell] = await Promise.all([
      call(plain, 'reference_topic_update', { topic_id: 'topic-gears', trust_score: 9 }),
      cli(['topic', 'update', 'topic-gears', '--title', 'Gears and ratios', '--json'], { root }),
    ]);
    expect(mcp.isError, mcp.text).toBe(false);
    expect(shell.code, shell.stdout).toBe(0);
    const show = await cli(['topic', 'show', 'topic-gears', '--json'], { root });
    expect(show.json).toMatchObject({ title: 'Gears and ratios', trust_score: 9, max_age_days: 60 });
    expect(git(root, 'status', '--porcelain')).toBe('');
    const subjects = git(root, 'log', '-2', '--format=%s').split('\n');
    expect(subjects.every((s) => s.includes('topic-gears'))).toBe(true);
  });

  it('a hand edit is seen by the next call', async () => {
    const file = join(root, 'references', 'topic-gears', 'docs', 'lubrication.md');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n## Synthetic oil\n\nXylophonic synthetic oil suits fast gearboxes.\n');
    // Asked until the server's watcher has caught up: progress, not a 5 s clock a busy machine
    // may miss. A server that never sees the edit hangs here until the test's hang net.
    let found = false;
    while (!found) {
      const r = await call(plain, 'reference_search', { topic: 'topic-gears', question: 'xylophonic synthetic oil' });
      found = r.data.results.some((h: { snippet: string }) => h.snippet.includes('Xylophonic'));
      if (!found) await new Promise((res) => setTimeout(res, 100));
    }
    const got = await call(plain, 'reference_get', { topic: 'topic-gears', path: 'docs/lubrication.md' });
    expect(got.data.content).toContain('Xylophonic');
  });
});

describe('resources and prompts', () => {
  it('the recent block, each topic note, and files through the template', async () => {
    const recent = await plain.client.readResource({ uri: 'tkoma-ref://topics/recent' });
    const c = await cli(['topic', 'recent', '--json'], { root });
    expect((recent.contents[0] as { text: string }).text).toBe(c.json.markdown);
    expect((recent.contents[0] as { text: string }).text).toMatch(/^## Available Reference Topics/);

    const { resources } = await plain.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['tkoma-ref://topics/recent', 'tkoma-ref://topics/topic-gears']));
    const note = await plain.client.readResource({ uri: 'tkoma-ref://topics/topic-gears' });
    expect((note.contents[0] as { text: string }).text).toMatch(/^\+\+\+\nid = "topic-gears"/);

    const { resourceTemplates } = await plain.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('tkoma-ref://files/{topic_id}/{+path}');
    const file = await plain.client.readResource({ uri: 'tkoma-ref://files/topic-gears/src/mesh.py' });
    expect((file.contents[0] as { text: string }).text).toContain('def mesh(a, b):');

    await expect(plain.client.readResource({ uri: 'tkoma-ref://files/topic-gears/missing.md' })).rejects.toThrow(/FILE_NOT_FOUND/);
  });

  it('the reference-researcher skill is a prompt', async () => {
    const { prompts } = await plain.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['reference-researcher']);
    const p = await plain.client.getPrompt({ name: 'reference-researcher', arguments: { task: 'write a gearbox simulator' } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('name: reference-researcher');
    expect(text).toContain('Current task: write a gearbox simulator');
  });
});
