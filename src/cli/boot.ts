/**
 * How bin/run.cjs starts the fast path (cli/fast.ts); built as dist/boot.cjs so that start needs
 * no ES module loader. The build bundles the fast path into one CommonJS file, dist/fast.cjs
 * (scripts/bundle-fast.mjs), which runs here through V8's code cache: Node 20 keeps no compiled
 * ES modules between runs, and compiling the ~60 modules of a search was about a third of a cold
 * one. The first run of a command that succeeds writes its cache (at exit, so it holds every
 * function the run compiled); later runs skip parsing and compiling. Without the bundle, or on a
 * Node that cannot require() the ES-module packages, the separate modules run as before.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

import { envFlagOr, envSetting } from '../lib/settings.js';
import { fastCommand } from './fast-names.js';

type RunFast = (argv: readonly string[]) => Promise<boolean>;

/** The bundle's first line names its content (a digest the build writes). */
const HEADER = /^\/\/ tkoma-ref fast path ([0-9a-f]{20})\n/;
/** Cache files of other builds or Nodes are removed once this old. */
const STALE_CACHE_MS = 24 * 3600 * 1000;

/** Runs argv on the fast path; false means "let oclif run it" (as cli/fast.ts's runFast). */
export async function runFastPath(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  // bin/run.cjs asks for every command: the list in cli/fast-names.ts is the only one.
  const command = fastCommand(argv);
  if (command === null) return false;
  const bundle = fileURLToPath(new URL('../fast.cjs', import.meta.url));
  const useBundle = process.features.require_module === true && !envFlagOr('noBundle', true, env);
  // One cache per command: each holds what its own runs compile.
  const loaded = useBundle ? loadBundle(bundle, codeCacheDir(env), command.name) : null;
  if (!loaded) {
    // A URL, not a literal: the build must leave this import to run time, not bundle it in.
    const separate = (await import(new URL('./fast.js', import.meta.url).href)) as { runFast: RunFast };
    return separate.runFast(argv);
  }
  const handled = await loaded.runFast(argv);
  // Only a run that did the command's work (not one handed to oclif, nor a failure) compiled what
  // later runs need; a cache from a thinner run would be kept and leave them compiling.
  if (handled) loaded.keepCacheAtExit();
  return handled;
}

/**
 * Where compiled code is kept: the `codeCache` setting (a folder, or `off`), else the user's cache
 * folder, next to the embedding models. Pure.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const set = envSetting('codeCache', env);
  if (set !== undefined) return set.toLowerCase() === 'off' ? null : set;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'tkoma-ref', 'code-cache');
}

/** The cache file for one bundle digest, command and Node. Pure. */
export function codeCacheFile(dir: string, digest: string, command: string, node = `${process.version}-${process.arch}`): string {
  return join(dir, `fast-${digest}-${command}-${node}.v8`);
}

interface LoadedBundle {
  runFast: RunFast;
  /** Writes the code cache when the process exits with status 0, unless a good one was read. */
  keepCacheAtExit(): void;
}

/**
 * dist/fast.cjs, compiled from the code cache when there is a good one; null without a bundle,
 * or with one older than the modules it was made from (tsc run again without the bundle step: the
 * separate modules are the newer code).
 */
function loadBundle(bundle: string, cacheDir: string | null, command: string): LoadedBundle | null {
  let source: string;
  try {
    if (statSync(new URL('./fast.js', import.meta.url)).mtimeMs > statSync(bundle).mtimeMs) return null;
    source = readFileSync(bundle, 'utf8');
  } catch {
    return null;
  }
  const digest = HEADER.exec(source)?.[1];
  if (digest === undefined) return null;
  const cacheFile = cacheDir === null ? null : codeCacheFile(cacheDir, digest, command);
  let cachedData: Buffer | undefined;
  if (cacheFile !== null) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache yet: this run may write one.
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  const module = { exports: {} as { runFast?: RunFast } };
  (script.runInThisContext() as (...a: unknown[]) => void)(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const runFast = module.exports.runFast;
  if (!runFast) return null;
  // V8 refuses a cache of another V8, other flags or another source length: rewrite it then.
  const write = cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true);
  return {
    runFast,
    keepCacheAtExit: () => {
      if (write) process.once('exit', (code) => code === 0 && writeCodeCache(script, cacheFile));
    },
  };
}

/** Best effort: a cache that cannot be written only costs the next run its compile time. */
function writeCodeCache(script: Script, file: string): void {
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true });
    // Renamed into place, so a concurrent run reads a whole cache or none.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    removeStaleCaches(dir, file);
  } catch {
    // Read-only or full disk: run uncached.
  }
}

/** Removes this tool's old cache files (other builds, commands or Nodes), never anything else in the folder. */
function removeStaleCaches(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === keep || !/^fast-[0-9a-f]{20}-.+\.v8(\.\d+\.tmp)?$/.test(name)) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_CACHE_MS) rmSync(path, { force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}
