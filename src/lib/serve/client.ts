/**
 * The client side of the warm query path: ask the root's serve process, if one answers, and
 * otherwise let the caller work in-process. Every way a server can be missing, dead, stale, of
 * another build, slow or confused ends in `undefined` (fall back); only errors the server
 * answers on purpose (TOPIC_NOT_FOUND, INVALID_INPUT...) are thrown, as the in-process path
 * would throw them. Cheap to import: node:net, node:fs and JSON, nothing of the index.
 */
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';

import { type ErrorCode, ERROR_CODES, TkomaError } from '../errors.js';
import { pidAlive } from '../process.js';
import { envSetting } from '../settings.js';
import {
  buildId,
  embedderEnv,
  isServeInfo,
  lineSplitter,
  type Op,
  PROTOCOL,
  type Response,
  type ServeInfo,
  serveInfoFile,
} from './protocol.js';

export interface TryServerOptions {
  /** How long to wait for the connection (a live local server accepts within a millisecond). */
  timeoutMs?: number;
  /** How long to wait for the answer once connected (a first query may load a large index). */
  replyTimeoutMs?: number;
  /** The environment whose embedder choice the server must match (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Told why no server answered (commands print it under TKOMA_REF_DEBUG). */
  onFallback?: (reason: string) => void;
}

/**
 * Refused or missing sockets fail at once; this bounds only a wedged server. 100 ms was measured
 * to fall back now and then on a loaded 2-core machine (load 10), where a fallback costs a
 * whole cold search: a few hundred ms is still short.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 250;
export const DEFAULT_REPLY_TIMEOUT_MS = 30_000;

/** TKOMA_REF_NO_SERVER=1 (or true/yes) turns the client off. */
export function serverDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return envSetting('noServer', env) === true;
}

function readInfo(file: string): { info: ServeInfo; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const info: unknown = JSON.parse(text);
    return isServeInfo(info) ? { info, text } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * serve.json of a server that is gone: remove it, but only if it still is the same file (a new
 * server may have just replaced it). The socket file is left to the next server, which checks
 * whether anything listens before it takes the path over.
 */
function removeStaleInfo(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) rmSync(file, { force: true });
  } catch {
    // Already gone or unreadable: nothing to clean.
  }
}

/** The live server's record for `root`, or undefined (none, stale, another build, not ours). */
export function findServer(root: string, why: (reason: string) => void = () => undefined): ServeInfo | undefined {
  const file = serveInfoFile(root);
  const read = readInfo(file);
  if (!read) return void why('no server: no readable serve.json');
  const { info, text } = read;
  if (!pidAlive(info.pid)) {
    removeStaleInfo(file, text);
    return void why(`server pid ${info.pid} is gone (stale serve.json removed)`);
  }
  if (info.protocol !== PROTOCOL || info.build !== buildId()) return void why(`server pid ${info.pid} runs another build (${info.build}): restart it`);
  try {
    // Only a socket of this user: a path in the shared temp folder could be someone else's.
    const st = lstatSync(info.socket);
    if (!st.isSocket() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return void why(`${info.socket} is not this user's socket`);
  } catch {
    return void why(`socket ${info.socket} is missing`);
  }
  return info;
}

let nextId = 0;

function exchange(socketPath: string, line: string, id: number, opts: Required<Pick<TryServerOptions, 'timeoutMs' | 'replyTimeoutMs'>>): Promise<Response | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: Response | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    // Node runs expired timers before it polls for I/O, so a process that was busy (or not
    // scheduled, on a loaded machine) past the timeout would give up on a connection that had
    // already succeeded. The timeout gives up only after one more poll: a completed connect is
    // seen first, and only a connect still pending then falls back.
    let timer = setTimeout(() => setImmediate(() => socket.connecting && finish(undefined)), opts.timeoutMs);
    const socket = createConnection({ path: socketPath });
    socket.on('error', () => finish(undefined)); // ENOENT, ECONNREFUSED, EPIPE, reset...
    socket.on('close', () => finish(undefined));
    socket.once('connect', () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(undefined), opts.replyTimeoutMs);
      socket.write(line);
    });
    const push = lineSplitter((text) => {
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        return finish(undefined);
      }
      const m = msg as Partial<Response> | null;
      finish(m && typeof m === 'object' && m.id === id && typeof m.ok === 'boolean' ? (m as Response) : undefined);
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        push(chunk);
      } catch {
        finish(undefined);
      }
    });
  });
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/**
 * Asks the serve process of `root` to run `op` with `args`. Returns its result, or undefined
 * when no usable server answered (the caller then does the work itself). Throws the TkomaError
 * the server answered with.
 */
export async function tryServer(root: string, op: Op, args: Record<string, unknown>, opts: TryServerOptions = {}): Promise<unknown> {
  const env = opts.env ?? process.env;
  const why = opts.onFallback ?? (() => undefined);
  if (serverDisabled(env)) return void why('TKOMA_REF_NO_SERVER is set');
  const info = findServer(root, why);
  if (!info) return undefined;
  const id = ++nextId;
  const line = `${JSON.stringify({ id, op, args, root, env: embedderEnv(env) })}\n`;
  const res = await exchange(info.socket, line, id, {
    timeoutMs: opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    replyTimeoutMs: opts.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS,
  });
  if (!res) return void why(`no usable answer from ${info.socket} (refused, timed out or garbled)`);
  if (res.ok) return res.result;
  if ('fallback' in res) return void why(`server: ${res.fallback}`);
  const { code, message, ...details } = res.error ?? {};
  if (!isErrorCode(code) || typeof message !== 'string') return void why('server answered an unknown error'); // not an answer we can trust
  throw new TkomaError(code, message, details);
}
