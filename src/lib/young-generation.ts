/**
 * V8 grows its young generation (two semi-spaces) by doubling it each time enough objects have
 * survived collections there since the last growth, up to 2 x 16 MiB, and a busy process never
 * gets it back. A create's fetch and index keep enough alive for long enough that it always grew
 * to the maximum: 32 MiB, the largest part of a SciFact create's peak RSS that was not Node's own
 * code. Held at the size it has when the command's work starts (2 x 4 MiB after start-up), the
 * same create peaks 20-30 MiB lower for the same CPU time: more scavenges, each cheaper, and less
 * mark-compact work.
 *
 * The growth factor is a V8 flag that V8 reads each time it would grow the young generation, so
 * setting it while running takes effect at the next growth; a V8 that ignored it would just grow
 * as before. 2 is V8's default (`node --v8-options`), restored when the work is done so a
 * long-running process (mcp, serve) grows as usual between commands.
 *
 * The same hold sets `--optimize-for-size` (V8's switch for memory-constrained embedders, also
 * read while running): the old generation grows by a smaller factor before each full collection,
 * and the chunk threads started meanwhile get small heaps. A create keeps little alive (its
 * records stream to disk) but makes garbage fast, so the main thread's heap had grown to 67 MiB
 * for ~25 MiB live; held, 41 MiB. On the Dioxus create: 217 → 183 MiB peak, no more CPU than
 * the noise of a shared machine (docs/BENCHMARKS.md, issue 27).
 */
import { setFlagsFromString } from 'node:v8';

import { trickOff } from './settings.js';

const DEFAULT_GROWTH_FACTOR = 2;

let holders = 0;
let restoreAtExit = true;

/**
 * Runs `work` with the young generation held at its current size. Holds nest (a server may run
 * two creates at once): V8's default comes back when the last one ends.
 */
export async function withYoungGenerationHeld<T>(work: () => Promise<T>): Promise<T> {
  if (trickOff('young-generation')) return work();
  if (holders++ === 0) {
    setFlagsFromString('--semi-space-growth-factor=1');
    setFlagsFromString('--optimize-for-size');
    if (restoreAtExit) {
      restoreAtExit = false;
      // --optimize-for-size also sets --max-semi-space-size, which --no-optimize-for-size leaves
      // set (V8 reads it when a heap is made: threads started later keep small heaps, as before).
      // V8 keys a code cache to its flags: put V8's default back at exit, before cli/boot.ts
      // writes the cache (its listener comes later), or every run rejects and rewrites it.
      process.once('exit', () => setFlagsFromString('--max-semi-space-size=0'));
    }
  }
  try {
    return await work();
  } finally {
    if (--holders === 0) {
      setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
      setFlagsFromString('--no-optimize-for-size');
    }
  }
}
