import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The platform's tests again, on PostgreSQL (docs/architecture.md: one suite, both stores): every test file whose platform
 * comes from `testPlatform`/`testDatabase` runs here against a database of its own, copied from a migrated template
 * in a cluster started for the run. Files about SQLite's file itself (migrations of the file, its key file, WAL,
 * the bucket file) stay in the first run only.
 */
export default defineConfig({
  test: {
    include: [
      'test/platform/*.test.ts',
      'test/platform/auth/*.test.ts',
      'test/platform/limits/*.test.ts',
      // What only PostgreSQL can show (transactions that commit out of order): run here alone.
      'test/platform/pg/*.test.ts',
      'test/client/embedded.test.ts',
      'test/client/remote.test.ts',
    ],
    exclude: [
      'test/platform/migrations.test.ts',
      'test/platform/upgrade.test.ts',
      'test/platform/concurrency.test.ts',
      'test/platform/secrets-at-rest.test.ts',
      'test/platform/postgres-*.test.ts',
      'test/platform/limits/sqlite-store.test.ts',
      'test/platform/limits/processes.test.ts',
      'test/platform/limits/bucket.test.ts',
    ],
    globalSetup: ['test/postgres/global-setup.ts'],
    env: { PLAT_TEST_BACKEND: 'postgres' },
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
