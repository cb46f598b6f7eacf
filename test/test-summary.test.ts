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

type Test = [status: string, title: string];
type File = { tests: Test[]; status?: string };

/** A repository with workspaces packages/<name> and the run's report over `files` (path → tests). */
function repository(workspaces: string[], files: Record<string, File>): string {
  const root = mkdtempSync(join(tmpdir(), 'test-summary-'));
  roots.push(root);
  for (const name of workspaces) {
    mkdirSync(join(root, 'packages', name), { recursive: true });
    writeFileSync(join(root, 'packages', name, 'package.json'), '{"scripts":{"test":"vitest run"}}');
  }
  const testResults = Object.entries(files).map(([path, file]) => ({
    name: join(root, path),
    status: file.status ?? (file.tests.some(([status]) => status === 'failed') ? 'failed' : 'passed'),
    assertionResults: file.tests.map(([status, fullName]) => ({ status, fullName })),
  }));
  writeFileSync(join(root, '.vitest-results.json'), JSON.stringify({ testResults }));
  return root;
}

const passing = (count: number): File => ({
  tests: Array.from({ length: count }, (_, index): Test => ['passed', `test ${index}`]),
});

describe('the test command’s closing line', () => {
  it('sums every workspace and the repository checks', () => {
    const root = repository(['a', 'b'], {
      'packages/a/test/x.test.ts': passing(10),
      'packages/b/src/y.test.ts': passing(5),
      'test/repo.test.ts': passing(4),
    });
    expect(summarize(root)).toMatchObject({ ok: true, line: 'tests: 19 passed, 0 failed, 0 skipped' });
  });

  it('names a failing workspace, a file that failed to load and a workspace none of whose tests ran', () => {
    const root = repository(['a', 'b', 'c'], {
      'packages/a/test/x.test.ts': { tests: [...passing(10).tests, ['failed', 'f1'], ['failed', 'f2']] },
      'packages/b/test/y.test.ts': { tests: [], status: 'failed' },
      'packages/b/test/z.test.ts': passing(3),
    });
    const summary = summarize(root);
    expect(summary.ok).toBe(false);
    expect(summary.line).toBe(
      'tests: 13 passed, 2 failed, 0 skipped; 1 test files failed to run; failures in packages/a, packages/b; no test ran from packages/c',
    );
  });

  it('fails on a skipped or todo test, but lets a documented platform skip pass', () => {
    const skip = 'store on PostgreSQL (platform skip: no initdb or pg_ctl on this machine)';
    const allowed = repository(['a'], {
      'packages/a/test/x.test.ts': {
        tests: [
          ['passed', 'runs'],
          ['skipped', skip],
        ],
      },
    });
    expect(summarize(allowed)).toMatchObject({ ok: true, line: 'tests: 1 passed, 0 failed, 1 skipped' });
    const root = repository(['a'], {
      'packages/a/test/x.test.ts': {
        tests: [
          ['skipped', 'weather (data not found)'],
          ['todo', 'later'],
        ],
      },
    });
    const summary = summarize(root);
    expect(summary.ok).toBe(false);
    expect(summary.skips).toEqual([
      'packages/a: skipped: weather (data not found)',
      'packages/a: todo: later',
    ]);
  });

  it('a report left from an earlier run is cleared before a run, so it cannot stand in for one that crashed', () => {
    const root = repository(['a'], { 'packages/a/test/x.test.ts': passing(10) });
    clearReports(root);
    expect(summarize(root)).toMatchObject({
      ok: false,
      line: 'no .vitest-results.json: the test run did not finish (it crashed or was killed)',
    });
  });
});
