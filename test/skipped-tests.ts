import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Where each workspace's vitest run writes its JSON report (see the packages' vitest.config.ts). */
export const resultsFileName = '.vitest-results.json';

/**
 * A skip is allowed only when its title says why the platform cannot run it, e.g.
 * `… (platform skip: no initdb or pg_ctl on this machine)`. Everything else must run.
 */
export const platformSkipMarker = '(platform skip:';

/** One test that did not run, or a workspace whose report is missing. */
export interface SkipFinding {
  workspace: string;
  detail: string;
}

interface JsonReport {
  testResults?: Array<{
    name?: string;
    assertionResults?: Array<{ fullName?: string; title?: string; status?: string }>;
  }>;
}

const notRun = new Set(['skipped', 'pending', 'todo', 'disabled']);

/** The workspace folders (packages/*, apps/*, mcp_servers/*) that have a `test` script. */
export function testedWorkspaces(repoRoot: string): string[] {
  const folders: string[] = [];
  for (const group of ['packages', 'apps', 'mcp_servers']) {
    const groupPath = join(repoRoot, group);
    if (!existsSync(groupPath)) continue;
    for (const name of readdirSync(groupPath).sort()) {
      const manifest = join(groupPath, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const scripts = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> })
        .scripts;
      if (scripts?.test) folders.push(join(groupPath, name));
    }
  }
  return folders;
}

/** Skipped tests in one vitest JSON report that are not documented platform skips. */
export function undocumentedSkips(report: JsonReport, workspace: string): SkipFinding[] {
  const findings: SkipFinding[] = [];
  for (const file of report.testResults ?? []) {
    for (const assertion of file.assertionResults ?? []) {
      if (!notRun.has(assertion.status ?? '')) continue;
      const title = assertion.fullName ?? assertion.title ?? '(untitled)';
      if (title.includes(platformSkipMarker)) continue;
      findings.push({ workspace, detail: `${assertion.status}: ${title} (${file.name ?? 'unknown file'})` });
    }
  }
  return findings;
}

/**
 * Reads every workspace's last report. A missing report is a finding when `requireReports` is set
 * (under CI, where the package tests run just before this check).
 */
export function findSkippedTests(repoRoot: string, requireReports: boolean): SkipFinding[] {
  const findings: SkipFinding[] = [];
  for (const folder of testedWorkspaces(repoRoot)) {
    const workspace = relative(repoRoot, folder);
    const path = join(folder, resultsFileName);
    if (!existsSync(path)) {
      if (requireReports)
        findings.push({ workspace, detail: `no ${resultsFileName}: its tests did not run` });
      continue;
    }
    findings.push(...undocumentedSkips(JSON.parse(readFileSync(path, 'utf8')) as JsonReport, workspace));
  }
  return findings;
}
