/**
 * Test hook, deterministic where `pause@<point>` (src/lib/mutation.ts crashPoint) blocks for
 * good: with TKOMA_REF_HOLD_AT naming `point` (comma-separated list) and TKOMA_REF_HOLD_UNTIL
 * naming a file, prints `tkoma-ref: held at <point>` on stderr and waits until that file exists,
 * then goes on. Without the variables it costs one environment lookup.
 */
import { existsSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { envSetting } from './settings.js';

export async function holdPoint(point: string): Promise<void> {
  const at = envSetting('holdAt');
  const until = envSetting('holdUntil');
  if (!at || !until || !at.includes(point)) return;
  writeSync(2, `tkoma-ref: held at ${point}\n`);
  while (!existsSync(until)) await sleep(10);
}
