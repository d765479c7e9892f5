/**
 * Opt-in measurement of where the suite's CPU goes (issue 30): with TKOMA_TEST_CPU_LOG=FILE set,
 * each test file appends one JSON line when it ends: CPU seconds of its own worker process
 * (`self`, the in-process tests) and of the processes it spawned and waited for (`children`: the
 * real CLI calls, and their git processes, which that CLI waited for), from /proc/self/stat. On a
 * two-core machine the suite is CPU-bound, so these sums, not wall times, say what a change saves.
 * A no-op without the variable (and off Linux).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

import { afterAll, expect } from 'vitest';

const log = process.env.TKOMA_TEST_CPU_LOG;

/** utime, stime, cutime, cstime in seconds. */
function cpuTicks(): number[] {
  // Fields after the command name's closing parenthesis: state is the 3rd field, utime the 14th.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return [11, 12, 13, 14].map((i) => Number(fields[i]) / 100);
}

if (log && process.platform === 'linux') {
  const start = cpuTicks();
  const started = Date.now();
  afterAll(() => {
    const [u, s, cu, cs] = cpuTicks().map((v, i) => v - start[i]);
    const file = expect.getState().testPath ?? '(unknown)';
    const line = { file: relative(process.cwd(), file), self: +(u + s).toFixed(2), children: +(cu + cs).toFixed(2), wall: (Date.now() - started) / 1000 };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
