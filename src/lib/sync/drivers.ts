/**
 * The merge drivers git runs for a topic's note and manifests (merge-topic.ts, merge-records.ts),
 * and their installation: the patterns in the root's committed `.gitattributes` travel with every
 * clone; the commands live in each clone's `.git/config`, written by `init`, by every mutation and
 * by `sync` (so a moved install is followed at the next write). A clone whose config lacks them
 * (a plain `git clone` nobody ran tkoma-ref in) merges these files as text, as git does for any
 * attribute naming a driver it does not know.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fchmodSync, lstatSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { readGitConfig } from '../git-config.js';
import { git, gitSync } from '../root-git.js';
import { mergeRecordsText } from './merge-records.js';
import { mergeTopicText, type TextMerge } from './merge-topic.js';

export const ATTRIBUTES_FILE = '.gitattributes';
const TOPIC_DRIVER = 'tkoma-topic';
const RECORDS_DRIVER = 'tkoma-records';
/** The config keys installDriverConfig compares (git's canonical names). */
export const DRIVER_CONFIG_KEYS = [`merge.${TOPIC_DRIVER}.driver`, `merge.${RECORDS_DRIVER}.driver`];

export const ATTRIBUTE_LINES = [
  '# tkoma-ref: topic notes and manifests merge field by field (`tkoma-ref sync`); a clone without the drivers configured merges them as text.',
  `references/*/topic.md merge=${TOPIC_DRIVER}`,
  `references/*/.tkoma-files.jsonl merge=${RECORDS_DRIVER}`,
  `references/*/.tkoma-skipped.jsonl merge=${RECORDS_DRIVER}`,
];

export type DriverKind = 'topic' | 'records';

const LABELS = ['-L', 'ours', '-L', 'base', '-L', 'theirs'];

