/**
 * The built CLI as a user runs it (`node bin/run.cjs …`), timed from spawn to exit, plus long-running
 * children (`watch`, `serve`) read line by line. Peak memory of short-lived children comes from a
 * preloaded exit hook that prints getrusage's maxRSS to stderr (only when asked, so timed runs
 * carry no extra work).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

import { PROJECT } from './store.js';

export const BIN = join(PROJECT, 'bin', 'run.cjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
  ms: number;
  /** Child's peak RSS in MB when `measureRss` was set. */
  rssMb?: number;
}

const RSS_HOOK = "import{writeSync}from'node:fs';process.on('exit',()=>{writeSync(2,' @@maxrss '+process.resourceUsage().maxRSS+' ')})";

/** Fails early when dist/ is missing, warns when sources are newer than the build. */
export function checkBuilt(): void {
  const built = join(PROJECT, 'dist', 'commands', 'search.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: run `npm run build` before the CLI benchmarks');
  const src = ['src/lib/search/search.ts', 'src/commands/search.ts', 'src/lib/index/sync.ts'].map((p) => join(PROJECT, p));
  const stale = src.filter((p) => existsSync(p) && statSync(p).mtimeMs > statSync(built).mtimeMs + 1000);
  if (stale.length) process.stderr.write(`warning: sources newer than dist/ (${stale.map((p) => p.slice(PROJECT.length + 1)).join(', ')}): run \`npm run build\`\n`);
}

export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', TKOMA_REF_EMBEDDER: 'none', ...extra };
}

export function runCli(args: string[], opts: { measureRss?: boolean; env?: Record<string, string> } = {}): Promise<CliRun> {
  const nodeArgs = opts.measureRss ? ['--import', `data:text/javascript,${encodeURIComponent(RSS_HOOK)}`] : [];
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      const m = /@@maxrss (\d+)/.exec(stderr);
      resolve({ code: code ?? -1, stdout, stderr, json, ms, ...(m ? { rssMb: Number(m[1]) / 1024 } : {}) });
    });
  });
}

export interface LongRunning {
  child: ChildProcess;
  /** Resolves with the first stdout line (parsed as JSON when it is) that `match` accepts. */
  next(match: (line: any) => boolean, timeoutMs?: number): Promise<any>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns `node bin/run.cjs …args` and reads its stdout as JSON lines. */
export function spawnCli(args: string[], env: Record<string, string> = {}): LongRunning {
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: any[] = [];
  let waiters: { match: (l: any) => boolean; resolve: (l: any) => void }[] = [];
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  createInterface({ input: child.stdout! }).on('line', (raw) => {
    let line: any = raw;
    try {
      line = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    const w = waiters.find((x) => x.match(line));
    if (w) {
      waiters = waiters.filter((x) => x !== w);
      w.resolve(line);
    } else lines.push(line);
  });
  return {
    child,
    next(match, timeoutMs = 900_000) {
      const i = lines.findIndex(match);
      if (i >= 0) return Promise.resolve(lines.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for output of ${args.join(' ')}; stderr: ${err.slice(-2000)}`)), timeoutMs);
        const onExit = (): void => reject(new Error(`${args.join(' ')} exited (${child.exitCode}); stderr: ${err.slice(-2000)}`));
        child.once('exit', onExit);
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            child.off('exit', onExit);
            resolve(l);
          },
        });
      });
    },
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}
