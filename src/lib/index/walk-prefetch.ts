/**
 * A cold `search` must stat every file of its topic before answering (a hand edit must be seen),
 * and at SciFact scale those 5,000 lstat calls were a fifth of its time. The CLI starts that walk
 * on a worker thread before it loads the search code (cli/fast.ts), so the two overlap on a second
 * core; the freshness check (scan.ts filesUnchanged) takes the listing when it asks about the same
 * folder. A listing is taken once, and only by the process that started it: it was made after the
 * command started, so it sees every edit made before the command, as a walk at check time would.
 */
import { Worker } from 'node:worker_threads';

import type { FileListing } from './walk.js';

const started = new Map<string, { worker: Worker; listing: Promise<FileListing | null> }>();

/** Starts listing `dir` on a worker thread; never throws (the check then walks by itself). */
export function prefetchWalk(dir: string): void {
  if (started.has(dir)) return;
  let worker: Worker;
  try {
    worker = new Worker(new URL('./walk-worker.js', import.meta.url), { workerData: { dir }, stdout: true, stderr: true });
  } catch {
    return;
  }
  // Not a reason to keep the process alive: an answer from a running server needs no listing.
  worker.unref();
  const listing = new Promise<FileListing | null>((resolve) => {
    worker.once('message', (m: FileListing) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
  started.set(dir, { worker, listing });
}

/** The listing prefetchWalk started for `dir` (null if the worker failed), or undefined when none was. */
export function takePrefetchedWalk(dir: string): Promise<FileListing | null> | undefined {
  const s = started.get(dir);
  if (!s) return undefined;
  started.delete(dir);
  s.worker.ref(); // now somebody waits for it
  return s.listing;
}
