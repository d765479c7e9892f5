/**
 * Child process of young-generation.test.ts (a fresh V8 whose young generation has not grown):
 * keeps ~60 MB of small objects alive, first inside withYoungGenerationHeld, then outside, and
 * prints the young generation's size at the start, after the held part, after a part held by an
 * inner hold that outlived an outer one, and at the end (bytes).
 * Usage: node --import tsx young-generation-worker.ts
 */
import { getHeapSpaceStatistics } from 'node:v8';

import { withYoungGenerationHeld } from '../src/lib/young-generation.js';

const youngBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
const kept: { n: number; s: string }[][] = [];
/** ~30 MB of objects that survive every collection. */
function keepMany(): void {
  for (let i = 0; i < 300; i++) kept.push(Array.from({ length: 1000 }, (_, n) => ({ n, s: `${i}:${n}` })));
}

const start = youngBytes();
await withYoungGenerationHeld(async () => keepMany());
const held = youngBytes();
// Two holds overlap and the first ends first: the second must still hold.
let releaseFirst!: () => void;
const first = withYoungGenerationHeld(() => new Promise<void>((resolve) => (releaseFirst = resolve)));
await withYoungGenerationHeld(async () => {
  releaseFirst();
  await first;
  keepMany();
});
const nested = youngBytes();
keepMany();
process.stdout.write(JSON.stringify({ start, held, nested, after: youngBytes(), kept: kept.length }));
