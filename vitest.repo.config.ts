import { defineConfig } from 'vitest/config';

// Repository-wide checks: the separation rule, no skipped tests, the README's commands, and the packed
// tarballs working on their own.
export default defineConfig({
  test: {
    name: 'repository',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // No test reaches the registry: npx and pnpm take what the install left in their caches, or fail.
    env: { npm_config_offline: 'true' },
  },
});
