/**
 * Tree-sitter grammars run on V8's baseline WebAssembly code (Liftoff) only, never tiered up to
 * TurboFan. A grammar's lexer is one huge function (kotlin's 133 KB of wasm, swift's and
 * typescript's alike) that V8 marks hot after a few calls and then optimises on background
 * threads for seconds, in the process's last seconds too (Node waits for those jobs before it
 * exits). Measured on the Dioxus repository (1,418 files, seven grammars; docs/BENCHMARKS.md):
 * a create spent 48 s of CPU, 25 of them after its answer, and peaked at 457 MB; on baseline
 * code 16 s, no tail and 318 MB, with the same chunks. TurboFan's faster parse only pays for its
 * compile after some megabytes of one language, and even 3,000 JavaScript files (15 MB) cost
 * less CPU on baseline code alone.
 *
 * V8 reads `--wasm-dynamic-tiering` when it compiles a module and keeps it with the module; it
 * reads `--wasm-tier-up` when it compiles each function, which (lazy compilation, V8's default)
 * is at that function's first call. So both are set before the first grammar is compiled, once
 * per process and only from the main thread (flags are process-wide: the chunk worker threads
 * started after this inherit them), and tier-up stays off for good. `--wasm-dynamic-tiering` and
 * `--wasm-tier-up` are V8's ordinary switches (Node 20's V8 11.3 and Node 22's 12.4 alike), not
 * its testing flags; no other WebAssembly runs in our processes (onnxruntime is native).
 *
 * tree-sitter's own module (tree-sitter.wasm: the parse loop, the same for every grammar, no huge
 * function) is the exception when a create starts chunk threads: compileTieredUp gives it dynamic
 * tiering, so its hot functions (~30) are optimised. That cut parsing the Dioxus repository's 878
 * Rust files from ~1.2 to ~0.9 s of CPU, its grammar still on baseline code (docs/BENCHMARKS.md).
 */
import { isMainThread } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';

let set = false;

/** Keeps WebAssembly compiled from now on at V8's baseline tier (see above); idempotent. */
export function baselineWasmOnly(): void {
  if (set || !isMainThread) return;
  set = true;
  setFlagsFromString('--no-wasm-dynamic-tiering');
  setFlagsFromString('--no-wasm-tier-up');
  // V8 keys a code cache to its flags: the one cli/boot.ts writes at exit (its listener comes
  // later) must carry the flags the next process starts with, or every run rejects and rewrites it.
  process.once('exit', () => {
    setFlagsFromString('--wasm-dynamic-tiering');
    setFlagsFromString('--wasm-tier-up');
  });
}

/**
 * Compiles `bytes` with dynamic tiering (see above), in the main thread only: the flag is set
 * for this synchronous compile alone, so it must run before any worker thread that compiles
 * WebAssembly exists (the chunk pool asks for tree-sitter's module before it starts one). In a
 * worker thread it compiles with the flags as they are.
 */
export function compileTieredUp(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module {
  baselineWasmOnly();
  if (!isMainThread) return new WebAssembly.Module(bytes);
  setFlagsFromString('--wasm-dynamic-tiering');
  try {
    return new WebAssembly.Module(bytes);
  } finally {
    setFlagsFromString('--no-wasm-dynamic-tiering');
  }
}
