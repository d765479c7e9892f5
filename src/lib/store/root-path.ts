/**
 * Where the knowledge root and its folders are: path arithmetic and existence checks only, so the
 * start-up fast path (cli/fast.ts) can find and check a root without loading root.ts's git, lock
 * and recovery modules.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { nothingToRecover } from '../mutation/leftovers.js';
import { envSetting } from '../settings.js';

/** Where the knowledge root is: --root, then TKOMA_REF_ROOT, then the XDG data directory. */
export function resolveRootPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  const fromEnv = envSetting('root', env);
  if (fromEnv) return resolve(fromEnv);
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'tkoma-ref');
}

export const REFERENCES_DIR = 'references';
export const STATE_DIR = '.tkoma';

export function referencesDir(root: string): string {
  return join(root, REFERENCES_DIR);
}

export function stateDir(root: string): string {
  return join(root, STATE_DIR);
}

export function isInitialised(root: string): boolean {
  return existsSync(join(root, '.git')) && existsSync(referencesDir(root));
}

/**
 * `requireRoot` (root.ts) for the fast path: the same errors and the same recovery, but root.ts and
 * its git, lock and recovery modules load only when the root is missing or has something to
 * recover (an interrupted `init` leaves a journal, so that case goes there too).
 */
export async function requireRootLazily(root: string): Promise<string> {
  if (isInitialised(root) && nothingToRecover(root)) return root;
  return (await import('./root.js')).requireRoot(root);
}
