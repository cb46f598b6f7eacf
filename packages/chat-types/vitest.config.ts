import { defineConfig } from 'vitest/config';

// The JSON report is read by the repository's check that a CI run skipped nothing.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
