import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// Recorded JMA data lives outside the repository in ../shared/fixtures/jma (never copied in).
// JMA_FIXTURES_DIR overrides, e.g. once this package lives in its own repository.
function locate(): string | undefined {
  if (process.env.JMA_FIXTURES_DIR) return resolve(process.env.JMA_FIXTURES_DIR);
  let folder = resolve(import.meta.dirname);
  for (;;) {
    if (existsSync(join(folder, '.git')) || existsSync(join(folder, 'pnpm-workspace.yaml'))) {
      const candidate = resolve(folder, '..', 'shared', 'fixtures', 'jma');
      return existsSync(candidate) ? candidate : undefined;
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/** Folder holding the recorded JMA responses, or undefined when absent. */
export const jmaFixturesDir = locate();

/** Why fixture-based tests are skipped, for `describe.skipIf(...)` titles. */
export const skipReason = jmaFixturesDir
  ? ''
  : ' (skipped: recorded JMA data not found at ../shared/fixtures/jma; set JMA_FIXTURES_DIR)';

/** Reads and parses one fixture file. */
export function readFixture(name: string): unknown {
  if (!jmaFixturesDir) throw new Error('JMA fixtures are not available');
  return JSON.parse(readFileSync(join(jmaFixturesDir, name), 'utf8'));
}
