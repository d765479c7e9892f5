import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Opt-in CPU accounting per test file (TKOMA_TEST_CPU_LOG=FILE); a no-op otherwise.
    setupFiles: ['test/helpers/cpu-log.ts'],
    // One folder per run for the knowledge-root templates of test/helpers/roots.ts.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Time limits here only catch hangs; they are not a speed check. On a busy two-core machine
    // (load 10-25) a create with the real model can take minutes, and must still pass. A test
    // that waits for something waits for a condition, not a clock.
    testTimeout: 900_000,
    hookTimeout: 900_000,
    // The real embedding model and git subprocesses are CPU-heavy on two cores.
    pool: 'forks',
    maxWorkers: 2,
    // One fork runs many test files without reloading modules between them: each file no longer
    // re-imports vitest, the sources and the tree-sitter grammars (in-process test folders
    // chunking, store, search, index: 112.5 -> 73.8 CPU-s, load ~10). Tests that set an
    // environment variable restore it; the whole suite passed this way at load 9-18.
    isolate: false,
    // No detached vector workers behind tests' backs; the tests of that worker turn it on.
    // No test uses TLS (file:// and http://127.0.0.1 only): without the machine's extra CA bundle
    // each of the suite's thousands of node start-ups skips reading it (~55 ms of CPU each here).
    env: { TKOMA_REF_VECTOR_WORKER: 'off', NODE_EXTRA_CA_CERTS: '' },
  },
});
