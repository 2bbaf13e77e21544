import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Tests reach loopback only: anything else fails the test (test/support/loopback-guard.mjs).
    setupFiles: ['test/support/loopback-guard-setup.ts'],
    fileParallelism: false,
  },
});
