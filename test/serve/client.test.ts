/**
 * tryServer against servers that are gone, stale, of another build, or that misbehave: every
 * case must end in `undefined` (the caller works in-process), quickly, never in a wrong answer.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { findServer, tryServer as tryServerRaw } from '../../src/lib/serve/client.js';
import { buildId, packageVersion, PROTOCOL, type ServeInfo, serveInfoFile, socketPathFor } from '../../src/lib/serve/protocol.js';
import { startServer } from '../../src/lib/serve/server.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

/** The client with a connect timeout that a loaded test machine cannot trip. */
const tryServer: typeof tryServerRaw = (r, op, args, opts = {}) => tryServerRaw(r, op, args, { timeoutMs: 120_000, ...opts });

let root: string;
let cleanup: () => void;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  ({ root, cleanup } = makeTmpRoot());
  mkdirSync(join(root, '.tkoma'), { recursive: true });
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  cleanup();
});

function writeInfo(over: Partial<ServeInfo> = {}): ServeInfo {
  const info: ServeInfo = {
    pid: process.pid,
    socket: join(root, '.tkoma', 'serve.sock'),
    started_at: new Date().toISOString(),
    version: packageVersion(),
    build: buildId(),
    protocol: PROTOCOL,
    root,
    ...over,
  };
  writeFileSync(serveInfoFile(root), JSON.stringify(info));
  return info;
}

/** A fake server on the root's socket path that does `onLine` with each connection's data. */
async function fakeServer(behaviour: (socket: import('node:net').Socket, data: string) => void): Promise<Server> {
  const server = createServer((c) => {
    c.on('error', () => undefined);
    c.on('data', (d) => behaviour(c, d.toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(join(root, '.tkoma', 'serve.sock'), () => r()));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return server;
}

/** A process that binds the socket and is then killed with SIGKILL: the socket file stays. */
async function socketOfKilledProcess(path: string): Promise<number> {
  const code = `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up')); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((r) => child.stdout.once('data', () => r()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await exited;
  return child.pid!;
}

describe('tryServer falls back', () => {
  it('when there is no serve.json', async () => {
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
  });

  it('when serve.json is not JSON or not a record', async () => {
    writeFileSync(serveInfoFile(root), '{ half');
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    writeFileSync(serveInfoFile(root), JSON.stringify({ pid: 1 }));
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
  });

  it('when the server was killed (SIGKILL): stale serve.json is removed, the socket ignored', async () => {
    const sock = join(root, '.tkoma', 'serve.sock');
    const pid = await socketOfKilledProcess(sock);
    expect(statSync(sock).isSocket()).toBe(true);
    writeInfo({ pid });
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    expect(existsSync(serveInfoFile(root))).toBe(false);
  });

  it('when the pid is alive but nothing listens on the socket (ECONNREFUSED)', async () => {
    const sock = join(root, '.tkoma', 'serve.sock');
    await socketOfKilledProcess(sock);
    writeInfo(); // our own pid: alive
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
  });

  it('when the socket file is missing (ENOENT) or not a socket', async () => {
    writeInfo();
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    writeFileSync(join(root, '.tkoma', 'serve.sock'), 'not a socket');
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
  });

  it('when the server is of another version, build or protocol', async () => {
    await fakeServer((c) => c.write(`${JSON.stringify({ id: 1, ok: true, result: 'wrong' })}\n`));
    for (const over of [{ version: '0.0.0-other', build: '0.0.0-other+1' }, { build: `${packageVersion()}+1` }, { protocol: PROTOCOL + 1 }]) {
      writeInfo(over);
      expect(findServer(root), JSON.stringify(over)).toBeUndefined();
      expect(await tryServer(root, 'ping', {})).toBeUndefined();
    }
  });

  it('when the server answers garbage, the wrong id, or hangs up', async () => {
    writeInfo();
    let reply = (_c: import('node:net').Socket, _d: string): void => undefined;
    await fakeServer((c, d) => reply(c, d));
    reply = (c) => c.write('nonsense\n');
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    reply = (c) => c.write(`${JSON.stringify({ id: 'someone-else', ok: true, result: 1 })}\n`);
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    reply = (c) => c.end();
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    reply = (c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: false, error: { code: 'NOT_A_CODE', message: 'x' } })}\n`);
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    reply = (c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: false, fallback: 'busy' })}\n`);
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
    // The same fake, behaving: the client does take its answer.
    reply = (c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: true, result: { fine: true } })}\n`);
    expect(await tryServer(root, 'ping', {})).toEqual({ fine: true });
  });

  it('when the server does not answer in time', async () => {
    writeInfo();
    await fakeServer(() => undefined);
    expect(await tryServer(root, 'ping', {}, { replyTimeoutMs: 50 })).toBeUndefined();
  });

  it('not when this process was busy past the connect timeout: the connection made meanwhile answers', async () => {
    writeInfo();
    await fakeServer((c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: true, result: 'served' })}\n`));
    const asked = tryServerRaw(root, 'ping', {}, { timeoutMs: 10 });
    // Blocks this thread for 10× the timeout right after the connect started (as module loading
    // or a loaded machine can): the timer has expired before the loop sees the connect complete.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    expect(await asked).toBe('served');
  });

  it('when TKOMA_REF_NO_SERVER is set, without even looking', async () => {
    writeInfo();
    await fakeServer((c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: true, result: 1 })}\n`));
    expect(await tryServer(root, 'ping', {})).toBe(1);
    expect(await tryServer(root, 'ping', {}, { env: { ...process.env, TKOMA_REF_NO_SERVER: '1' } })).toBeUndefined();
  });

  it('rethrows an error the server answered as a TkomaError', async () => {
    writeInfo();
    await fakeServer((c, d) => c.write(`${JSON.stringify({ id: JSON.parse(d).id, ok: false, error: { code: 'TOPIC_NOT_FOUND', message: 'no topic "x"', topic_id: 'x' } })}\n`));
    await expect(tryServer(root, 'search', { question: 'q', topic: 'x' })).rejects.toMatchObject({ code: 'TOPIC_NOT_FOUND', message: 'no topic "x"', details: { topic_id: 'x' } });
  });
});

