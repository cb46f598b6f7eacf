#!/usr/bin/env node
// README's test command: every workspace's tests (turbo, two at a time, going on past a failure), then the
// repository's checks, then one line of counts over all of them. Exits 1 when anything failed.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clearReports, reportName, summarize } from './lib/test-summary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

clearReports(root);
const workspaces = run(bin('turbo'), ['run', 'test', '--concurrency=2', '--continue']);
const repository = run(bin('vitest'), [
  'run',
  '--config',
  'vitest.repo.config.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile=${reportName}`,
]);
const summary = summarize(root);
process.stdout.write(`\n${summary.line}\n`);
process.exit(workspaces === 0 && repository === 0 && summary.ok ? 0 : 1);
