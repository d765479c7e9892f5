/**
 * One writer at a time per knowledge root: the watcher, a search and `topic create` may all
 * want to sync. Inside one process calls queue on a promise chain; across processes a lock
 * directory (mkdir is atomic) holds the owner's pid, and a lock whose owner is gone is taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { TkomaError } from '../errors.js';
import { lockDir } from './layout.js';

const chains = new Map<string, Promise<unknown>>();

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function acquireDir(root: string, timeoutMs: number): Promise<() => Promise<void>> {
  const dir = lockDir(root);
  const owner = join(dir, 'owner');
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(join(dir, '..'), { recursive: true });
      await mkdir(dir);
      await writeFile(owner, `${process.pid}\n`);
      return async () => {
        await rm(dir, { recursive: true, force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = await readFile(owner, 'utf8').catch(() => null);
    const pid = text === null ? NaN : Number.parseInt(text, 10);
    // No owner file yet may be a lock being created right now: only take it over on a retry.
    if ((text !== null && !pidAlive(pid)) || (text === null && attempt > 20)) {
      await rm(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new TkomaError('LOCKED', `the index of ${root} is being updated by another process (pid ${text?.trim() ?? '?'})`, {
        lock: dir,
      });
    }
    await sleep(Math.min(50 + attempt * 10, 250));
  }
}

/**
 * Runs `fn` holding the root's index lock. `timeoutMs` bounds the wait for another process
 * (LOCKED after it); waiting for this process's own earlier calls is not bounded.
 */
export async function withIndexLock<T>(root: string, fn: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  const key = resolve(root);
  const previous = chains.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const chained = previous.then(() => mine);
  chains.set(key, chained);
  try {
    await previous.catch(() => undefined);
    const unlock = await acquireDir(root, opts.timeoutMs ?? 10 * 60_000);
    try {
      return await fn();
    } finally {
      await unlock();
    }
  } finally {
    release();
    if (chains.get(key) === chained) chains.delete(key);
  }
}
