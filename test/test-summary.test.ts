import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { clearReports, summarize } from '../scripts/lib/test-summary.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
});

function repository(workspaces: Record<string, object | undefined>): string {
  const root = mkdtempSync(join(tmpdir(), 'test-summary-'));
  roots.push(root);
  writeFileSync(join(root, '.vitest-results.json'), JSON.stringify({ numPassedTests: 4 }));
  for (const [name, report] of Object.entries(workspaces)) {
    const folder = join(root, 'packages', name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), '{"scripts":{"test":"vitest run"}}');
    if (report) writeFileSync(join(folder, '.vitest-results.json'), JSON.stringify(report));
  }
  return root;
}

describe('the test command’s closing line', () => {
  it('sums every workspace and the repository checks', () => {
    const root = repository({
      a: { numPassedTests: 10, numFailedTests: 0, numPendingTests: 0 },
      b: { numPassedTests: 5, numFailedTests: 0, numPendingTests: 1 },
    });
    expect(summarize(root)).toMatchObject({ ok: true, line: 'tests: 19 passed, 0 failed, 1 skipped' });
  });

  it('names a failing workspace, a file that failed to load and a workspace that never reported', () => {
    const root = repository({
      a: { numPassedTests: 10, numFailedTests: 2 },
      b: {
        numPassedTests: 3,
        numFailedTests: 0,
        testResults: [{ status: 'failed', assertionResults: [] }],
      },
      c: undefined,
    });
    const summary = summarize(root);
    expect(summary.ok).toBe(false);
    expect(summary.line).toBe(
      'tests: 17 passed, 2 failed, 0 skipped; 1 test files failed to run; failures in packages/a, packages/b; no report from packages/c (it did not run, or crashed)',
    );
  });

  it('a report left from an earlier run is cleared before a run, so it cannot stand in for one that crashed', () => {
    const root = repository({ a: { numPassedTests: 10 } });
    clearReports(root);
    expect(summarize(root).missing).toEqual(['(repository checks)', 'packages/a']);
  });
});
