import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * vitest runs projects in the order of their names, which put the repository's checks last; the longest
 * files of the run (whole pnpm commands: conformance, dev, stop, new-server) then ran at the end, side by
 * side, with nothing left to overlap them. They start first here; each project keeps vitest's own order.
 */
class RepositoryChecksFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (file: TestSpecification) => file.project.name === 'repository';
    return [...sorted.filter(first), ...sorted.filter((file) => !first(file))];
  }
}

// Every test of the repository in one run (README's test command): each workspace package is a project
// with its own config, the repository's checks another. One pool runs files of all of them side by side,
// so a package of long process-level tests does not hold the others back; one JSON report is read for the
// closing line of counts.
export default defineConfig({
  test: {
    // Most tests wait on child processes (servers, the chat, PostgreSQL), so three files at a time keep a
    // 2-core machine busy without starving any of them.
    maxWorkers: 3,
    sequence: { sequencer: RepositoryChecksFirst },
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'mcp_servers/*/vitest.config.ts',
      'vitest.repo.config.ts',
    ],
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
