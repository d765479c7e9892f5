/**
 * Git operations on the knowledge root: every mutation becomes exactly one readable commit.
 * We call the git binary directly (execFile, never a shell): it is ~4x faster than isomorphic-git
 * at adding many files (STACK.md) and gives us the exact flags we need.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { TkomaError } from './errors.js';

export interface CommitAuthor {
  ghost?: string;
  model?: string;
}

const TOOL_NAME = 'tkoma-ref';
const TOOL_EMAIL = 'tkoma-ref@localhost';

function gitEnv(author: CommitAuthor): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    // The committer is always the tool; the author is the ghost (and its model) when given, so
    // `git log --format='%an'` tells who asked for each change.
    GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME || TOOL_NAME,
    GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL || TOOL_EMAIL,
  };
  if (author.ghost || author.model) {
    const name = [author.ghost, author.model ? `(${author.model})` : ''].filter(Boolean).join(' ');
    env.GIT_AUTHOR_NAME = name;
    env.GIT_AUTHOR_EMAIL = `${slugEmail(author.ghost || author.model || 'ghost')}@ghosts.tkoma-ref`;
  } else {
    env.GIT_AUTHOR_NAME = process.env.GIT_AUTHOR_NAME || TOOL_NAME;
    env.GIT_AUTHOR_EMAIL = process.env.GIT_AUTHOR_EMAIL || TOOL_EMAIL;
  }
  return env;
}

function slugEmail(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'ghost';
}

export function git(cwd: string, args: string[], author: CommitAuthor = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd, env: gitEnv(author), maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          reject(new TkomaError('GIT_UNAVAILABLE', 'git is not installed or not on PATH'));
          return;
        }
        reject(new TkomaError('INTERNAL', `git ${args[0]} failed in ${cwd}: ${String(stderr || err.message).trim()}`));
        return;
      }
      resolvePromise(stdout);
    });
  });
}

export async function ensureRepo(root: string): Promise<void> {
  if (existsSync(join(root, '.git'))) return;
  await git(root, ['init', '-q', '-b', 'main']);
}

/**
 * Stages everything under `paths` (default: the whole root, .tkoma/ is ignored by .gitignore)
 * and commits it. Returns the new commit's sha, or null when there was nothing to commit.
 */
export async function commitAll(root: string, message: string, author: CommitAuthor, paths: string[] = ['.']): Promise<string | null> {
  await git(root, ['add', '-A', '--', ...paths]);
  const staged = await git(root, ['diff', '--cached', '--name-only', '-z']);
  if (staged.length === 0) return null;
  await git(root, ['commit', '-q', '--no-verify', '-m', message], author);
  return (await git(root, ['rev-parse', 'HEAD'])).trim();
}

/** True when the work tree under `paths` has changes git has not committed. */
export async function hasUncommitted(root: string, paths: string[] = ['.']): Promise<boolean> {
  const out = await git(root, ['status', '--porcelain', '--', ...paths]);
  return out.trim().length > 0;
}

/** Undo uncommitted changes under `paths` (used to roll back a failed mutation). */
export async function discardChanges(root: string, paths: string[]): Promise<void> {
  await git(root, ['reset', '-q', '--', ...paths]).catch(() => undefined);
  await git(root, ['checkout', '-q', '--', ...paths]).catch(() => undefined);
  await git(root, ['clean', '-fdq', '--', ...paths]).catch(() => undefined);
}
