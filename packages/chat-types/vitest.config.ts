import { defineConfig } from 'vitest/config';

// Its own config, not test-kit's: the test kit depends on this package.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'] },
});
