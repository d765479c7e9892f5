/** Real fixtures for end-to-end tests: git repositories, an HTTP server, the built CLI. */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { expect, inject } from 'vitest';

export const PROJECT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(PROJECT, 'bin', 'run.cjs');

export function tmpDir(prefix = 'tkoma-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'upstream', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'upstream', GIT_COMMITTER_EMAIL: 'u@example.com' };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();
}

/**
 * HEAD's commit id, as `git rev-parse HEAD` prints it, read from the loose ref file where there is
 * one: a test-side git process costs ~20 ms of CPU here (a fork of this big worker, then git).
 * A loose ref wins over packed-refs in git too; anything else (packed, a .git file, odd HEAD) asks git.
 */
export function headOf(dir: string): string {
  try {
    const head = readFileSync(join(dir, '.git', 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
    const id = ref ? readFileSync(join(dir, '.git', ...ref.split('/')), 'utf8').trim() : '';
    if (/^[0-9a-f]{40}$/.test(id)) return id;
  } catch {
    // not a plain loose ref: git knows
  }
  return git(dir, 'rev-parse', 'HEAD');
}

let emptyRepo: string | undefined;

/**
 * `git init -q -b main` in `dir`: a copy of one such repository made once per worker (in the run's
 * template folder, removed at the end). init writes no path of its own, so the copy is the same
 * bytes, for a file copy instead of a git process.
 */
function initRepo(dir: string): void {
  if (!emptyRepo || !existsSync(emptyRepo)) {
    const base = inject('rootTemplates');
    if (!base) throw new Error('no rootTemplates folder: run the tests through vitest.config.ts (its globalSetup)');
    const made = mkdtempSync(join(base, 'empty-repo-'));
    git(made, 'init', '-q', '-b', 'main');
    emptyRepo = made;
  }
  cpSync(join(emptyRepo, '.git'), join(dir, '.git'), { recursive: true });
}

/** An upstream repository with files, committed on `main`; returns helpers to change it later. */
export function makeRepo(dir: string, files: Record<string, string | Buffer>) {
  mkdirSync(dir, { recursive: true });
  initRepo(dir);
  const write = (f: Record<string, string | Buffer>) => {
    for (const [p, content] of Object.entries(f)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), content);
    }
  };
  write(files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return {
    dir,
    url: pathToFileURL(dir).href,
    head: () => headOf(dir),
    commit(change: Record<string, string | Buffer>, remove: string[] = [], message = 'change'): string {
      write(change);
      // Deleted by hand, then staged by `add -A`: what `git rm` would leave, without a process each.
      for (const r of remove) rmSync(join(dir, r));
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', message);
      return headOf(dir);
    },
  };
}

/**
 * What an operator writes in the root's tkoma-ref.toml to fetch from this machine, committed as
 * they would: the test HTTP servers on 127.0.0.1 (`[network] allow`) and the test repositories
 * under the temporary folder (`[sources] local_roots`). Without it the policy refuses both.
 */
export function allowLocalSources(root: string, opts: { allow?: string[]; localRoots?: string[] } = {}): void {
  const allow = opts.allow ?? ['127.0.0.1'];
  const localRoots = opts.localRoots ?? [realpathSync(tmpdir())];
  appendFileSync(join(root, 'tkoma-ref.toml'), `\n[network]\nallow = ${JSON.stringify(allow)}\n\n[sources]\nlocal_roots = ${JSON.stringify(localRoots)}\n`);
  git(root, 'commit', '-q', '-m', 'allow sources on this machine', '--', 'tkoma-ref.toml');
}

/** `[approval] mode` for this root, committed as an operator would. */
export function setApprovalMode(root: string, mode: 'operator' | 'token'): void {
  appendFileSync(join(root, 'tkoma-ref.toml'), `\n[approval]\nmode = "${mode}"\n`);
  git(root, 'commit', '-q', '-m', `approval mode ${mode}`, '--', 'tkoma-ref.toml');
}

/** The operator's yes to a pending request, as `tkoma-ref approve ID`; throws when refused. */
export async function operatorApproves(root: string, requestId: unknown): Promise<void> {
  if (typeof requestId !== 'string') throw new Error(`no request_id to approve (got ${JSON.stringify(requestId)})`);
  const r = await cli(['approve', requestId, '--json'], { root });
  if (r.code !== 0) throw new Error(`approve ${requestId} failed: ${r.stdout}${r.stderr}`);
}

export interface Served {
  url: string;
  close: () => Promise<void>;
}

/** A real HTTP server on 127.0.0.1 serving fixed pages by path. */
export async function serve(pages: Record<string, { type: string; body: string; status?: number }>): Promise<Served> {
  const server: Server = createServer((req, res) => {
    const page = pages[req.url ?? '/'];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The environment the binary runs in under test: the caller's, with no embedder and no colour.
 * NODE_EXTRA_CA_CERTS is left out: these machines set it for every process, Node then reads the
 * whole CA bundle at start-up (about 50 ms of CPU a call, measured on `search`), and no test
 * speaks TLS (sources are file:// and http://127.0.0.1).
 */
export function binEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1', ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

let commandIds: Set<string> | undefined;

/** The command a call ran (`topic create`): the longest run of leading words the manifest names. */
function commandWords(args: string[]): string {
  commandIds ??= new Set(Object.keys((JSON.parse(readFileSync(join(PROJECT, 'oclif.manifest.json'), 'utf8')) as { commands: object }).commands).map((id) => id.replace(/:/g, ' ')));
  let best = '';
  for (let n = 1; n <= Math.min(3, args.length); n++) {
    const words = args.slice(0, n).join(' ');
    if (commandIds.has(words)) best = words;
  }
  return best || args.find((a) => a.startsWith('-')) || '(none)';
}

/**
 * Opt-in measurement of where the suite's time goes: with TKOMA_TEST_CLI_LOG=FILE set, each real
 * CLI call the helpers spawn appends one JSON line (test file, command words, wall ms, exit code).
 * Returns the function to call when the process has ended; a no-op without the variable.
 */
export function cliCallTimer(args: string[]): (code: number | string | null) => void {
  const log = process.env.TKOMA_TEST_CLI_LOG;
  if (!log) return () => {};
  const started = performance.now();
  const state = expect.getState();
  return (code) => {
    const line = {
      file: state.testPath ? relative(PROJECT, state.testPath) : '(unknown)',
      test: state.currentTestName ?? '(hook)',
      command: commandWords(args),
      ms: Math.round(performance.now() - started),
      code,
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs the built binary (node bin/run.cjs) as a user would. */
export function cli(args: string[], opts: { root?: string; env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<CliResult> {
  const ended = cliCallTimer(args);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, ...(opts.root ? ['--root', opts.root] : [])], {
      env: binEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      ended(code);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolvePromise({ code: code ?? -1, stdout, stderr, json });
    });
    // A command that answers without reading its input (most do) may exit before this write lands:
    // the pipe's EPIPE is not the command's doing; its exit code and output are what is judged.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}
