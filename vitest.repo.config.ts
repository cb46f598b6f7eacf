import { defineConfig } from 'vitest/config';

// Repository-wide checks (the separation rule); each workspace runs its own tests.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'] },
});
