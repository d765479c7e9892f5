/**
 * Helpers for crash and concurrency tests: the real binary as a child process we can signal,
 * byte-for-byte snapshots of the references, and the consistency checks every scenario ends with.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { expect } from 'vitest';

import { BIN, binEnv, cli, cliCallTimer, type CliResult, git } from './fixtures.js';

export interface Running {
  child: ChildProcess;
  /** Resolves when stderr has printed a line matching `re`. */
  waitForStderr(re: RegExp): Promise<void>;
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/** Like fixtures.cli, but returns at once so the test can signal the process. */
export function start(args: string[], opts: { root: string; env?: Record<string, string> }): Running {
  const ended = cliCallTimer(args);
  const child = spawn(process.execPath, [BIN, ...args, '--root', opts.root], {
    env: binEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => {
    stderr += d;
    for (const w of [...waiters]) {
      if (w.re.test(stderr)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      ended(code ?? signal);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: code ?? -1, signal, stdout, stderr, json });
    });
  });
  return {
    child,
    done,
    waitForStderr: (re) =>
      new Promise<void>((resolve, reject) => {
        if (re.test(stderr)) return resolve();
        waiters.push({ re, resolve });
        void done.then(() => reject(new Error(`process ended before ${re}: ${stderr}`)));
      }),
  };
}

/** Runs a command that must kill itself at `point` (TKOMA_REF_CRASH_AT). */
export async function crashAt(point: string, args: string[], root: string): Promise<void> {
  const r = await start(args, { root, env: { TKOMA_REF_CRASH_AT: point } }).done;
  expect(r.signal, `${point} did not crash: ${r.stdout}${r.stderr}`).toBe('SIGKILL');
}

/** Every file under `dir` (recursively) → sha256 of its bytes. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export function commitCount(root: string): number {
  return Number(git(root, 'rev-list', '--count', 'HEAD'));
}

function listOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Leftovers a finished or recovered command must not leave in `.tkoma/`. */
export function leftovers(root: string): string[] {
  const state = join(root, '.tkoma');
  return [
    ...listOrEmpty(join(state, 'journal')).map((n) => `journal/${n}`),
    ...listOrEmpty(join(state, 'staging')).map((n) => `staging/${n}`),
    ...listOrEmpty(state).filter((n) => n.endsWith('.lock') || n.includes('.lock-tmp') || n.includes('.gone.')),
  ];
}

/**
 * The repository is sound (fsck clean, HEAD valid, history linear, nothing uncommitted), no
 * leftovers remain, and `topic list` shows exactly `topics`.
 */
export async function expectConsistent(root: string, topics: string[]): Promise<void> {
  const list = await cli(['topic', 'list', '--include-obsolete', '--json'], { root });
  expect(list.code, list.stdout + list.stderr).toBe(0);
  expect((list.json as { topic_id: string }[]).map((t) => t.topic_id).sort()).toEqual([...topics].sort());
  expectClean(root);
}

/** The repository half of expectConsistent, without running a command. */
export function expectClean(root: string): void {
  const fsck = execFileSync('git', ['fsck', '--no-progress', '--no-dangling'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(fsck.trim()).toBe('');
  // One status for two questions: its branch header names HEAD's commit ("(initial)" if none), and
  // its other lines are what is uncommitted.
  const status = git(root, 'status', '--porcelain=v2', '--branch', '--untracked-files=all').split('\n');
  expect(status.find((l) => l.startsWith('# branch.oid '))).toMatch(/^# branch\.oid [0-9a-f]{40}$/);
  expect(git(root, 'rev-list', '--merges', 'HEAD')).toBe('');
  expect(status.filter((l) => l !== '' && !l.startsWith('# '))).toEqual([]);
  expect(leftovers(root)).toEqual([]);
}

/** Paths of the hits a search returns (the topic's folder is not consulted). */
export async function searchPaths(root: string, query: string, topic?: string): Promise<string[]> {
  const r = await cli(['search', query, ...(topic ? ['--topic', topic] : []), '--json'], { root });
  if (r.code !== 0) return [`error: ${r.stdout}${r.stderr}`];
  return (r.json.results as { topic_id: string; path: string }[]).map((h) => `${h.topic_id}/${h.path}`);
}

/** A git source whose README carries `word`, and a create request for it. */
export function createArgs(id: string, url: string, extra: Record<string, unknown> = {}): string[] {
  return ['topic', 'create', '--yes', '--json', '--input', JSON.stringify({ topic_id: id, title: `Topic ${id}`, sources: [{ type: 'git', url }], ...extra })];
}

export async function mustRun(args: string[], root: string, env?: Record<string, string>): Promise<CliResult> {
  const r = await cli(args, { root, env });
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r;
}
