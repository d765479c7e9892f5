import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The real embedding model and git subprocesses are CPU-heavy on two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
