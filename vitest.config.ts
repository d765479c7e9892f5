import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Time limits here only catch hangs; they are not a speed check. On a busy two-core machine
    // (load 10-25) a create with the real model can take minutes, and must still pass. A test
    // that waits for something waits for a condition, not a clock.
    testTimeout: 900_000,
    hookTimeout: 900_000,
    // The real embedding model and git subprocesses are CPU-heavy on two cores.
    pool: 'forks',
    maxWorkers: 2,
    // No detached vector workers behind tests' backs; the tests of that worker turn it on.
    env: { TKOMA_REF_VECTOR_WORKER: 'off' },
  },
});
