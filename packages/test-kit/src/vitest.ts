import { defineConfig } from 'vitest/config';

/**
 * The tests of one workspace package (`packages/*`, `apps/*`): its `src/**` and `test/**` files, and a
 * limit per test and hook. The limit is only a safety net: a test waits for the events it needs, and a
 * busy 2-core machine makes a process-level test take many times its quiet duration.
 */
export function workspaceTests(options: { limitMs?: number } = {}) {
  const limitMs = options.limitMs ?? 60_000;
  return defineConfig({
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: limitMs,
      hookTimeout: limitMs,
      // The files of one package share their worker's modules: each file no longer loads the SDK, the
      // store and the package afresh (a third of a file's time). Files keep no state in modules.
      isolate: false,
      // No test reaches the registry: an `npx` a test starts takes what the install left, or fails.
      env: { npm_config_offline: 'true' },
    },
  });
}
