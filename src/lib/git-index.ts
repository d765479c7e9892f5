/**
 * Git's index file read here, for the `git ls-files` questions the tool asks most (unmerged paths
 * before every mutation and in `topic list`, the entries saved before a commit, the paths a
 * commit's temporary index holds): a git process costs ~20 ms of CPU on this machine, reading the
 * file well under 1 ms. Only what this reader knows for sure is answered: format versions 2 and 3
 * with SHA-1 ids and a checksum that matches (git refuses a file whose checksum does not), no
 * extended entry flags (skip-worktree, intent-to-add) and no extension git requires readers to
 * understand (a split index's `link`, a sparse index's `sdir`). Anything else is null, and the
 * caller asks git as before.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface IndexEntry {
  /** As `git ls-files -s` prints it: octal, six digits. */
  mode: string;
  oid: string;
  stage: number;
  path: string;
}

/**
 * Which entries to decode: those at `paths` or under them (plain pathspecs: plainPathspecs; all
 * when empty), and only unmerged ones (stage 1–3) with `unmerged`. Entries are matched on their
 * bytes, as git does, and only those kept are decoded: a 200,000-entry index is then a scan.
 */
export interface IndexSelect {
  paths?: readonly string[];
  unmerged?: boolean;
}

/** The entries of an index file's bytes in their order, as `select` picks them, or null (see the module comment). */
export function readIndexEntries(buf: Buffer, select: IndexSelect = {}): IndexEntry[] | null {
  if (buf.length < 12 + 20 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const end = buf.length - 20;
  const sum = buf.subarray(end);
  if (!createHash('sha1').update(buf.subarray(0, end)).digest().equals(sum)) return null;
  const prefixes = (select.paths ?? []).map((p) => Buffer.from(p, 'utf8'));
  const under = (at: number, len: number): boolean =>
    prefixes.length === 0 || prefixes.some((p) => len >= p.length && buf.compare(p, 0, p.length, at, at + p.length) === 0 && (len === p.length || buf[at + p.length] === 0x2f));
  const count = buf.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) return null;
    const flags = buf.readUInt16BE(at + 60);
    if (flags & 0x4000) return null; // extended flags follow
    const nameAt = at + 62;
    let nameLen = flags & 0x0fff;
    if (nameLen === 0x0fff) nameLen = buf.indexOf(0, nameAt) - nameAt;
    if (nameLen < 0 || nameAt + nameLen >= end || buf[nameAt + nameLen] !== 0) return null;
    const stage = (flags >> 12) & 3;
    if ((!select.unmerged || stage > 0) && under(nameAt, nameLen)) {
      entries.push({
        mode: buf.readUInt32BE(at + 24).toString(8).padStart(6, '0'),
        oid: buf.toString('hex', at + 40, at + 60),
        stage,
        path: buf.toString('utf8', nameAt, nameAt + nameLen),
      });
    }
    // 62 bytes of fields, the name, then 1–8 NULs up to a multiple of 8
    at += (62 + nameLen + 8) & ~7;
  }
  // Extensions: an upper-case first letter marks one a reader may pass over.
  while (at + 8 <= end) {
    const first = buf[at]!;
    if (first < 0x41 || first > 0x5a) return null;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return at === end ? entries : null;
}

/**
 * Past this size git is asked: reading, checking and scanning the file here costs about what git
 * does per megabyte (a 24 MB, 200,000-entry index: ~0.25–0.3 s either way), so only the ~20 ms of
 * a git process is saved, and only where the file is small.
 */
const MAX_INDEX_BYTES = 8 * 1024 * 1024;

/** The index entries of the file at `file` (none when it does not exist), or null as readIndexEntries. */
export function readIndexFile(file: string, select: IndexSelect = {}): IndexEntry[] | null {
  let buf: Buffer;
  try {
    if (statSync(file).size > MAX_INDEX_BYTES) return null;
    buf = readFileSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? [] : null;
  }
  return readIndexEntries(buf, select);
}

/**
 * Whether git would read `paths` (root-relative, as given after `--`) as plain names: no glob
 * characters or magic, nothing to normalise, and no variable that changes how git reads them.
 * Then an entry matches exactly when it is one of them or lies under one (IndexSelect).
 */
export function plainPathspecs(paths: readonly string[]): boolean {
  if (Object.keys(process.env).some((k) => k.startsWith('GIT_') && k.endsWith('_PATHSPECS'))) return false;
  return paths.every((p) => p !== '' && !/[*?[\\]/.test(p) && !p.startsWith(':') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'));
}

/**
 * The index file git reads in the repository whose git directory is `gitDir`, or null where git
 * must be asked: its variables may point it elsewhere, or the directory is not the user's own
 * (git refuses such a repository unless `safe.directory` says otherwise, and the caller's git
 * failing was part of its answer).
 */
export function indexFileOf(gitDir: string | null): string | null {
  return gitDir && !process.env.GIT_INDEX_FILE && ownGitDir(gitDir) ? join(gitDir, 'index') : null;
}

/** `gitDir` is what git would read here: no variable points it elsewhere, and it is the user's own (see indexFileOf). */
export function ownGitDir(gitDir: string): boolean {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return false;
  try {
    return typeof process.getuid === 'function' && statSync(gitDir).uid === process.getuid();
  } catch {
    return false;
  }
}
