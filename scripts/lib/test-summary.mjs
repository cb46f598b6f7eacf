import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Where the repository's test run (vitest.config.ts) writes its JSON report. */
export const reportName = '.vitest-results.json';

/**
 * A skip is allowed only when its title says why the platform cannot run it, e.g.
 * `… (platform skip: no initdb or pg_ctl on this machine)`. Everything else must run.
 */
export const platformSkipMarker = '(platform skip:';

const notRun = new Set(['skipped', 'pending', 'todo', 'disabled']);

/** Every workspace folder (packages/*, apps/*, mcp_servers/*) with a `test` script: each must have run. */
export function testedWorkspaces(root) {
  const folders = [];
  for (const group of ['packages', 'apps', 'mcp_servers']) {
    const groupPath = join(root, group);
    if (!existsSync(groupPath)) continue;
    for (const name of readdirSync(groupPath).sort()) {
      const manifest = join(groupPath, name, 'package.json');
      if (!existsSync(manifest)) continue;
      if (JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test) folders.push(join(groupPath, name));
    }
  }
  return folders;
}

/** Deletes last run's report, so that it cannot stand in for a run that crashed. */
export function clearReports(root) {
  rmSync(join(root, reportName), { force: true });
}

/**
 * One line of counts over the run's report, naming what went wrong: the workspaces with a failing test,
 * files that failed to load, tests skipped without a platform reason, and workspaces none of whose tests
 * ran. A missing report (the run crashed or was killed) fails.
 */
export function summarize(root) {
  const path = join(root, reportName);
  if (!existsSync(path))
    return {
      ok: false,
      line: `no ${reportName}: the test run did not finish (it crashed or was killed)`,
      skips: [],
      missing: [],
    };
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const workspaces = testedWorkspaces(root).map((folder) => relative(root, folder));
  const workspaceOf = (file) => {
    const name = relative(root, file ?? '');
    return workspaces.find((workspace) => name.startsWith(workspace + sep)) ?? '(repository checks)';
  };
  const totals = { passed: 0, failed: 0, skipped: 0, failedFiles: 0 };
  const failing = new Set();
  const ran = new Set();
  const skips = [];
  for (const file of report.testResults ?? []) {
    const workspace = workspaceOf(file.name);
    ran.add(workspace);
    const tests = file.assertionResults ?? [];
    for (const test of tests) {
      if (test.status === 'passed') totals.passed += 1;
      else if (test.status === 'failed') {
        totals.failed += 1;
        failing.add(workspace);
      } else if (notRun.has(test.status)) {
        totals.skipped += 1;
        const title = test.fullName ?? test.title ?? '(untitled)';
        if (!title.includes(platformSkipMarker)) skips.push(`${workspace}: ${test.status}: ${title}`);
      }
    }
    // A file that fails to import has no failed test, only a failed file.
    if (file.status === 'failed' && tests.every((test) => test.status !== 'failed')) {
      totals.failedFiles += 1;
      failing.add(workspace);
    }
  }
  const missing = workspaces.filter((workspace) => !ran.has(workspace));
  const parts = [`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`];
  if (totals.failedFiles > 0) parts.push(`${totals.failedFiles} test files failed to run`);
  if (failing.size > 0) parts.push(`failures in ${[...failing].join(', ')}`);
  if (skips.length > 0) parts.push(`skipped without a platform reason: ${skips.join(' | ')}`);
  if (missing.length > 0) parts.push(`no test ran from ${missing.join(', ')}`);
  const ok = totals.failed === 0 && totals.failedFiles === 0 && skips.length === 0 && missing.length === 0;
  return { ok, line: parts.join('; '), totals, failing: [...failing], skips, missing };
}
