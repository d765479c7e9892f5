/**
 * What the serve process and its clients share: where the socket and `serve.json` live, the
 * newline-delimited JSON messages, and the fingerprint of the environment that decides which
 * embedder a command would use. Imported by every search command before it knows whether a
 * server runs, so it must stay cheap: Node built-ins only.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { settingEnv } from '../settings.js';

/** Bump when a message's shape changes: clients then ignore servers of the other protocol. */
export const PROTOCOL = 1;

/** `<root>/.tkoma` (STATE_DIR in store/root.ts, not imported: that module pulls in git helpers). */
const stateDirOf = (root: string): string => join(root, '.tkoma');

export const serveInfoFile = (root: string): string => join(stateDirOf(root), 'serve.json');

/**
 * Unix socket paths are limited to 108 bytes (sun_path) on Linux, 104 on macOS. A root that is
 * too deep gets a short path in the temp folder, named by a hash of the root, recorded in
 * serve.json; clients read the path from there.
 */
export const MAX_SOCKET_PATH_BYTES = 100;

export function socketPathFor(root: string): string {
  const inRoot = join(stateDirOf(root), 'serve.sock');
  if (Buffer.byteLength(inRoot) <= MAX_SOCKET_PATH_BYTES) return inRoot;
  return join(tmpdir(), `tkoma-ref-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`);
}

export type Op = 'ping' | 'search' | 'topic_search';
export const OPS: readonly Op[] = ['ping', 'search', 'topic_search'];

export interface Request {
  id: number | string;
  op: Op;
  args?: Record<string, unknown>;
  /** The client's root as it resolved it: a server only answers for its own root. */
  root?: string;
  /** embedderEnv() of the client: the server answers only when it would pick the same embedder. */
  env?: Record<string, string>;
}

export type Response =
  | { id: Request['id']; ok: true; result: unknown }
  | { id: Request['id']; ok: false; error: { code: string; message: string; [k: string]: unknown } }
  /** Not an error: this server cannot give the answer the client would compute; work in-process. */
  | { id: Request['id']; ok: false; fallback: string };

/** Contents of `<root>/.tkoma/serve.json`. */
export interface ServeInfo {
  pid: number;
  socket: string;
  started_at: string;
  version: string;
  /** Identifies the build (see buildId): a server from an older build never answers. */
  build: string;
  protocol: number;
  root: string;
}

export function isServeInfo(v: unknown): v is ServeInfo {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    Number.isInteger(o.pid) &&
    typeof o.socket === 'string' &&
    o.socket !== '' &&
    typeof o.version === 'string' &&
    typeof o.build === 'string' &&
    typeof o.protocol === 'number' &&
    typeof o.root === 'string'
  );
}

let cachedVersion: string | undefined;

/** The package version (package.json three folders up from dist/lib/serve or src/lib/serve). */
export function packageVersion(): string {
  if (cachedVersion === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
      cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      cachedVersion = '0.0.0';
    }
  }
  return cachedVersion;
}

/**
 * The version alone does not tell two builds apart during development: a rebuilt CLI must not
 * get answers from a server still running the old code, so the build is the version plus the
 * modification time of this compiled file (rewritten by every build, stable once installed).
 */
export function buildId(): string {
  let mtime = 0;
  try {
    mtime = Math.trunc(statSync(fileURLToPath(import.meta.url)).mtimeMs);
  } catch {
    // Bundled or virtual module: the version is all there is.
  }
  return `${packageVersion()}+${mtime}`;
}

/**
 * Environment variables that settingsFromEnv (embedding/index.ts) reads to choose the embedder.
 * Keep in step with it: a variable missing here would let a server answer with another model.
 */
export const EMBEDDER_ENV_VARS: readonly string[] = [
  settingEnv('embedder'),
  settingEnv('embedModel'),
  settingEnv('embedUrl'),
  'OLLAMA_HOST',
  settingEnv('modelDir'),
  'XDG_CACHE_HOME',
  'HOME',
];

/** Secrets travel as hashes: the server only compares them. */
export const SECRET_ENV_VARS: readonly string[] = [settingEnv('openaiApiKey'), 'OPENAI_API_KEY'];

export function embedderEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of EMBEDDER_ENV_VARS) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  for (const k of SECRET_ENV_VARS) {
    const v = env[k];
    if (v !== undefined) out[k] = v.trim() === '' ? v : `sha256:${createHash('sha256').update(v.trim()).digest('hex')}`;
  }
  return out;
}

/** Longest line either side accepts: a request is small; an answer holds at most 200 snippets. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Splits a byte stream into lines. Returns a push function fed with chunks; it calls `onLine`
 * for every complete line and throws when a line grows past `max` (a confused or hostile peer).
 */
export function lineSplitter(onLine: (line: string) => void, max = MAX_LINE_BYTES): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  return (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString('utf8');
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      size += chunk.length - start;
      if (size > max) throw new Error(`line longer than ${max} bytes`);
      parts.push(chunk.subarray(start));
    }
  };
}
