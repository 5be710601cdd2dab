import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL's own cases, run by vitest.postgres.config.ts on its cluster.
    exclude: [...configDefaults.exclude, 'test/platform/pg/**'],
    // Every exchange with the platform is checked against its OpenAPI document (test/setup/conformance.ts).
    setupFiles: ['test/setup/conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two files at a time, even on two cores (where vitest would run one): most of a file's time is spent
    // waiting on the processes, servers and browsers it starts.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
