/**
 * `[sources] local_roots`: the folders under which a file:// git source may be read. A ghost that
 * could name any path would read `~/.password-store` or another project's history into the
 * knowledge root; the operator names the folders that hold reference repositories instead.
 * Paths compare after resolving symbolic links, so a link inside a root cannot lead out of it.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { TkomaError } from '../errors.js';
import type { SourcePolicy } from '../net/policy.js';

export const LOCAL_ROOTS_SETTING = '[sources] local_roots';

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** `[sources] local_roots` as read from tkoma-ref.toml: absolute folders (`~/` allowed), real paths. */
export function parseLocalRoots(value: unknown, where = LOCAL_ROOTS_SETTING): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TkomaError('INVALID_INPUT', `${where} must be a list of folders, e.g. ["/home/me/src"]`, { setting: where });
  return value.map((v) => {
    if (typeof v !== 'string' || v.trim() === '') throw new TkomaError('INVALID_INPUT', `${where}: "${String(v)}" is not a folder`, { setting: where });
    const expanded = v.startsWith('~/') ? `${homedir()}${v.slice(1)}` : v;
    if (!isAbsolute(expanded)) throw new TkomaError('INVALID_INPUT', `${where}: "${v}" must be an absolute path`, { setting: where, entry: v });
    return realOrResolved(expanded);
  });
}

/** The local path a file:// URL names (percent-decoded), or null when it is no file URL. */
export function localPathOf(url: string): string | null {
  if (!/^file:\/\//i.test(url)) return null;
  try {
    return fileURLToPath(url.replace(/^file:\/\/localhost\//i, 'file:///'));
  } catch {
    return null;
  }
}

/** Whether `path` (resolved) lies inside one of the policy's local roots. */
export function underLocalRoots(policy: Pick<SourcePolicy, 'localRoots'>, path: string): boolean {
  const real = realOrResolved(path);
  return policy.localRoots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
}

/** NOT_ALLOWED unless the file:// URL names a path under `[sources] local_roots`. */
export function assertLocalRepositoryAllowed(policy: Pick<SourcePolicy, 'localRoots'>, url: string): void {
  const path = localPathOf(url);
  if (path === null) return;
  if (underLocalRoots(policy, path)) return;
  const listed = policy.localRoots.length > 0 ? `it lists ${policy.localRoots.join(', ')}` : 'it lists none';
  throw new TkomaError('NOT_ALLOWED', `not allowed: local repository ${path} is not under ${LOCAL_ROOTS_SETTING} in tkoma-ref.toml (${listed})`, {
    url,
    path,
    setting: LOCAL_ROOTS_SETTING,
  });
}
