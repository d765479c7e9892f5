import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { lockPath, withIndexLock } from '../../src/lib/lock.js';
import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

const lockDir = (root: string): string => lockPath(root, 'index');

let root: string;
let cleanup: () => void;
let holder: ChildProcess | undefined;

beforeEach(async () => {
  ({ root, cleanup } = makeTmpRoot());
  await writeTopic(root, { id: 'topic-a', title: 'A', body: '# A\n\nAlpha.', files: { 'a.md': '# Alpha\n\nThe aardvark digs.\n' } });
});
afterEach(() => {
  holder?.kill();
  holder = undefined;
  forgetTopicIndex(root);
  cleanup();
});

function holdLockAs(pid: number): void {
  mkdirSync(lockDir(root), { recursive: true });
  writeFileSync(join(lockDir(root), 'owner'), `${pid}\n`);
}

describe('index lock', () => {
  it('takes over a lock whose owner process is gone', async () => {
    holdLockAs(2 ** 22 + 12345); // above pid_max on Linux: never alive
    const report = await syncIndex(root, { embedder: null, lockTimeoutMs: 1000 });
    expect(report.topics['topic-a']!.added).toBe(1);
    expect(existsSync(lockDir(root))).toBe(false);
  });

  it('waits for a live owner, then fails with LOCKED; search answers from the current index', async () => {
    await syncIndex(root, { embedder: null });
    holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    holdLockAs(holder.pid!);
    await expect(syncIndex(root, { embedder: null, lockTimeoutMs: 200 })).rejects.toMatchObject({ code: 'LOCKED' });
    writeFileSync(join(root, 'references', 'topic-a', 'b.md'), '# Beta\n\nbadgers\n');
    const res = await searchReferences(root, { question: 'aardvark', topic: 'topic-a', embedder: null });
    expect(res.results[0]?.path).toBe('a.md');
    // The new file waits for the lock's release.
    expect((await searchReferences(root, { question: 'badgers', topic: 'topic-a', embedder: null })).results).toEqual([]);
    holder.kill();
    await new Promise((r) => holder!.once('exit', r));
    expect((await searchReferences(root, { question: 'badgers', topic: 'topic-a', embedder: null })).results[0]?.path).toBe('b.md');
  });

  it('runs calls of one process one at a time', async () => {
    const order: string[] = [];
    const task = (name: string) =>
      withIndexLock(root, async () => {
        order.push(`${name}:start`);
        await new Promise((r) => setImmediate(r));
        order.push(`${name}:end`);
      });
    await Promise.all([task('a'), task('b'), task('c')]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  });

  it('releases the lock when the work fails', async () => {
    await expect(withIndexLock(root, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lockDir(root))).toBe(false);
    expect(await withIndexLock(root, async () => 42)).toBe(42);
  });
});
