/**
 * Vectors are built in the background, one builder per knowledge root at a time (the root's
 * `vectors` lock, `.tkoma/vectors.lock`, names its pid; a killed builder's lock is broken by the
 * next one, and the embedding cache gives it back everything already embedded).
 *
 * - `requestVectors(root)`: what create/refresh/`index embedder set` call: notes that work is
 *   wanted, and starts a detached worker at low OS priority unless a builder already runs (that
 *   one sees the request before it exits).
 * - `startVectorBuilder(root)`: the hook for long-running processes (watch, serve, mcp): requests
 *   vectors at start, whenever `kick()` is called (after a sync) and every few minutes. The
 *   embedding itself runs in the worker process, so a server's answers never wait for a model.
 * - `runVectorWorker(root)`: the worker's body (worker.ts runs it; `index embed` runs the same
 *   builder in the foreground).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { readHolder, lockPath, holderAlive, tryAcquire, type LockHolder } from '../lock.js';
import { envSetting, settingEnv } from '../settings.js';
import { readConfig } from '../store/config.js';
import { stateDir } from '../store/root-path.js';

export const WORKER_COMMAND = 'tkoma-ref vectors worker';

const wantedFile = (root: string): string => join(stateDir(root), 'vectors.wanted');
export const workerLogFile = (root: string): string => join(stateDir(root), 'vectors.log');

/** The process building vectors for this root now, if any. */
export function vectorBuilder(root: string): LockHolder | null {
  const h = readHolder(lockPath(root, 'vectors'));
  return h && holderAlive(h) ? h : null;
}

function touchWanted(root: string): void {
  const f = wantedFile(root);
  mkdirSync(stateDir(root), { recursive: true });
  const now = new Date();
  try {
    utimesSync(f, now, now);
  } catch {
    writeFileSync(f, '');
  }
}

export function wantedSince(root: string): number {
  try {
    return statSync(wantedFile(root)).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Whether background vectors are off for this process: TKOMA_REF_VECTOR_WORKER=off, an embedder
 * "none" from the environment, or a root that records "none".
 */
export async function backgroundDisabled(root: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (envSetting('vectorWorker', env)?.toLowerCase() === 'off') return `${settingEnv('vectorWorker')}=off`;
  if (envSetting('embedder', env)?.toLowerCase() === 'none') return `${settingEnv('embedder')}=none`;
  const config = await readConfig(root).catch(() => null);
  if (config?.embedding.recorded === 'none') return 'this knowledge root records embedder "none"';
  return null;
}

/** How the worker module is started: the compiled .js directly, the TypeScript source through tsx. */
export function workerCommand(): { file: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx');
    return { file: fileURLToPath(new URL('./worker.ts', here)), execArgv: ['--import', tsx] };
  }
  return { file: fileURLToPath(new URL('./worker.js', here)), execArgv: [] };
}

export interface SpawnResult {
  started: boolean;
  pid?: number;
  /** Why no worker was started (one already runs, background work is off). */
  reason?: string;
}

/** Starts a detached worker for `root` unless one runs. Its output goes to .tkoma/vectors.log. */
export function spawnVectorWorker(root: string, env: NodeJS.ProcessEnv = process.env): SpawnResult {
  const running = vectorBuilder(root);
  if (running) return { started: false, pid: running.pid, reason: `a builder runs (pid ${running.pid})` };
  const { file, execArgv } = workerCommand();
  mkdirSync(stateDir(root), { recursive: true });
  // The log only needs its recent past.
  if ((statSync(workerLogFile(root), { throwIfNoEntry: false })?.size ?? 0) > 1_000_000) writeFileSync(workerLogFile(root), '');
  const log = openSync(workerLogFile(root), 'a');
  try {
    const child = spawn(process.execPath, [...execArgv, file, root], {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...env, [settingEnv('root')]: root },
    });
    child.unref();
    return { started: true, pid: child.pid };
  } finally {
    closeSync(log);
  }
}

/** create/refresh/embedder set: there is vector work to do; a builder takes it now or soon. */
export async function requestVectors(root: string, env: NodeJS.ProcessEnv = process.env): Promise<SpawnResult> {
  const off = await backgroundDisabled(root, env);
  if (off) return { started: false, reason: off };
  touchWanted(root);
  return spawnVectorWorker(root, env);
}

