import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');

/** Every benchmark file of the workspaces (`bench/*.bench-run.ts`). */
function benchmarkFiles(): string[] {
  return ['packages', 'apps', 'mcp_servers'].flatMap((group) =>
    readdirSync(join(repoRoot, group)).flatMap((name) => {
      const folder = join(repoRoot, group, name, 'bench');
      try {
        return readdirSync(folder)
          .filter((file) => file.endsWith('.bench-run.ts'))
          .map((file) => join(folder, file));
      } catch {
        return [];
      }
    }),
  );
}

describe('pnpm bench', () => {
  it('runs every benchmark: none may skip (a benchmark that cannot run must fail loudly)', () => {
    const files = benchmarkFiles();
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\.skip(If)?\s*\(|\.todo\s*\(|skipReason/);
      // Their recorded data comes from the repository, never from a folder beside it.
      expect(text, file).not.toMatch(/shared\/fixtures|FIXTURES_DIR/);
    }
  });
});
