/**
 * CPU time of a running process tree from /proc (Linux), for servers that a benchmark talks to:
 * CPU seconds move far less with a busy neighbour than wall time does. Null where /proc is not.
 */
import { readFileSync } from 'node:fs';

/** The clock ticks per second /proc counts in; 100 on every Linux this runs on. */
const TICKS_PER_S = 100;

/**
 * utime + stime (fields 14 and 15) of one `/proc/<pid>/stat` line, in ticks. The command name
 * (field 2) is in parentheses and may hold spaces or parentheses itself, so fields are counted
 * from the last ')'.
 */
export function cpuTicksOfStat(line: string): number {
  const rest = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable /proc stat line: ${line.slice(0, 80)}`);
  return utime + stime;
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function ticksOf(pid: number): number | null {
  try {
    return cpuTicksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** CPU milliseconds used so far by `pid` and its live descendants; null without /proc. */
export function treeCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const root = ticksOf(pid);
  if (root === null) return null;
  let ticks = root;
  const todo = childrenOf(pid);
  while (todo.length > 0) {
    const p = todo.pop()!;
    // A child that has just exited is gone from /proc: it no longer counts.
    ticks += ticksOf(p) ?? 0;
    todo.push(...childrenOf(p));
  }
  return (ticks * 1000) / TICKS_PER_S;
}
