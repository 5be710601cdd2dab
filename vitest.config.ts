import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every exchange with the platform is checked against its OpenAPI document (test/setup/conformance.ts).
    setupFiles: ['test/setup/conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
