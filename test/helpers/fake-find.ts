/**
 * A `find` that only leaves a mark that it ran and answers nonsense (which the listing prefetch
 * must refuse and walk instead): put `path` first in a command's PATH.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function markingFind(dir: string): { path: string; asked(): boolean } {
  const bin = join(dir, 'bin');
  const marker = join(dir, 'asked');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'find'), `#!/bin/sh\ntouch '${marker}'\nprintf nonsense\n`);
  chmodSync(join(bin, 'find'), 0o755);
  return { path: `${bin}:${process.env.PATH ?? ''}`, asked: () => existsSync(marker) };
}
