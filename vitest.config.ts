import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests reach loopback only: anything else fails the test (test/support/loopback-guard.mjs).
    setupFiles: ['test/support/loopback-guard-setup.ts'],
    reporters: ['default'],
  },
});
