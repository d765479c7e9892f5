import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { serverDisabled } from '../../src/lib/serve/client.js';
import { Gate, GateBusy } from '../../src/lib/serve/gate.js';
import { parseRequest } from '../../src/lib/serve/handlers.js';
import { embedderEnv, isServeInfo, lineSplitter, MAX_SOCKET_PATH_BYTES, socketPathFor } from '../../src/lib/serve/protocol.js';

describe('socketPathFor', () => {
  it('puts the socket in .tkoma/ when the path fits', () => {
    expect(socketPathFor('/home/ann/kb')).toBe('/home/ann/kb/.tkoma/serve.sock');
  });

  it('uses a short path in the temp folder, named by the root, when the root is deep', () => {
    const deep = `/${'d'.repeat(120)}/kb`;
    const p = socketPathFor(deep);
    expect(p.startsWith(tmpdir())).toBe(true);
    expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
    expect(socketPathFor(deep)).toBe(p);
    expect(socketPathFor(`${deep}2`)).not.toBe(p);
  });

  it('switches exactly at the limit', () => {
    const suffix = '/.tkoma/serve.sock';
    const fits = `/${'a'.repeat(MAX_SOCKET_PATH_BYTES - suffix.length - 1)}`;
    expect(socketPathFor(fits)).toBe(join(fits, '.tkoma', 'serve.sock'));
    expect(socketPathFor(`${fits}b`).startsWith(tmpdir())).toBe(true);
  });
});

describe('lineSplitter', () => {
  it('yields complete lines across chunk boundaries', () => {
    const lines: string[] = [];
    const push = lineSplitter((l) => lines.push(l));
    push(Buffer.from('{"a":1}\n{"b"'));
    push(Buffer.from(':2}\n'));
    push(Buffer.from('\n{"c":"é'));
    push(Buffer.from('"}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '', '{"c":"é"}']);
  });

  it('keeps multi-byte characters split between chunks', () => {
    const lines: string[] = [];
    const push = lineSplitter((l) => lines.push(l));
    const bytes = Buffer.from('ünïcødé\n');
    push(bytes.subarray(0, 1));
    push(bytes.subarray(1));
    expect(lines).toEqual(['ünïcødé']);
  });

  it('throws when a line grows past the limit', () => {
    const push = lineSplitter(() => undefined, 10);
    push(Buffer.from('12345'));
    expect(() => push(Buffer.from('678901'))).toThrow(/longer than 10/);
  });
});

describe('embedderEnv', () => {
  it('keeps the variables that choose the embedder and hashes API keys', () => {
    const env = embedderEnv({ TKOMA_REF_EMBEDDER: 'ollama', OLLAMA_HOST: 'http://h:1', OPENAI_API_KEY: 'sk-secret', PATH: '/bin', HOME: '/home/x' });
    expect(env).toMatchObject({ TKOMA_REF_EMBEDDER: 'ollama', OLLAMA_HOST: 'http://h:1', HOME: '/home/x' });
    expect(env.PATH).toBeUndefined();
    expect(env.OPENAI_API_KEY).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(env)).not.toContain('sk-secret');
    expect(embedderEnv({ OPENAI_API_KEY: 'sk-secret' }).OPENAI_API_KEY).toBe(env.OPENAI_API_KEY);
    expect(embedderEnv({ OPENAI_API_KEY: 'sk-other' }).OPENAI_API_KEY).not.toBe(env.OPENAI_API_KEY);
  });
});

describe('serverDisabled', () => {
  it('reads TKOMA_REF_NO_SERVER', () => {
    expect(serverDisabled({})).toBe(false);
    expect(serverDisabled({ TKOMA_REF_NO_SERVER: '1' })).toBe(true);
    expect(serverDisabled({ TKOMA_REF_NO_SERVER: 'yes' })).toBe(true);
    expect(serverDisabled({ TKOMA_REF_NO_SERVER: '0' })).toBe(false);
    expect(serverDisabled({ TKOMA_REF_NO_SERVER: 'false' })).toBe(false);
  });
});

describe('isServeInfo', () => {
  const good = { pid: 12, socket: '/x.sock', started_at: 't', version: '1', build: '1+2', protocol: 1, root: '/r' };
  it('accepts a complete record and rejects broken ones', () => {
    expect(isServeInfo(good)).toBe(true);
    expect(isServeInfo({ ...good, pid: 'x' })).toBe(false);
    expect(isServeInfo({ ...good, socket: '' })).toBe(false);
    expect(isServeInfo({ ...good, build: undefined })).toBe(false);
    expect(isServeInfo(null)).toBe(false);
    expect(isServeInfo([good])).toBe(false);
  });
});

describe('parseRequest', () => {
  it('accepts the documented shape', () => {
    expect(parseRequest({ id: 1, op: 'search', args: { question: 'q' } })).toMatchObject({ id: 1, op: 'search' });
    expect(parseRequest({ id: 'a', op: 'ping' })).toMatchObject({ id: 'a', op: 'ping' });
  });

  it('rejects what is not a request with INVALID_INPUT', () => {
    for (const bad of [null, [], 'x', { op: 'ping' }, { id: 1, op: 'delete' }, { id: 1, op: 'search', args: [] }, { id: 1, op: 'ping', env: { A: 1 } }]) {
      expect(() => parseRequest(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
  });
});

describe('Gate', () => {
  it('runs holders one at a time, in arrival order', async () => {
    const gate = new Gate();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const first = gate.run(async () => {
      log.push('a start');
      await new Promise<void>((r) => (releaseFirst = r));
      log.push('a end');
    });
    const second = gate.run(async () => {
      log.push('b');
      return 2;
    });
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['a start']);
    releaseFirst();
    await first;
    expect(await second).toBe(2);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('gives up with GateBusy after the wait, and the gate still works afterwards', async () => {
    const gate = new Gate();
    let release!: () => void;
    const holder = gate.run(() => new Promise<void>((r) => (release = r)));
    let ran = false;
    await expect(
      gate.run(async () => {
        ran = true;
      }, 20),
    ).rejects.toBeInstanceOf(GateBusy);
    release();
    await holder;
    expect(await gate.run(async () => 'next', 1000)).toBe('next');
    expect(ran).toBe(false);
  });

  it('a failing holder passes the gate on', async () => {
    const gate = new Gate();
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 1)).toBe(1);
  });
});

describe('the client stays cheap to import', () => {
  it('client.ts and protocol.ts import only Node built-ins, errors.ts, settings.ts, process.ts and each other', async () => {
    const { readFileSync } = await import('node:fs');
    for (const file of ['client.ts', 'protocol.ts']) {
      const text = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'lib', 'serve', file), 'utf8');
      const specs = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
      expect(specs.length, file).toBeGreaterThan(0);
      for (const s of specs) expect(s, `${file} imports ${s}`).toMatch(/^(node:[a-z/_]+|\.\.\/errors\.js|\.\.\/settings\.js|\.\.\/process\.js|\.\/protocol\.js)$/);
      expect(text, file).not.toMatch(/import\(/); // no lazy heavy imports either
    }
  });
});
