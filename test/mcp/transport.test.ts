/**
 * The stdio transport against a hand-written client (issue 25, item 2): a line past the size limit
 * is answered with a JSON-RPC error and a line on stderr, and the server stays up; a 9 MB line is
 * framed and answered; every malformed message gets the JSON-RPC error the spec gives it (never
 * silence that leaves the client waiting); question, query, body and reason are bounded with
 * INVALID_INPUT naming the field.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { RawClient } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-transport-');
const root = join(tmp.path, 'kb');
let c: RawClient;

beforeAll(async () => {
  await freshRoot(root);
  const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Levers\n\nA lever multiplies force around a fulcrum.\n' });
  const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Levers', '--git', repo.url], { root });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  c = new RawClient(root);
  await c.initialize();
});

afterAll(async () => {
  c?.child.stdin.end();
  await c?.exited;
  tmp.cleanup();
});

const call = (name: string, args: unknown): Promise<any> => c.request('tools/call', { name, arguments: args });

describe('malformed JSON-RPC is answered, never left waiting', () => {
  const cases: [string, string, number, string | number | null][] = [
    ['not JSON', '{"jsonrpc":"2.0","id":901,"method":', -32700, null],
    ['a batch array', '[{"jsonrpc":"2.0","id":902,"method":"tools/list"}]', -32600, null],
    ['"jsonrpc":"1.0"', '{"jsonrpc":"1.0","id":903,"method":"tools/list"}', -32600, 903],
    ['no jsonrpc', '{"id":904,"method":"tools/list"}', -32600, 904],
    ['a numeric method', '{"jsonrpc":"2.0","id":905,"method":42}', -32600, 905],
    ['params as a string', '{"jsonrpc":"2.0","id":906,"method":"tools/list","params":"all"}', -32600, 906],
    ['an id that is an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', -32600, null],
    ['a bare number', '7', -32600, null],
  ];
  for (const [what, line, code, id] of cases) {
    it(`${what}: error ${code} with id ${JSON.stringify(id)}`, async () => {
      const before = c.messages.length;
      c.writeLine(line);
      const answer = await c.until(() => c.messages.slice(before).find((m) => m.error), `the answer to ${what}`);
      expect(answer.error.code).toBe(code);
      expect(answer.id).toBe(id);
      expect(answer.jsonrpc).toBe('2.0');
      // Still serving.
      expect((await c.request('tools/list')).result.tools).toHaveLength(7);
    });
  }
});

describe('size of a line', () => {
  it('a line past 10 MiB gets -32600 with its id and a line on stderr; the server stays up', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'too-big', method: 'tools/call', params: { name: 'reference_search', arguments: { question: 'q'.repeat(11 * 1024 * 1024) } } });
    c.writeLine(big);
    const answer = await c.waitFor((m) => m.id === 'too-big', 'the answer to the oversized line');
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toMatch(/bytes per line/);
    await c.until(() => /refused a message of \d+ bytes/.test(c.stderr), 'the stderr line');
    const search = await call('reference_search', { topic: 'topic-levers', question: 'fulcrum' });
    expect(search.result.structuredContent.results[0].path).toBe('README.md');
    expect(c.child.exitCode).toBeNull();
  });

  it('a 9 MB line is framed and answered (INVALID_INPUT naming the field), and the next call too', async () => {
    const id = c.send('tools/call', { name: 'reference_search', arguments: { topic: 'topic-levers', question: 'w '.repeat(4_500_000) } });
    const next = c.send('tools/list');
    const answer = await c.waitFor((m) => m.id === id, 'the answer to the 9 MB call');
    expect(answer.result.isError).toBe(true);
    expect(answer.result.structuredContent.error).toMatchObject({ code: 'INVALID_INPUT', field: 'question' });
    expect((await c.waitFor((m) => m.id === next, 'tools/list after it')).result.tools).toHaveLength(7);
  });
});

describe('bounded text fields name the field', () => {
  const source = [{ type: 'git', url: 'file:///nowhere' }];
  const cases: [string, Record<string, unknown>, string][] = [
    ['reference_search', { topic: 'topic-levers', question: 'x'.repeat(4001) }, 'question'],
    ['reference_topic_search', { query: 'x'.repeat(4001) }, 'query'],
    ['reference_topic_create', { title: 'Big', body: 'x'.repeat(100_001), sources: source }, 'body'],
    ['reference_topic_update', { topic_id: 'topic-levers', body: 'x'.repeat(100_001) }, 'body'],
    ['reference_file_update', { topic: 'topic-levers', path: 'README.md', status: 'problematic', reason: 'x'.repeat(2001) }, 'reason'],
  ];
  for (const [tool, args, field] of cases) {
    it(`${tool}: ${field} past its bound`, async () => {
      const r = await call(tool, args);
      expect(r.result.isError).toBe(true);
      expect(r.result.structuredContent.error).toMatchObject({ code: 'INVALID_INPUT', field });
    });
  }

  it('the CLI refuses the same question', async () => {
    const r = await cli(['search', 'x'.repeat(4001), '--topic', 'topic-levers', '--json', '--no-server'], { root });
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'question' });
  });
});