describe('startServer over leftovers', () => {
  it('takes over the socket of a killed server and answers', async () => {
    await writeTopic(root, { id: 'topic-a', title: 'A', body: '# A', files: { 'a.md': '# A\n\nalpha beta\n' } });
    const sock = join(root, '.tkoma', 'serve.sock');
    const pid = await socketOfKilledProcess(sock);
    writeInfo({ pid });
    const server = await startServer(root, { embedderFlag: 'none', watch: false });
    closers.push(() => server.close());
    expect(JSON.parse(readFileSync(serveInfoFile(root), 'utf8')).pid).toBe(process.pid);
    const res = (await tryServer(root, 'search', { question: 'alpha', topic: 'topic-a', embedderFlag: 'none' })) as { results: unknown[] };
    expect(res.results).toHaveLength(1);
  });

  it('closes cleanly: socket and serve.json are removed, clients fall back', async () => {
    const server = await startServer(root, { embedderFlag: 'none', watch: false });
    expect(await tryServer(root, 'ping', {})).toBeDefined();
    await server.close();
    expect(existsSync(server.socket)).toBe(false);
    expect(existsSync(serveInfoFile(root))).toBe(false);
    expect(await tryServer(root, 'ping', {})).toBeUndefined();
  });

  it('uses a short socket path in the temp folder for a deep root, and records it', async () => {
    const deep = join(root, 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(join(deep, 'references'), { recursive: true });
    const server = await startServer(deep, { embedderFlag: 'none', watch: false });
    closers.push(() => server.close());
    expect(server.socket).toBe(socketPathFor(deep));
    expect(server.socket.startsWith(join(root, 'd'))).toBe(false);
    expect(statSync(server.socket).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(serveInfoFile(deep), 'utf8')).socket).toBe(server.socket);
    expect(await tryServer(deep, 'ping', {})).toMatchObject({ socket: server.socket });
  });

  it('does not listen where something that is not a socket sits', async () => {
    writeFileSync(join(root, '.tkoma', 'serve.sock'), 'precious');
    await expect(startServer(root, { embedderFlag: 'none', watch: false })).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(readFileSync(join(root, '.tkoma', 'serve.sock'), 'utf8')).toBe('precious');
  });
});

it('a process that is gone is detected by pid', () => {
  const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(serveInfoFile(root), JSON.stringify({ pid: gone, socket: '/nonexistent.sock', started_at: '', version: '', build: '', protocol: 1, root }));
  expect(findServer(root)).toBeUndefined();
  expect(existsSync(serveInfoFile(root))).toBe(false);
});
