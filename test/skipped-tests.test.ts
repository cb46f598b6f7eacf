import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSkippedTests, resultsFileName, undocumentedSkips } from './skipped-tests.js';

const repoRoot = resolve(import.meta.dirname, '..');
const underCi = process.env.CI === 'true' || process.env.CI === '1';

describe('no test is skipped', () => {
  // The root `test` script runs every workspace's suite first, so their reports are fresh here.
  it('in any workspace’s last run (under CI a missing report fails too)', () => {
    const findings = findSkippedTests(repoRoot, underCi);
    const report = findings.map((finding) => `${finding.workspace}: ${finding.detail}`).join('\n');
    expect(report, `Tests were skipped; only documented platform skips may be:\n${report}`).toBe('');
  });

  describe('the checker itself', () => {
    let scratch: string | undefined;
    afterEach(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
      scratch = undefined;
    });

    const report = (...statuses: Array<[string, string]>) => ({
      testResults: [
        {
          name: '/x/test/a.test.ts',
          assertionResults: statuses.map(([status, fullName]) => ({ status, fullName })),
        },
      ],
    });

    it('names skipped and todo tests, but lets documented platform skips pass', () => {
      const findings = undocumentedSkips(
        report(
          ['passed', 'runs'],
          ['skipped', 'weather server (skipped: data not found)'],
          ['todo', 'later'],
          ['skipped', 'store on PostgreSQL (platform skip: no initdb or pg_ctl on this machine)'],
        ),
        'mcp_servers/weather',
      );
      expect(findings.map((finding) => finding.detail)).toEqual([
        'skipped: weather server (skipped: data not found) (/x/test/a.test.ts)',
        'todo: later (/x/test/a.test.ts)',
      ]);
    });

    it('reads each workspace’s report, and under CI names a workspace whose report is missing', () => {
      const root = mkdtempSync(join(tmpdir(), 'skips-'));
      scratch = root;
      for (const name of ['one', 'two']) {
        mkdirSync(join(root, 'packages', name), { recursive: true });
        writeFileSync(join(root, 'packages', name, 'package.json'), '{"scripts":{"test":"vitest run"}}');
      }
      writeFileSync(
        join(root, 'packages', 'one', resultsFileName),
        JSON.stringify(report(['skipped', 'a skipped test'])),
      );
      expect(findSkippedTests(root, false)).toEqual([
        { workspace: join('packages', 'one'), detail: 'skipped: a skipped test (/x/test/a.test.ts)' },
      ]);
      expect(findSkippedTests(root, true).map((finding) => finding.workspace)).toEqual([
        join('packages', 'one'),
        join('packages', 'two'),
      ]);
    });
  });
});
