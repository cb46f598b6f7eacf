import { defineConfig } from 'vitest/config';

// Repository-wide checks: the separation rule, no skipped tests, and the packed tarballs working on their
// own. The root `test` script runs them after every workspace's suite.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
