import { defineConfig } from 'vitest/config';

// Integration tests spawn real servers; on a 2-core CI machine a cold start can take seconds.
// The JSON report is read by the repository's check that a CI run skipped nothing.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
