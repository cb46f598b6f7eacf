import { defineConfig } from 'vitest/config';

// Integration tests spawn real servers; on a 2-core CI machine a cold start can take seconds.
// The JSON report is read by the repository's check that a CI run skipped nothing.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Generous: a chat process opens the embedded store and its servers; a busy 2-core machine is slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
