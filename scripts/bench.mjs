#!/usr/bin/env node
// `pnpm bench [--report-only]`: every workspace's benchmarks, one at a time, their tables as they come,
// then a summary of the aims met and missed. Exits 1 when an aim is missed, unless --report-only.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aimRows, benchSummary } from './lib/bench-summary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportOnly = process.argv.includes('--report-only');
const turbo = spawn(
  join(root, 'node_modules', '.bin', 'turbo'),
  ['run', 'bench', '--concurrency=1', '--output-logs=new-only', '--log-order=grouped'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
);
let output = '';
turbo.stdout.setEncoding('utf8');
turbo.stdout.on('data', (text) => {
  output += text;
  process.stdout.write(text);
});
const code = await new Promise((resolve) => turbo.on('close', (exitCode) => resolve(exitCode ?? 1)));
const rows = aimRows(output);
process.stdout.write(`\n${benchSummary(rows)}\n`);
if (code !== 0) {
  process.stdout.write('bench: a benchmark failed to run (see above)\n');
  process.exit(1);
}
process.exit(!reportOnly && rows.some((row) => !row.met) ? 1 : 0);
