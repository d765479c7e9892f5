/**
 * Child process for the lock tests: `rounds` times, take the write lock and do a deliberately slow
 * read-modify-write of a counter file (two holders at once would lose increments); after each
 * round, leave a stale lock of a dead process behind half of the time, so the workers keep racing
 * to take over dead locks. Starts when the file `go` appears, so all workers race from the start.
 * Usage: node --import tsx lock-worker.ts <root> <rounds>
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { lockPath, withLock } from '../../src/lib/lock.js';

const [root, rounds] = [process.argv[2]!, Number(process.argv[3])];
const counter = join(root, 'counter');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
while (!existsSync(join(root, 'go'))) await sleep(5);

for (let i = 0; i < rounds; i++) {
  await withLock(
    root,
    'write',
    async () => {
      const n = Number(readFileSync(counter, 'utf8'));
      await sleep(3);
      writeFileSync(counter, String(n + 1));
    },
    { timeoutMs: 60_000, command: 'lock-worker' },
  );
  if (Math.random() < 0.5) {
    // Leave the lock a crashed holder would: a complete lock directory, placed with one rename
    // (which fails when somebody holds the lock).
    const tmp = join(root, '.tkoma', `plant-${process.pid}-${i}`);
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'owner'), JSON.stringify({ pid: 2 ** 22 + 99, command: 'crashed', since: '', hostname: hostname(), nonce: `${process.pid}-${i}` }));
    try {
      renameSync(tmp, lockPath(root, 'write'));
    } catch {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}
