import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * vitest runs projects one after another in the order of their names, which put the repository's checks
 * last: its longest files (whole pnpm commands: conformance, dev, stop, new-server) then ran at the end,
 * side by side, with nothing left to overlap them. Here they start first, then the projects with the most
 * files (the apps' process-level tests); each project keeps vitest's own order.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const count = new Map<string, number>();
    for (const file of sorted) count.set(file.project.name, (count.get(file.project.name) ?? 0) + 1);
    const rank = (file: TestSpecification) =>
      file.project.name === 'repository' ? Number.POSITIVE_INFINITY : (count.get(file.project.name) ?? 0);
    // Array.prototype.sort is stable: within a project, vitest's order stays.
    return sorted.sort((a, b) => rank(b) - rank(a));
  }
}

export default defineConfig({
  test: {
    // Most tests wait on child processes (servers, the chat, PostgreSQL): with three files at a time a
    // 2-core machine stayed a third idle (1.5 cores busy on average), so four.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'mcp_servers/*/vitest.config.ts',
      'vitest.repo.config.ts',
    ],
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