export interface VectorBuilderHook {
  /** There may be new work (a sync just ran): start a worker if none runs. */
  kick(): void;
  close(): void;
}

/**
 * The hook for long-running processes (watch, serve, mcp): keeps a background builder going for
 * `root` while the process lives. Never throws; `onEvent` hears what it did.
 */
export function startVectorBuilder(
  root: string,
  opts: { intervalMs?: number; env?: NodeJS.ProcessEnv; onEvent?: (e: { type: 'vector-worker'; started: boolean; pid?: number; reason?: string }) => void } = {},
): VectorBuilderHook {
  let closed = false;
  let pending: Promise<void> = Promise.resolve();
  const kick = (): void => {
    if (closed) return;
    pending = pending
      .then(async () => {
        if (vectorBuilder(root)) {
          touchWanted(root); // the running builder looks again before it exits
          return;
        }
        const { hasVectorWork } = await import('./status.js');
        if (!(await hasVectorWork(root))) return;
        const r = await requestVectors(root, opts.env ?? process.env);
        opts.onEvent?.({ type: 'vector-worker', ...r });
      })
      .catch(() => undefined);
  };
  const timer = setInterval(kick, opts.intervalMs ?? 5 * 60_000);
  timer.unref?.();
  kick();
  return {
    kick,
    close(): void {
      closed = true;
      clearInterval(timer);
    },
  };
}

export interface WorkerOutcome {
  ran: boolean;
  reason?: string;
  rounds: number;
  embedded: number;
  /** When the last pass started: a request after it is not covered. */
  lastPass?: number;
}

/**
 * The worker's body: take the root's vectors lock (or leave: another builder runs), lower our
 * priority, build until no request came in since the last pass, release, exit.
 */
export async function runVectorWorker(root: string, opts: { log?: (line: string) => void; batchSize?: number } = {}): Promise<WorkerOutcome> {
  const log = opts.log ?? ((line: string) => process.stdout.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`));
  const got = tryAcquire(root, 'vectors', WORKER_COMMAND);
  if (!('release' in got)) {
    log(`another builder runs (pid ${got.holder?.pid ?? '?'}); leaving`);
    return { ran: false, reason: 'locked', rounds: 0, embedded: 0 };
  }
  try {
    try {
      setPriority(19); // lowest: searches and the operator's work come first
    } catch {
      // not permitted here: run at normal priority
    }
    const { resolveEmbedder } = await import('../embedding/root-embedder.js');
    const { buildVectors } = await import('./builder.js');
    const { chunkSetting, chunkVectorsFor } = await import('./space.js');
    let rounds = 0;
    let embedded = 0;
    let since = 0;
    for (;;) {
      since = Date.now();
      const resolved = await resolveEmbedder(root);
      if (!resolved.embedder) {
        log(`no embedder: ${resolved.reason ?? 'none'}; leaving`);
        return { ran: false, reason: resolved.reason, rounds, embedded };
      }
      const config = await readConfig(root);
      const chunks = chunkVectorsFor(chunkSetting(config), resolved.embedder.key);
      log(`building ${resolved.embedder.key} (${chunks ? 'notes and chunks' : 'topic notes only'})`);
      let last = 0;
      const report = await buildVectors(root, {
        embedder: resolved.embedder,
        chunks,
        batchSize: opts.batchSize,
        onProgress: (p) => {
          // Every apply: how long readers and writers could have waited behind it.
          if (p.phase === 'apply') return log(`apply: index lock held ${p.lockHeldMs ?? 0} ms`);
          if (Date.now() - last < 5000) return;
          last = Date.now();
          log(`${p.phase} ${p.done}/${p.total} ${p.rate.toFixed(1)}/s`);
        },
      });
      rounds++;
      embedded += report.embedded;
      log(`pass done: ${report.embedded} embedded in ${report.seconds} s`);
      if (wantedSince(root) < since) break;
    }
    return { ran: true, rounds, embedded, lastPass: since };
  } finally {
    got.release();
  }
}
