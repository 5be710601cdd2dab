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
  },
});
