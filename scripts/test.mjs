#!/usr/bin/env node
// README's test command: build every workspace (turbo), then every test of the repository in one vitest
// run (vitest.config.ts: each workspace a project, the repository's checks another), then one line of
// counts. Exits 1 when anything failed, was skipped without a platform reason, or did not run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clearReports, summarize } from './lib/test-summary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

clearReports(root);
if (run(bin('turbo'), ['run', 'build']) !== 0) {
  process.stdout.write('\nthe build failed: no test ran\n');
  process.exit(1);
}
const tests = run(bin('vitest'), ['run', ...process.argv.slice(2)]);
const summary = summarize(root);
process.stdout.write(`\n${summary.line}\n`);
process.exit(tests === 0 && summary.ok ? 0 : 1);
