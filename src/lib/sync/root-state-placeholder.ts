/** Placeholder for gitguard's src/lib/root-state.ts (same names); replaced when it lands on main. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

import { gitSync } from '../root-git.js';

export interface RootGitState {
  branch: string | null;
  operation: string | null;
  unmerged: string[];
}

export function gitDirOf(root: string): string | null {
  const dotGit = join(root, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return null;
    return isAbsolute(m[1]!) ? m[1]! : resolve(root, m[1]!);
  } catch {
    return null;
  }
}

export function readRootGitState(root: string): RootGitState {
  const gitDir = gitDirOf(root);
  if (!gitDir) return { branch: null, operation: null, unmerged: [] };
  const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  const op = existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply')) ? 'rebase'
    : existsSync(join(gitDir, 'MERGE_HEAD')) ? 'merge'
    : existsSync(join(gitDir, 'CHERRY_PICK_HEAD')) ? 'cherry-pick'
    : existsSync(join(gitDir, 'REVERT_HEAD')) ? 'revert'
    : existsSync(join(gitDir, 'BISECT_LOG')) ? 'bisect' : null;
  return { branch: ref ? ref[1]! : null, operation: op, unmerged: unmergedPaths(root) };
}

export function unmergedPaths(root: string, paths: string[] = []): string[] {
  const out = gitSync(root, ['ls-files', '-u', '-z', '--', ...paths]);
  const seen = new Set<string>();
  for (const line of out.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) seen.add(line.slice(tab + 1));
  }
  return [...seen].sort();
}
