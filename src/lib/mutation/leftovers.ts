/**
 * Whether a root holds anything recovery would look at, answered with readdirs only, so a
 * read-only command (search) can skip loading recovery, git and locking when there is nothing to
 * recover. `recoverIfNeeded` (mutation/recover.ts) returns early on the same names
 * (`recoveryLooksAt`); `nothingToRecover` also passes empty folders, which recovery finds nothing
 * in, and says false when `init` was cut short.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { listDir } from '../soft-fs.js';

/** Temp and moved-aside lock folders (`.tkoma/.lock-tmp.<pid>.<hex>`, `<name>.lock.gone.<pid>.<hex>`). */
export const LOCK_LEFTOVER = /^(?:\.lock-tmp|.+\.lock\.gone)\.(\d+)\.[0-9a-f]{8}$/;

/** Names in `.tkoma/` that recovery looks into: the locks, their leftovers, journals and staging. */
export function recoveryLooksAt(name: string): boolean {
  return name === 'journal' || name === 'staging' || name === 'write.lock' || name === 'index.lock' || LOCK_LEFTOVER.test(name);
}

/** True when `.tkoma/` has no lock, no lock leftover, no journal and no staging folder in it. */
export function nothingToRecover(root: string): boolean {
  const state = join(root, '.tkoma');
  // Asked apart from the listing, as `pendingInit` asks it: a journal folder that cannot be listed may still hold it.
  if (existsSync(join(state, 'journal', 'init.json'))) return false;
  for (const name of listDir(state)) {
    if (!recoveryLooksAt(name)) continue;
    // An empty journal or staging folder holds nothing to recover.
    if ((name === 'journal' || name === 'staging') && listDir(join(state, name)).length === 0) continue;
    return false;
  }
  return true;
}
