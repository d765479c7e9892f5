/**
 * Whether a process still runs, for the lock's stale-holder check and the serve client and
 * server's stale serve.json check. Node built-ins only: the serve client is on the search path.
 */

/** True when `pid` names a live process (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