/** git merge-file over three texts: the merged text, with markers where it is not clean. */
export const gitMergeText: TextMerge = (base, ours, theirs) => {
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-merge-'));
  try {
    const [b, o, t] = ['base', 'ours', 'theirs'].map((n) => join(dir, n));
    writeFileSync(b!, base);
    writeFileSync(o!, ours);
    writeFileSync(t!, theirs);
    try {
      return { text: execFileSync('git', ['merge-file', '-p', ...LABELS, o!, b!, t!], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }), clean: true };
    } catch (err) {
      const e = err as { status?: number; stdout?: string };
      if (typeof e.status === 'number' && e.status > 0 && typeof e.stdout === 'string') return { text: e.stdout, clean: false };
      throw err;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/**
 * What git asks of a merge driver: merge `ancestor`, `current` and `other` (temporary files) into
 * `current`; exit status 0 when clean, 1 when conflicts are left in it. A side that is not ours to
 * read (a hand-broken note) goes to git's own text merge.
 */
export function runMergeDriver(kind: DriverKind, ancestor: string, current: string, other: string, path = ''): number {
  const [o, a, b] = [ancestor, current, other].map((f) => readFileSync(f, 'utf8'));
  if (kind === 'records') {
    writeFileSync(current, mergeRecordsText(o!, a!, b!).text);
    return 0;
  }
  const merged = mergeTopicText(o!, a!, b!, gitMergeText, path || 'topic.md');
  if (!merged) return textMerge(ancestor, current, other);
  writeFileSync(current, merged.text);
  return merged.conflicts.length > 0 ? 1 : 0;
}

function textMerge(ancestor: string, current: string, other: string): number {
  try {
    execFileSync('git', ['merge-file', ...LABELS, current, ancestor, other], { stdio: 'ignore' });
    return 0;
  } catch {
    return 1;
  }
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The driver command: this install's node and script, by absolute path; `node` from PATH when that
 * node is gone; git's text merge when the script is gone (the tool was moved or uninstalled).
 */
export function driverCommand(kind: DriverKind, script = fileURLToPath(new URL('./merge-driver.js', import.meta.url)), node = process.execPath): string {
  return `n=${quote(node)}; [ -x "$n" ] || n=node; f=${quote(script)}; if [ -f "$f" ]; then "$n" "$f" ${kind} %O %A %B %P; else git merge-file ${LABELS.join(' ')} %A %O %B; fi`;
}

/**
 * Writes the drivers into the root's git config when they are missing or name another install.
 * Cheap when they are in place: one git process reads both (none when the caller read them into
 * `config` with other keys, as runMutation does; see readGitConfig).
 */
export function installDriverConfig(root: string, config: ReadonlyMap<string, string | null> = readGitConfig(root, DRIVER_CONFIG_KEYS)): boolean {
  const keys: [string, string][] = [];
  for (const [name, kind] of [[TOPIC_DRIVER, 'topic'], [RECORDS_DRIVER, 'records']] as const) {
    const want = driverCommand(kind);
    // Trimmed as the `git config --get` output it replaces was.
    if ((config.get(`merge.${name}.driver`) ?? '').trim() === want) continue;
    keys.push([`merge.${name}.name`, `tkoma-ref ${kind === 'topic' ? 'topic note' : 'manifest'} merge`], [`merge.${name}.driver`, want]);
  }
  if (keys.length > 0 && !appendNewSections(root, keys)) for (const [key, value] of keys) gitSync(root, ['config', key, value]);
  return keys.length > 0;
}

/**
 * Writes `keys` (`merge.<driver>.<variable>`) into the root's `.git/config` as the `git config`
 * calls would, byte for byte, in one write instead of a git process each (~20 ms of CPU here; four
 * in every `init` and in a clone's first sync): only when the file has no section of our drivers
 * yet, so each key starts or continues a section at its end, and under git's own lock file, renamed
 * into place with the file's mode as git does. False, having written nothing, whenever that does
 * not hold (a section to edit, `.git` not a folder, git variables naming another repository, the
 * lock taken): then git writes them.
 */
function appendNewSections(root: string, keys: readonly [string, string][]): boolean {
  if (['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_CONFIG', 'GIT_WORK_TREE'].some((v) => process.env[v] !== undefined)) return false;
  const file = join(root, '.git', 'config');
  const lock = `${file}.lock`;
  try {
    if (!lstatSync(join(root, '.git')).isDirectory() || !lstatSync(file).isFile()) return false;
  } catch {
    return false;
  }
  let fd: number | null;
  let renamed = false;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    return false;
  }
  try {
    const text = readFileSync(file);
    if (text.includes(TOPIC_DRIVER) || text.includes(RECORDS_DRIVER)) return false;
    const parts = [text, text.length === 0 || text.at(-1) === 0x0a ? '' : '\n'];
    let section = '';
    for (const [key, value] of keys) {
      const [, name, variable] = /^merge\.([^.]+)\.([a-z]+)$/.exec(key)!;
      if (name !== section) parts.push(`[merge "${name}"]\n`);
      section = name!;
      parts.push(`\t${variable} = ${gitConfigWritten(value)}\n`);
    }
    fchmodSync(fd, statSync(file).mode & 0o7777);
    writeFileSync(fd, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
    closeSync(fd);
    fd = null;
    renameSync(lock, file);
    renamed = true;
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
    // Until renamed the lock is ours to remove; after, the name may be another git's lock.
    if (!renamed) rmSync(lock, { force: true });
  }
}

/** A value as `git config` writes it (config.c, write_pair): quoted when it has `;`, `#` or an outer space. Pure. */
export function gitConfigWritten(value: string): string {
  const quote = /[;#]|^ | $/.test(value) ? '"' : '';
  return `${quote}${value.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}${quote}`;
}

/** The root's .gitattributes text with our lines added (null when they are all there). */
export function withAttributeLines(text: string): string | null {
  const have = new Set(text.split('\n').map((l) => l.trim()));
  const missing = ATTRIBUTE_LINES.filter((l) => !have.has(l));
  if (missing.length === 0) return null;
  if (missing.length === 1 && missing[0]!.startsWith('#')) return null;
  return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`;
}

/** True when the operator has an uncommitted change to .gitattributes: theirs to commit, so we leave it. */
export async function attributesEdited(root: string): Promise<boolean> {
  return (await git(root, ['status', '--porcelain', '--', ATTRIBUTES_FILE])).trim() !== '';
}
