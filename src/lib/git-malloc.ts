/**
 * The environment of every git process we start keeps glibc's malloc from handing its heap back.
 * glibc shrinks the heap (brk) whenever more than 128 KiB is free at its top, and grows it again
 * for the next object: git reading or packing objects one after another (pack-objects, index-pack,
 * cat-file, `git add` hashing files) does that once per object. On a virtual machine every
 * shrink is a TLB flush sent to the other CPUs: fetching the 971 blobs of Dioxus's .rs/.md files
 * cost git 1.7 s of CPU, 1.2 s of it in the kernel, and 0.7 s with the heap kept. A git process
 * lives for one command, so what it keeps goes back at its exit. Other C libraries (musl, macOS)
 * ignore the variable.
 */
const KEEP_HEAP = 'glibc.malloc.trim_threshold=134217728';

/** `env` with the tunable added; a GLIBC_TUNABLES already set comes after it, so its own settings win. */
export function keepMallocHeap(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = env.GLIBC_TUNABLES;
  return { ...env, GLIBC_TUNABLES: own ? `${KEEP_HEAP}:${own}` : KEEP_HEAP };
}
