/**
 * Runs the system git safely: no shell, a fixed allow-list of transports, no prompts, no hooks,
 * a timeout that kills the whole process group (remote helpers and ssh included).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { TkomaError } from '../errors.js';
import { keepMallocHeap } from '../git-malloc.js';
import type { SourcePolicy } from '../net/policy.js';
import { gitRemoteArgs } from './git-policy.js';
import { redactUrl } from './git-url.js';

export interface GitRunOptions {
  cwd?: string;
  /** The remote is a file:// URL: the call may use the file transport (only with `remote`). */
  allowFile?: boolean;
  timeoutMs?: number;
  /**
   * Written to git's stdin, which is otherwise closed. Pieces are written as git reads them: a
   * large input need not exist whole (a 692k-file pack's fast-import commands were 52 MB).
   */
  input?: string | Iterable<string>;
  /**
   * The remote this call talks to (a URL): checked against `policy` before git starts, and for
   * http(s) pinned to the checked address (src/lib/sources/git-policy.ts). Without it the call
   * may use no transport at all (see Transports).
   */
  remote?: string;
  policy?: SourcePolicy;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

export const DEFAULT_NETWORK_TIMEOUT_MS = 300_000;
export const DEFAULT_LOCAL_TIMEOUT_MS = 60_000;
const MAX_STDOUT_BYTES = 256 * 1024 * 1024;
const MAX_STDERR_CHARS = 64 * 1024;

/** A git process that exited non-zero or ran out of time. Callers turn it into a TkomaError. */
export class GitFailure extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
    readonly exitCode: number | null,
    readonly timedOut: boolean,
  ) {
    super(timedOut ? 'git timed out' : `git exited with ${exitCode}`);
    this.name = 'GitFailure';
  }
}

// Environment variables that would point our git at some other repository (e.g. when tkoma-ref
// runs inside a git hook).
const REPO_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_SHALLOW_FILE',
];

/**
 * The transports one git call may use. A call with no remote works in a local repository (our
 * snapshot, the staging folder, or a local source's own store): it gets none, so an object missing
 * there stays missing instead of being fetched from a promisor remote, which would reach a
 * source's origin before approval and past the network policy. A file:// remote gets file only
 * (its upload-pack inherits that, so a partial clone behind it cannot reach its own origin); any
 * other remote the network ones.
 */
export type Transports = 'none' | 'file' | 'network';

const ALLOWED: Record<Transports, string[]> = { none: [], file: ['file'], network: ['https', 'http', 'ssh'] };

function transportsOf(opts: GitRunOptions): Transports {
  if (opts.remote === undefined) return 'none';
  return opts.allowFile ? 'file' : 'network';
}

export function gitEnv(transports: Transports): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of REPO_ENV) delete env[k];
  return keepMallocHeap({
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    // Set but empty: git then skips core.askPass and SSH_ASKPASS as well, and fails instead of asking.
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    // Overrides any protocol.* configuration, including a user's GIT_ALLOW_PROTOCOL; empty allows none.
    GIT_ALLOW_PROTOCOL: ALLOWED[transports].join(':'),
    GIT_LFS_SKIP_SMUDGE: '1',
    // Parseable, untranslated messages.
    LC_ALL: 'C',
    LANGUAGE: '',
  });
}

export function safetyConfig(transports: Transports): string[] {
  const cfg = [
    'protocol.allow=never',
    ...ALLOWED[transports].map((t) => `protocol.${t}.allow=always`),
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    // Keep the repository's bytes regardless of the user's line-ending settings.
    'core.autocrlf=false',
    'submodule.recurse=false',
    'maintenance.auto=false',
    'gc.auto=0',
    'advice.detachedHead=false',
    'init.defaultBranch=main',
  ];
  return cfg.flatMap((c) => ['-c', c]);
}

/**
 * `git fetch` options for the server side. Of a file:// remote it runs on this machine, where a
 * delta search only costs CPU (deltas save bytes on a wire, and there is none): without it the
 * server packed SciFact's 5,183 blobs with 0.4 s of CPU instead of 0.95 s. The command is fixed;
 * git quotes the repository path itself.
 */
export function uploadPackArgs(local: boolean): string[] {
  return local ? ['--upload-pack=git -c pack.window=0 upload-pack'] : [];
}

/**
 * Starts git in its own process group (detached = setsid): it has no controlling terminal, so ssh
 * cannot prompt for host keys or passphrases, and a timeout can kill every descendant at once.
 */
export function spawnGit(args: string[], opts: GitRunOptions = {}): ChildProcess {
  const transports = transportsOf(opts);
  try {
    return spawn('git', [...safetyConfig(transports), ...args], {
      cwd: opts.cwd,
      env: gitEnv(transports),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      windowsHide: true,
    });
  } catch (err) {
    throw gitUnavailable(err);
  }
}

function gitUnavailable(err: unknown): TkomaError {
  return new TkomaError('GIT_UNAVAILABLE', 'The git program could not be started; install git 2.25 or newer', {
    cause: err instanceof Error ? err.message : String(err),
  });
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/**
 * Runs git to completion. Resolves with its output, rejects with GitFailure, GIT_UNAVAILABLE, or
 * NOT_ALLOWED when `opts.remote` breaks the network policy (then git never starts).
 */
export async function runGit(args: string[], opts: GitRunOptions = {}): Promise<GitResult> {
  const guarded = opts.remote !== undefined ? [...(await gitRemoteArgs(opts.remote, opts.policy)), ...args] : args;
  return runGitNow(guarded, opts);
}

function runGitNow(args: string[], opts: GitRunOptions): Promise<GitResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCAL_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, opts);
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let timedOut = false;
    let overflow = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_STDOUT_BYTES) {
        overflow = true;
        killGroup(child);
        return;
      }
      out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += d.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err.code === 'ENOENT' ? gitUnavailable(err) : err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (overflow) stderr += '\noutput too large';
      if (code === 0 && !timedOut && !overflow) resolve({ stdout: Buffer.concat(out), stderr });
      else reject(new GitFailure(args, stderr, code, timedOut));
    });
    child.stdin!.on('error', () => {
      /* git may exit before reading its input; the exit code tells the story */
    });
    if (typeof opts.input === 'string' || opts.input === undefined) child.stdin!.end(opts.input ?? '');
    else Readable.from(opts.input).pipe(child.stdin!);
  });
}

/**
 * The lines of git's stderr that explain a failure, credentials removed, kept short. Progress and
 * warnings are dropped unless nothing else is left.
 */
export function summariseGitStderr(stderr: string, maxChars = 400): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => redactUrl(l.trim()))
    .filter((l) => l !== '');
  const important = lines.filter((l) => /^(fatal|error|remote|ssh|Permission denied|Host key)/i.test(l));
  const chosen = (important.length > 0 ? important : lines.filter((l) => !/^warning:/i.test(l))).slice(-3);
  const text = chosen.join(' | ');
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** Turns a failed git call into the TkomaError a user sees. */
export function gitError(
  err: unknown,
  code: 'SOURCE_UNREACHABLE' | 'FETCH_FAILED',
  what: string,
  url: string,
): TkomaError {
  if (err instanceof TkomaError) return err;
  if (err instanceof GitFailure) {
    const reason = err.timedOut ? 'timed out' : summariseGitStderr(err.stderr) || `git exited with ${err.exitCode}`;
    return new TkomaError(code, `${what}: ${reason}`, { url: redactUrl(url), git: reason, timed_out: err.timedOut });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new TkomaError(code, `${what}: ${message}`, { url: redactUrl(url) });
}
