import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The real embedding model and git subprocesses are CPU-heavy on two cores.
    pool: 'forks',
    maxWorkers: 2,
    // No detached vector workers behind tests' backs; the tests of that worker turn it on.
    env: { TKOMA_REF_VECTOR_WORKER: 'off' },
  },
});
