import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without types
import { aimRows, benchSummary } from '../scripts/lib/bench-summary.mjs';

const output = [
  "@ai-assistant/store:bench: | turn's reads, pglite | 0.868 ms | 3.340 ms | < 1 ms / < 3 ms: met / MISSED |",
  '@ai-assistant/store:bench: | audit row + usage per turn | 0.5 ms | 1.4 ms | < 1 ms / < 3 ms: met / met |',
  '\u001b[32m@ai-assistant/host-core:bench: \u001b[0m| callTool p50 | 1.045× | ≤ 1.1× met |',
  '@ai-assistant/host-core:bench: | loop overhead per round | 0.227 ms | (no aim) |',
  '• Packages in scope: 5',
].join('\n');

describe('pnpm bench summary', () => {
  it('counts every row with an aim, a row with one MISSED among its aims as missed, and names it', () => {
    const rows = aimRows(output) as Array<{ met: boolean; package?: string }>;
    expect(rows.map((row) => [row.package, row.met])).toEqual([
      ['@ai-assistant/store', false],
      ['@ai-assistant/store', true],
      ['@ai-assistant/host-core', true],
    ]);
    expect(benchSummary(rows)).toBe(
      "bench: 2 aims met, 1 missed\n  MISSED (@ai-assistant/store) | turn's reads, pglite | 0.868 ms | 3.340 ms | < 1 ms / < 3 ms: met / MISSED |",
    );
  });
});
