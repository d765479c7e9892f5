/**
 * The root's git config, read the way git reads it: the keys a mutation or a sync needs, in one
 * `git config -z --get-regexp` process, and boolean values as `git config --type=bool` reads them.
 */
import { execFileSync } from 'node:child_process';

import { gitEnv } from './root-git.js';

/**
 * `git config -z --get-regexp` output: each key (git's canonical name: section and variable in
 * lower case) with its last value, as `git config --get` answers; null for a key written without
 * `=` (`[commit] gpgSign`), which git reads as true.
 */
export function parseConfigList(out: string): Map<string, string | null> {
  const values = new Map<string, string | null>();
  for (const rec of out.split('\0')) {
    if (rec === '') continue;
    const nl = rec.indexOf('\n');
    values.set(nl < 0 ? rec : rec.slice(0, nl), nl < 0 ? null : rec.slice(nl + 1));
  }
  return values;
}

/**
 * The root's config values of exactly `keys` (canonical names, see parseConfigList) in one git
 * process, where a `git config --get` per key cost a process each; a key that is not set is
 * absent, and so is every key when git fails (as each `--get` failing read as unset).
 */
export function readGitConfig(root: string, keys: readonly string[]): Map<string, string | null> {
  return readGitConfigMatching(root, keyPattern(keys)) ?? new Map();
}

/** A --get-regexp pattern matching exactly `keys`. */
export function keyPattern(keys: readonly string[]): string {
  return `^(${keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
}

/**
 * The root's config keys matching `pattern` (see readGitConfig); empty when none is set (git's
 * exit 1), null when git failed otherwise (a config file it cannot read).
 */
export function readGitConfigMatching(root: string, pattern: string): Map<string, string | null> | null {
  try {
    return parseConfigList(execFileSync('git', ['config', '-z', '--get-regexp', pattern], { cwd: root, env: gitEnv({}), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 }));
  } catch (err) {
    return (err as { status?: number }).status === 1 ? new Map() : null;
  }
}

/**
 * A config value read as `git config --type=bool` reads it: no `=` is true, empty is false,
 * true/yes/on and false/no/off in any case, else an integer (0x hex, 0 octal, k/m/g suffix) that
 * is true when not 0. A value git refuses (`maybe`, past ±INT_MAX) is false, as a refused
 * `git config --type=bool --get` read before; unset (undefined) is false.
 */
export function configBool(value: string | null | undefined): boolean {
  if (value === undefined) return false;
  if (value === null) return true;
  if (value === '') return false;
  const word = value.toLowerCase();
  if (word === 'true' || word === 'yes' || word === 'on') return true;
  if (word === 'false' || word === 'no' || word === 'off') return false;
  const m = /^\s*([+-]?)(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)([kmg]?)$/i.exec(value);
  if (!m) return false;
  const digits = m[2]!.toLowerCase();
  const magnitude = digits.startsWith('0x') ? parseInt(digits.slice(2), 16) : digits.startsWith('0') ? parseInt(digits, 8) : parseInt(digits, 10);
  const unit = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 }[m[3]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  const n = (m[1] === '-' ? -magnitude : magnitude) * unit;
  // git's range check: |n| up to INT_MAX (so INT_MIN itself is refused).
  return n !== 0 && Math.abs(n) <= 2 ** 31 - 1;
}
