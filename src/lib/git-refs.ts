/**
 * HEAD and branch tips read from the files in `.git`, where that is sure, to spare a `git
 * rev-parse` process (~20 ms of CPU each); undefined wherever refs or objects may live elsewhere,
 * and the caller asks git.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

import { ownGitDir } from './git-index.js';

/**
 * HEAD's commit and that commit's tree as `git rev-parse HEAD^{commit} HEAD^{tree}` answers them,
 * read from `.git` where that is sure: HEAD naming a branch whose ref file (or packed-refs) names
 * a loose commit object, no replace refs, no git variable pointing elsewhere, the user's own
 * repository. Undefined otherwise (a packed commit, a linked worktree, reftable, …): git is asked.
 * A sync asks for HEAD four times; each `git rev-parse` cost ~20 ms of CPU (a mutation asks once:
 * reading it there saved 3–4% of an update or delete, under the 5% a trick must show).
 */
export function headFromObjects(root: string): { head: string; tree: string } | undefined {
  const gitDir = join(root, '.git');
  if (REPLACE_ENV.some((k) => process.env[k] !== undefined) || !ownGitDir(gitDir)) return undefined;
  const head = headFromFiles(gitDir);
  if (!head || hasReplaceRefs(gitDir)) return undefined;
  try {
    const raw = inflateSync(readFileSync(join(gitDir, 'objects', head.slice(0, 2), head.slice(2))));
    const nul = raw.indexOf(0);
    const header = /^commit (\d+)$/.exec(raw.toString('latin1', 0, Math.max(0, nul)));
    if (!header || Number(header[1]) !== raw.length - nul - 1) return undefined;
    const tree = new RegExp(`^tree ([0-9a-f]{${head.length}})\n`).exec(raw.toString('latin1', nul + 1, nul + 1 + 6 + head.length));
    return tree ? { head, tree: tree[1]! } : undefined;
  } catch {
    return undefined; // not loose (packed), or unreadable: git knows
  }
}

/** Variables that change which object git reads for a name, or where it looks. */
const REPLACE_ENV = ['GIT_NO_REPLACE_OBJECTS', 'GIT_REPLACE_REF_BASE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES'];

/** Any `refs/replace/` ref, loose or packed: git would read a replacement for a commit. */
function hasReplaceRefs(gitDir: string): boolean {
  try {
    if (readdirSync(join(gitDir, 'refs', 'replace')).length > 0) return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return true;
  }
  try {
    return readFileSync(join(gitDir, 'packed-refs'), 'utf8').includes(' refs/replace/');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * HEAD's commit read from `.git` (HEAD naming a branch, see branchRefFromFiles), as `git rev-parse
 * HEAD` answers it; undefined for anything else (a detached head, a linked worktree, reftable),
 * which git is then asked about.
 */
export function headFromFiles(gitDir: string): string | undefined {
  try {
    const head = /^ref: refs\/heads\/([^\n]+)\n?$/.exec(readFileSync(join(gitDir, 'HEAD'), 'utf8'));
    if (!head || head[1]!.split('/').some((part) => part === '..' || part === '')) return undefined;
    return branchRefFromFiles(gitDir, head[1]!);
  } catch {
    return undefined;
  }
}

/**
 * The branch's commit as its ref file says (loose, else `packed-refs`, the order git reads them
 * in), or undefined wherever refs may live elsewhere (a linked worktree's common folder, reftable,
 * a symbolic ref) or the files say nothing clear: then git is asked.
 */
export function branchRefFromFiles(gitDir: string, branch: string): string | undefined {
  if (existsSync(join(gitDir, 'commondir')) || existsSync(join(gitDir, 'reftable'))) return undefined;
  const ref = `refs/heads/${branch}`;
  try {
    const loose = readFileSync(join(gitDir, ref), 'utf8');
    return /^[0-9a-f]{40}(?:[0-9a-f]{24})?\n?$/.test(loose) ? loose.trim() : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  try {
    for (const line of readFileSync(join(gitDir, 'packed-refs'), 'utf8').split('\n')) {
      const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (.+)$/.exec(line);
      if (m && m[2] === ref) return m[1];
    }
  } catch {
    // no packed-refs
  }
  return undefined;
}
