import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Where every vitest run of the repository writes its JSON report. */
export const reportName = '.vitest-results.json';

/** The repository root and every workspace folder with a `test` script: where reports are written. */
export function reportFolders(root) {
  const folders = [root];
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

/** Deletes last run's reports, so a workspace that never ran cannot pass for one that did. */
export function clearReports(root) {
  for (const folder of reportFolders(root)) rmSync(join(folder, reportName), { force: true });
}

/**
 * Sums every report into one line of counts. A workspace without a report (it never ran, or its run
 * crashed) and a test file that failed to load count as failures, named in the line.
 */
export function summarize(root) {
  const totals = { passed: 0, failed: 0, skipped: 0, failedFiles: 0 };
  const failing = [];
  const missing = [];
  for (const folder of reportFolders(root)) {
    const name = relative(root, folder) || '(repository checks)';
    const path = join(folder, reportName);
    if (!existsSync(path)) {
      missing.push(name);
      continue;
    }
    const report = JSON.parse(readFileSync(path, 'utf8'));
    totals.passed += report.numPassedTests ?? 0;
    totals.failed += report.numFailedTests ?? 0;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A file that fails to import has no failed test, only a failed suite.
    const brokenFiles = (report.testResults ?? []).filter(
      (file) =>
        file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed'),
    ).length;
    totals.failedFiles += brokenFiles;
    if ((report.numFailedTests ?? 0) > 0 || brokenFiles > 0) failing.push(name);
  }
  const parts = [`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`];
  if (totals.failedFiles > 0) parts.push(`${totals.failedFiles} test files failed to run`);
  if (failing.length > 0) parts.push(`failures in ${failing.join(', ')}`);
  if (missing.length > 0) parts.push(`no report from ${missing.join(', ')} (it did not run, or crashed)`);
  const ok = totals.failed === 0 && totals.failedFiles === 0 && missing.length === 0;
  return { ok, line: parts.join('; '), totals, failing, missing };
}
