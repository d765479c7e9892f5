/**
 * A benchmark repository made from another git repository's HEAD: its files (regular files only:
 * no symbolic link or submodule; a blob the source lacks, as in a partial mirror, is left out),
 * committed into a fresh repository under .bench-work/ with repoFromFiles. `keep` picks paths.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { type Repo, repoFromFiles } from './corpus.js';

/** `--git-dir` for a work tree (its .git) or a bare repository (the folder itself). */
function gitDirOf(path: string): string {
  return existsSync(join(path, '.git')) ? join(path, '.git') : path;
}

function gitIn(gitDir: string, args: string[], input?: string): Buffer {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { input, maxBuffer: 1024 * 2 ** 20, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** HEAD's commit of the repository at `path`, or null when it is not a readable repository. */
export function headCommit(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    return gitIn(gitDirOf(path), ['rev-parse', '--verify', 'HEAD^{commit}']).toString('utf8').trim();
  } catch {
    return null;
  }
}

/** The regular files of HEAD at `source` that `keep` accepts, as a repository in `dir`. */
export function repoFromGitHead(dir: string, source: string, keep: (path: string) => boolean, label: string): Promise<Repo> {
  const gitDir = gitDirOf(source);
  const commit = headCommit(source);
  if (!commit) throw new Error(`not a git repository with a HEAD: ${source}`);
  return repoFromFiles(dir, `${label}:${commit}`, function* () {
    const entries = gitIn(gitDir, ['ls-tree', '-r', '-z', '--full-tree', commit])
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode, type, sha] = line.slice(0, tab).split(' ');
        return { mode, type, sha: sha!, path: line.slice(tab + 1) };
      })
      .filter((e) => e.type === 'blob' && (e.mode === '100644' || e.mode === '100755') && keep(e.path));
    for (const e of entries) {
      let bytes: Buffer;
      try {
        bytes = gitIn(gitDir, ['cat-file', 'blob', e.sha]);
      } catch {
        continue; // not in this copy (a partial mirror leaves its largest blobs out)
      }
      yield [e.path, bytes] as [string, Uint8Array];
    }
  });
}
