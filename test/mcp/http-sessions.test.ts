/**
 * MCP over Streamable HTTP keeps no session forever (issue 25, item 3), seen by a hand-written
 * HTTP client: past the cap, `initialize` gets HTTP 503 with a JSON-RPC error body naming the
 * cap; a session unused for the idle time is closed (its id then gets 404, so its client
 * initializes again) and its place is free for a new one.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expiredSessions } from '../../src/lib/mcp/http.js';
import { BIN, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-mcp-http-');
const root = join(tmp.path, 'kb');

beforeAll(async () => {
  await freshRoot(root);
});
afterAll(() => tmp.cleanup());

async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function post(port: number, message: unknown, session?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: `127.0.0.1:${port}` };
    if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(message));
  });
}

let nextId = 1;
const initialize = (port: number): Promise<Reply> =>
  post(port, { jsonrpc: '2.0', id: nextId++, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-http', version: '1' } } });

describe('sessions over HTTP', () => {
  it('are capped (503 with a JSON-RPC error past the cap) and expire when idle', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', String(port), '--root', root, '--no-serve'], {
      env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', TKOMA_REF_MCP_SESSIONS: '3', TKOMA_REF_MCP_SESSION_IDLE: '3' },
    });
    let stderr = '';
    const ready = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('serving MCP over Streamable HTTP')) resolve();
      });
      child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    await ready;
    // The server's stderr and its HTTP answers travel on different pipes: wait for the line, not a clock.
    const stderrShows = async (re: RegExp): Promise<string> => {
      for (let tries = 0; tries < 600 && !re.test(stderr); tries++) await new Promise((r) => setTimeout(r, 50));
      return stderr;
    };
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await initialize(port);
        expect(r.status, r.body).toBe(200);
        ids.push(r.headers['mcp-session-id'] as string);
      }
      expect(new Set(ids).size).toBe(3);

      const refusedId = nextId;
      const refused = await initialize(port);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeTruthy();
      const error = JSON.parse(refused.body);
      expect(error).toMatchObject({ jsonrpc: '2.0', id: refusedId, error: { code: -32000 } });
      expect(error.error.message).toMatch(/Too many sessions: 3 are open/);
      expect(await stderrShows(/refused a new session/)).toMatch(/refused a new session/);

      // A session in use answers; then, unused, all three expire and make room.
      const list = await post(port, { jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, ids[0]);
      expect(list.status).toBe(200);
      expect(list.body).toContain('reference_search');
      let admitted: Reply | null = null;
      for (let tries = 0; tries < 600 && !admitted; tries++) {
        await new Promise((r) => setTimeout(r, 250));
        const r = await initialize(port);
        if (r.status === 200) admitted = r;
        else expect(r.status).toBe(503);
      }
      expect(admitted?.status).toBe(200);
      expect(await stderrShows(/idle for 3 s: closed/)).toMatch(/idle for 3 s: closed/);
      const gone = await post(port, { jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, ids[0]);
      expect(gone.status).toBe(404);
      expect(JSON.parse(gone.body).error.message).toMatch(/initialize again/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  });
});

describe('expiredSessions', () => {
  it('expires only sessions with nothing open, unused for the idle time', () => {
    const uses = new Map([
      ['a', { open: 0, lastSeen: 0 }],
      ['b', { open: 1, lastSeen: 0 }],
      ['c', { open: 0, lastSeen: 900 }],
    ]);
    expect(expiredSessions(uses, 1000, 500)).toEqual(['a']);
    expect(expiredSessions(uses, 1400, 500)).toEqual(['a', 'c']);
  });
});
