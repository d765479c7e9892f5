/**
 * Where the knowledge root and its folders are: path arithmetic only, so the start-up fast path
 * (cli/fast.ts) can find a root without loading root.ts's git, lock and recovery modules.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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
