/**
 * Whether a root holds anything recovery would look at, answered with readdirs only, so a
 * read-only command (search) can skip loading recovery, git and locking when there is nothing to
 * recover. Keep `nothingToRecover` at least as strict as the early return of `recoverIfNeeded`
 * (mutation/recover.ts): when it says true, recovery would do nothing and `init` was not cut short.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Temp and moved-aside lock folders (`.tkoma/.lock-tmp.<pid>.<hex>`, `<name>.lock.gone.<pid>.<hex>`). */
export const LOCK_LEFTOVER = /^(?:\.lock-tmp|.+\.lock\.gone)\.(\d+)\.[0-9a-f]{8}$/;

/** Entries of `dir`; none when it is missing or unreadable (recovery reads it the same way). */
function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** True when `.tkoma/` has no lock, no lock leftover, no journal and no staging folder in it. */
export function nothingToRecover(root: string): boolean {
  const state = join(root, '.tkoma');
  // Asked apart from the listing, as `pendingInit` asks it: a journal folder that cannot be listed may still hold it.
  if (existsSync(join(state, 'journal', 'init.json'))) return false;
  for (const name of entriesOf(state)) {
    if (name === 'write.lock' || name === 'index.lock' || LOCK_LEFTOVER.test(name)) return false;
    if ((name === 'journal' || name === 'staging') && entriesOf(join(state, name)).length > 0) return false;
  }
  return true;
}
