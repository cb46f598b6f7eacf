import { defineConfig } from 'vitest/config';

// The benchmark runs as one vitest file so it can reuse the TypeScript test helpers; it prints a
// table and asserts nothing about time.
export default defineConfig({
  test: { include: ['bench/**/*.bench-run.ts'], testTimeout: 600_000, hookTimeout: 60_000 },
});
