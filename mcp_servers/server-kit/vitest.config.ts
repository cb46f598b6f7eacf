import { defineConfig } from 'vitest/config';

// Integration tests spawn the real server; on a 2-core CI machine a cold start can take seconds.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
