import { defineConfig } from 'vitest/config';

// Every test of the repository in one run (README's test command): each workspace package is a project
// with its own config, the repository's checks another. One pool runs files of all of them side by side,
// so a package of long process-level tests does not hold the others back; one JSON report is read for the
// closing line of counts.
export default defineConfig({
  test: {
    // Most tests wait on child processes (servers, the chat, PostgreSQL), so three files at a time keep a
    // 2-core machine busy without starving any of them.
    maxWorkers: 3,
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'mcp_servers/*/vitest.config.ts',
      'vitest.repo.config.ts',
    ],
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
