#!/usr/bin/env node
// `pnpm audit-export --since 2026-11-01 [--format csv|jsonl] [--workspace T…]`: the audit trail from the
// store (DATA_DIR or DATABASE_URL, as the bot uses it) on stdout, oldest first. Secrets never entered it.
// CSV cells that a spreadsheet would read as a formula start with ' (see `cell`).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const usage = 'usage: pnpm audit-export --since YYYY-MM-DD [--format csv|jsonl] [--workspace <id>]\n';
const since = option('--since');
const format = option('--format') ?? 'jsonl';
const workspace = option('--workspace');
if (!since || Number.isNaN(Date.parse(since)) || !['csv', 'jsonl'].includes(format)) {
  process.stderr.write(usage);
  process.exit(2);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'packages', 'store', 'dist', 'index.js'))) {
  process.stderr.write('The store is not built yet: run pnpm build (or pnpm start once) first.\n');
  process.exit(1);
}
const { loadDotEnv } = await import('../packages/host-core/dist/index.js');
loadDotEnv();
const { openStoreFromEnvironment } = await import('../packages/store/dist/index.js');

let store;
try {
  store = await openStoreFromEnvironment(process.env);
} catch (error) {
  process.stderr.write(`cannot open the store: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const columns = [
  'at',
  'workspace',
  'person',
  'kind',
  'server',
  'tool',
  'arguments',
  'approved_by',
  'approved_at',
  'outcome',
  'duration_ms',
  'detail',
];
// A spreadsheet runs a cell that begins with =, +, -, @, a tab, CR or LF as a formula (OWASP "CSV
// Injection"): such a cell gets one ' in front, and so does one that already begins with ', so removing
// one leading ' from any cell that has one gives back exactly what was recorded. Every cell is quoted,
// so a separator inside one (',' or the ';' some locales use) never starts another.
const formulaStart = /^[=+\-@\t\r\n']/;
const cell = (value) => {
  const text = value === undefined || value === null ? '' : String(value);
  return `"${(formulaStart.test(text) ? `'${text}` : text).replaceAll('"', '""')}"`;
};
const write = (line) =>
  new Promise((resolve) => {
    if (process.stdout.write(line)) resolve();
    else process.stdout.once('drain', resolve);
  });
try {
  if (format === 'csv') await write(`${columns.join(',')}\n`);
  for await (const row of store.audit.since(new Date(since))) {
    if (workspace && row.workspace !== workspace) continue;
    const record = {
      at: row.at.toISOString(),
      workspace: row.workspace,
      person: row.person,
      kind: row.kind,
      server: row.server,
      tool: row.tool,
      arguments: row.arguments,
      approved_by: row.approval?.by,
      approved_at: row.approval?.at.toISOString(),
      outcome: row.outcome,
      duration_ms: row.durationMs,
      detail: row.detail,
    };
    await write(
      format === 'csv'
        ? `${columns.map((column) => cell(record[column])).join(',')}\n`
        : `${JSON.stringify(Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)))}\n`,
    );
  }
} finally {
  await store.close();
}
