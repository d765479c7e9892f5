/**
 * The tree-sitter runtime and its grammars, loaded on first use and once per grammar file, so that
 * importing the chunkers stays cheap and a grammar that fails to load is simply not used.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import type { Language, Parser } from 'web-tree-sitter';

import { baselineWasmOnly, compileTieredUp } from './wasm-tier.js';

export interface Runtime {
  Language: typeof Language;
  parser: Parser;
}

let runtime: Promise<Runtime> | undefined;
const grammars = new Map<string, Promise<Language | undefined>>();

/** What a chunk worker thread is started with (pool.ts). */
export interface ChunkWorkerData {
  /** tree-sitter's own module, compiled by the main thread (treeSitterModule). */
  treeSitter?: WebAssembly.Module;
  /** Count the chunks' BM25 terms in the worker (pool.ts countsInWorkers); else the main thread does. */
  countTerms?: boolean;
}

let treeSitter: WebAssembly.Module | undefined;

/**
 * tree-sitter's own module (tree-sitter.wasm), compiled once per process, by the main thread, which
 * hands it to the chunk worker threads: they run its code (and its optimised code, shared between
 * threads) rather than compile it again. The first caller decides its tier: `tierUp` (the chunk
 * pool, for a create with threads) lets its hot functions be optimised (wasm-tier.ts), which
 * paid from a few hundred files on; for a few files the optimising compile cost more than it
 * saved (a 9-file create: +0.1 s CPU, +16 MiB peak), so it stays on baseline code otherwise.
 */
export function treeSitterModule(tierUp = false): WebAssembly.Module {
  const given = (workerData as ChunkWorkerData | null)?.treeSitter;
  if (given instanceof WebAssembly.Module) return given;
  if (!treeSitter) {
    const bytes = ownBytes(readFileSync(createRequire(import.meta.url).resolve('web-tree-sitter/tree-sitter.wasm')));
    baselineWasmOnly();
    treeSitter = tierUp ? compileTieredUp(bytes) : new WebAssembly.Module(bytes);
  }
  return treeSitter;
}

/** web-tree-sitter is imported on first use so that importing the chunkers stays cheap. */
export function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    baselineWasmOnly();
    const module = treeSitterModule();
    const mod = await import('web-tree-sitter');
    // Emscripten's hook for instantiating the module itself; its callback takes the instance first.
    const instantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void): WebAssembly.Exports => {
      const instance = new WebAssembly.Instance(module, imports);
      done(instance, module);
      return instance.exports;
    };
    await mod.Parser.init({ instantiateWasm } as unknown as Parameters<typeof mod.Parser.init>[0]);
    return { Language: mod.Language, parser: new mod.Parser() };
  })();
  return runtime;
}

let loadQueue: Promise<unknown> = Promise.resolve();

/**
 * Language.load compiles with async WebAssembly.instantiate, which was measured here to stall for
 * 10-40 s once another grammar has parsed (the V8 background compile queue starves on 2 cores),
 * while a synchronous `new WebAssembly.Module` takes ~10-20 ms (lazy compilation). So for the
 * exact bytes being loaded, instantiate synchronously. The patch is scoped to those bytes and
 * loads are serialised, so no other WebAssembly user in the process is affected.
 */
async function loadSync(rt: Runtime, bytes: Uint8Array<ArrayBuffer>): Promise<Language> {
  const wasm = WebAssembly as unknown as { instantiate: (...args: unknown[]) => Promise<unknown> };
  const original = wasm.instantiate;
  const patched = function (this: unknown, ...args: unknown[]): Promise<unknown> {
    if (args[0] === bytes) {
      const module = new WebAssembly.Module(bytes);
      const instance = new WebAssembly.Instance(module, args[1] as WebAssembly.Imports);
      return Promise.resolve({ module, instance });
    }
    return original.apply(this, args);
  };
  wasm.instantiate = patched;
  try {
    return await rt.Language.load(bytes);
  } finally {
    if (wasm.instantiate === patched) wasm.instantiate = original;
    release(bytes);
  }
}

/**
 * Frees a grammar file's bytes once it is compiled. web-tree-sitter's loader keeps them reachable
 * from the symbol stubs it creates (a closure over its arguments) for the life of the thread,
 * though nothing reads them after the load: V8 holds its own copy of the module. Detaching the
 * buffer (transferring it to a clone that is dropped at once) returns them: 11 MB in the thread
 * that cuts kotlin, swift, typescript, javascript and shell files.
 */
function release(bytes: Uint8Array<ArrayBuffer>): void {
  try {
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  } catch {
    // Not detachable (a shared or already detached buffer): it stays, as before.
  }
}

/**
 * The grammar of each (folder, language) asked for: resolving the package path is a module
 * resolution (createRequire), which cost ~0.3 s per thread of a 10k-file create when done per file.
 */
const byLanguage = new Map<string, Promise<Language | undefined>>();

/** Loads a grammar once per file path; a grammar that fails to load is remembered as unusable. */
export function loadGrammar(rt: Runtime, language: string, dir: string | undefined): Promise<Language | undefined> {
  const key = `${dir ?? ''}\0${language}`;
  let p = byLanguage.get(key);
  if (!p) {
    p = grammarFile(rt, language, dir);
    byLanguage.set(key, p);
  }
  return p;
}

function grammarFile(rt: Runtime, language: string, dir: string | undefined): Promise<Language | undefined> {
  if (!/^[a-z][a-z0-9_]*$/.test(language)) return Promise.resolve(undefined);
  let file: string;
  try {
    const name = `tree-sitter-${language}.wasm`;
    file = dir ? join(dir, name) : createRequire(import.meta.url).resolve(`tree-sitter-wasms/out/${name}`);
  } catch {
    return Promise.resolve(undefined);
  }
  let p = grammars.get(file);
  if (!p) {
    const load = loadQueue.then(async () => loadSync(rt, ownBytes(await readFile(file))));
    loadQueue = load.catch(() => undefined);
    p = load.catch(() => undefined);
    grammars.set(file, p);
  }
  return p;
}

/**
 * The file's bytes over an ArrayBuffer of their own, which release() may detach: readFile's own
 * buffer when it holds exactly them (a grammar file, past the size Node pools), else a copy.
 * Copying typescript's 2.3 MB grammar cost ~15 ms of CPU here, mostly in first-touch page faults.
 */
function ownBytes(buf: Buffer): Uint8Array<ArrayBuffer> {
  const whole = buf.buffer instanceof ArrayBuffer && buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength;
  return whole ? new Uint8Array(buf.buffer as ArrayBuffer) : new Uint8Array(buf);
}
