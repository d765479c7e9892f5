/**
 * Test hook: `TKOMA_REF_CRASH_AT=<point>[,<point>]` makes the process SIGKILL itself at a named
 * point; the crash tests use it. Generic points of every mutation are `<op>:locked`,
 * `<op>:journaled`, `<op>:before-commit`, `<op>:staged` (after `git add`) and `<op>:committed`
 * (before the journal is removed); commands add their own (`create:moved`, `refresh:aside`, ...),
 * and a sync `index:writing` (a segment being written).
 */
import { writeSync } from 'node:fs';

import { envSetting } from '../settings.js';

export const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * SIGKILL this process when TKOMA_REF_CRASH_AT names `point`; with `pause@<point>` it prints
 * `tkoma-ref: paused at <point>` on stderr and blocks there until a signal from outside ends it
 * (the tests send SIGINT/SIGTERM while a mutation holds the lock and its journal).
 */
export function crashPoint(point: string): void {
  const wanted = envSetting('crashAt');
  if (!wanted) return;
  if (wanted.includes(point)) {
    process.kill(process.pid, 'SIGKILL');
    sleepSync(10_000); // never runs past this
  }
  if (wanted.includes(`pause@${point}`)) {
    writeSync(2, `tkoma-ref: paused at ${point}\n`);
    for (;;) sleepSync(1000);
  }
}
