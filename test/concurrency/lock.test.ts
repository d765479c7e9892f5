/**
 * The root's lock (src/lib/lock.ts) with real processes: mutual exclusion across processes racing
 * to take over a stale lock, takeover of dead holders (including a breaker that died mid-claim
 * and a reused pid), LOCKED naming a live holder, and the in-process queue and re-entrancy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { acquireLock, commandLine, lockPath, processStart, tryAcquire, withLock, writeLockTimeoutMs } from '../../src/lib/lock.js';
import { tmpDir } from '../helpers/fixtures.js';

const DEAD_PID = 2 ** 22 + 4321; // above Linux's pid_max: never alive
const WORKER = join(import.meta.dirname, 'lock-worker.ts');

let tmp: ReturnType<typeof tmpDir>;
let root: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  tmp = tmpDir('tkoma-lock-');
  root = tmp.path;
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  tmp.cleanup();
});

function plant(dir: string, owner: Record<string, unknown> | string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'owner'), typeof owner === 'string' ? owner : JSON.stringify(owner));
}

function sleeper(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(c);
    c.on('error', reject);
    c.on('close', (code) => resolve(code ?? -1));
  });
}

describe('write lock across processes', () => {
  it('six processes racing over stale locks never hold the lock at the same time', async () => {
    writeFileSync(join(root, 'counter'), '0');
    plant(lockPath(root, 'write'), { pid: DEAD_PID, command: 'tkoma-ref refresh', since: '2020-01-01T00:00:00Z', hostname: hostname() });
    const runs = Array.from({ length: 6 }, () => run([root, '15']));
    writeFileSync(join(root, 'go'), '');
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(readFileSync(join(root, 'counter'), 'utf8')).toBe('90'); // no lost update
    // Nobody holds it now: at most a planted dead lock remains, which the next taker breaks.
    const last = tryAcquire(root, 'write');
    expect('release' in last).toBe(true);
    if ('release' in last) last.release();
    expect(existsSync(lockPath(root, 'write'))).toBe(false);
  });

  it('takes over a lock whose breaker died while claiming it', async () => {
    const dir = lockPath(root, 'write');
    const owner = { pid: DEAD_PID, command: 'a', since: '', hostname: hostname() };
    const id = createHash('sha256').update(JSON.stringify(owner)).digest('hex').slice(0, 16);
    plant(dir, owner);
    plant(join(dir, `takeover-${id}`), { pid: DEAD_PID + 1, command: 'b', since: '', hostname: hostname() });
    const release = await acquireLock(root, 'write', { timeoutMs: 2000 });
    expect(JSON.parse(readFileSync(join(dir, 'owner'), 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(dir)).toBe(false);
  });

  it('takes over a pid that now belongs to another process (start time differs)', async () => {
    const other = sleeper();
    plant(lockPath(root, 'write'), { pid: other.pid, command: 'old', since: '', hostname: hostname(), start: 1 });
    const release = await acquireLock(root, 'write', { timeoutMs: 2000 });
    release();
  });

  it('takes over an owner-less lock directory once it is old, and a bare-pid owner file', async () => {
    const dir = lockPath(root, 'write');
    mkdirSync(dir, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(dir, old, old);
    (await acquireLock(root, 'write', { timeoutMs: 2000 }))();
    plant(dir, `${DEAD_PID}\n`);
    (await acquireLock(root, 'write', { timeoutMs: 2000 }))();
  });

  it('a live holder: LOCKED after the timeout, naming pid, command and since', async () => {
    const holder = sleeper();
    const since = new Date().toISOString();
    plant(lockPath(root, 'write'), { pid: holder.pid, command: 'tkoma-ref refresh', since, hostname: hostname(), start: processStart(holder.pid!) });
    const err = await acquireLock(root, 'write', { timeoutMs: 300 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'LOCKED', details: { lock: 'write', holder: { pid: holder.pid, command: 'tkoma-ref refresh', since } } });
    expect(err.message).toContain(`pid ${holder.pid} (tkoma-ref refresh, since ${since})`);
    expect(tryAcquire(root, 'write')).toMatchObject({ holder: { pid: holder.pid } });
  });

  it('a holder on another host is never taken over', async () => {
    plant(lockPath(root, 'write'), { pid: DEAD_PID, command: 'x', since: '', hostname: 'elsewhere.example' });
    await expect(acquireLock(root, 'write', { timeoutMs: 200 })).rejects.toMatchObject({ code: 'LOCKED' });
  });
});

describe('write lock in one process', () => {
  it('queues calls and lets a nested call through', async () => {
    const order: string[] = [];
    const task = (name: string) =>
      withLock(root, 'write', async () => {
        order.push(`${name}:start`);
        await withLock(root, 'write', async () => order.push(`${name}:nested`));
        await new Promise((r) => setImmediate(r));
        order.push(`${name}:end`);
      });
    await Promise.all([task('a'), task('b')]);
    expect(order).toEqual(['a:start', 'a:nested', 'a:end', 'b:start', 'b:nested', 'b:end']);
    expect(existsSync(lockPath(root, 'write'))).toBe(false);
  });

  it('write and index are two locks', async () => {
    await withLock(root, 'write', () => withLock(root, 'index', async () => {
      expect(existsSync(lockPath(root, 'write'))).toBe(true);
      expect(existsSync(lockPath(root, 'index'))).toBe(true);
    }));
  });

  it('reads its timeout from TKOMA_REF_LOCK_TIMEOUT and names commands without their values', () => {
    expect(writeLockTimeoutMs({})).toBe(30_000);
    expect(writeLockTimeoutMs({ TKOMA_REF_LOCK_TIMEOUT: '2.5' })).toBe(2500);
    expect(() => writeLockTimeoutMs({ TKOMA_REF_LOCK_TIMEOUT: 'soon' })).toThrow(/seconds/);
    expect(commandLine(['topic', 'create', '--input', '{"secret":1}'])).toBe('tkoma-ref topic create');
    expect(commandLine(['search', 'how do I', '--json'])).toBe('tkoma-ref search');
  });
});
