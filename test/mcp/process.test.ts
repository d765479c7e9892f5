/**
 * The server as a process, seen by a client written by hand (newline-delimited JSON-RPC, no SDK):
 * only protocol on stdout, a clean exit when stdin closes, cancellation, the CLI's socket served
 * from the same warm process, and Streamable HTTP on 127.0.0.1 with Host/Origin checks.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, makeRepo, operatorApproves, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { RawClient } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-proc-');
const root = join(tmp.path, 'kb');

beforeAll(async () => {
  await freshRoot(root);
  const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Springs\n\nHooke: force is stiffness times extension.\n' });
  const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Springs', '--git', repo.url], { root });
  expect(r.code, r.stdout + r.stderr).toBe(0);
});
afterAll(() => tmp.cleanup());

describe('other commands do not pay for the SDK', () => {
  for (const args of [['topic', 'list'], ['search', 'Hooke', '--topic', 'topic-springs', '--no-server'], ['get', '--topic', 'topic-springs', '--path', 'README.md']]) {
    it(`${args[0]} loads no @modelcontextprotocol, zod, express or hono`, () => {
      const trace = join(tmp.path, `trace-${args[0]}.txt`);
      const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), BIN, ...args, '--root', root, '--json'], {
        env: { ...process.env, TKOMA_TRACE_FILE: trace, TKOMA_REF_EMBEDDER: 'none' },
        encoding: 'utf8',
      });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      expect(loaded.length).toBeGreaterThan(5);
      for (const heavy of ['@modelcontextprotocol', '/zod/', '/express/', '/hono/', '/lib/mcp/']) expect(loaded.filter((m) => m.includes(heavy)), heavy).toEqual([]);
    });
  }
});

describe('a hand-written JSON-RPC client over stdio', () => {
  it('initializes, lists, calls; stdout holds only JSON-RPC; exits 0 when stdin closes', async () => {
    const c = new RawClient(root);
    const init = await c.initialize();
    expect(init.result.serverInfo.name).toBe('tkoma-ref');
    expect(init.result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(init.result.instructions.split('\n')).toHaveLength(3);

    const list = await c.request('tools/list');
    expect(list.result.tools).toHaveLength(7);

    const search = await c.request('tools/call', { name: 'reference_search', arguments: { topic: 'topic-springs', question: 'stiffness extension' } });
    expect(search.result.isError).toBeFalsy();
    expect(search.result.structuredContent.results[0].path).toBe('README.md');

    const bad = await c.request('tools/call', { name: 'reference_topic_list', arguments: { include_obsolete: 'yes' } });
    expect(bad.result.isError).toBe(true);
    expect(bad.result.structuredContent.error.code).toBe('INVALID_INPUT');

    const unknown = await c.request('no/such/method');
    expect(unknown.error.code).toBe(-32601);

    c.child.stdin.end();
    // It exits by itself once stdin closes (no clock: a loaded machine takes longer, not forever).
    expect(await c.exited).toBe(0);
    for (const line of c.lines) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    expect(existsSync(join(root, '.tkoma', 'serve.json'))).toBe(false); // the socket it served is cleaned up
  });

  it('serves the CLI socket while it runs: `search` is answered by the MCP process', async () => {
    const c = new RawClient(root);
    await c.initialize();
    // The first tool call waits for the warm-up, after which the socket is listening.
    await c.request('tools/call', { name: 'reference_topic_search', arguments: { query: 'springs' } });
    const r = await cli(['search', 'Hooke', '--topic', 'topic-springs', '--json'], { root, env: { TKOMA_REF_DEBUG: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/working in-process/);
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
  });

  it('a cancelled create (approved, fetching) commits nothing', async () => {
    const repo = makeRepo(join(tmp.path, 'cancel'), { 'README.md': '# Cancel\n', 'docs/a.md': '# A\n\nText.\n' });
    const c = new RawClient(root);
    await c.initialize();
    const args = { title: 'Cancelled', body: 'x', sources: [{ type: 'git', url: repo.url }] };
    const ask = await c.request('tools/call', { name: 'reference_topic_create', arguments: args });
    await operatorApproves(root, ask.result.structuredContent.request_id);
    const before = (await cli(['topic', 'list', '--json'], { root })).json.length;
    const pending = c.request('tools/call', { name: 'reference_topic_create', arguments: args });
    c.notify('notifications/cancelled', { requestId: 3, reason: 'the user pressed stop' });
    const outcome = await Promise.race([pending, new Promise((r) => setTimeout(() => r('no answer'), 3000))]);
    // A cancelled request gets no answer (the server drops it); nothing was committed either way.
    expect(outcome).toBe('no answer');
    expect((await cli(['topic', 'list', '--json'], { root })).json.length).toBe(before);
    expect(existsSync(join(root, 'references', 'topic-cancelled'))).toBe(false);
    // The server goes on serving.
    expect((await c.request('tools/list')).result.tools).toHaveLength(7);
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function rawPost(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
  });
}

describe('Streamable HTTP (--http PORT)', () => {
  it('answers on 127.0.0.1 with the SDK client, refuses foreign Host and Origin', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', String(port), '--root', root, '--no-serve'], { env: { ...process.env, TKOMA_REF_EMBEDDER: 'none' } });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const ready = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('serving MCP over Streamable HTTP')) resolve();
      });
      child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    await ready;
    try {
      const client = new Client({ name: 'http-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      expect((await client.listTools()).tools).toHaveLength(7);
      const r = (await client.callTool({ name: 'reference_topic_list', arguments: {} })) as unknown as { structuredContent: { topics: { topic_id: string }[] } };
      expect(r.structuredContent.topics.map((t) => t.topic_id)).toContain('topic-springs');
      await client.close();

      expect(await rawPost(port, { host: `evil.example:${port}` })).toBe(403);
      expect(await rawPost(port, { host: `localhost:${port}`, origin: 'http://evil.example' })).toBe(403);
      expect(await rawPost(port, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
    expect(stdout).toBe('');
  });
});
