import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'audit-export-'));

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
    const store = await openStore({ dataDir, env: {} });
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
    await store.close();
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes JSON lines since a date, and CSV with quoted cells', async () => {
    const lines = (await exportAudit('--since', '2026-11-01')).stdout.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        person: 'U1',
        tool: 'create_ticket',
        approved_by: 'U1',
        outcome: 'ok',
        duration_ms: 420,
      }),
    ]);
    const csv = (await exportAudit('--since', '2026-09-01', '--format', 'csv')).stdout.trim().split('\n');
    expect(csv[0]).toBe(
      'at,workspace,person,kind,server,tool,arguments,approved_by,approved_at,outcome,duration_ms,detail',
    );
    expect(csv).toHaveLength(3);
    expect(csv[1]).toContain('"{""title"":""printer, \\""jammed\\""""}"');
  }, 120_000);

  it('a missing or malformed --since is a usage error', async () => {
    const failed = await exportAudit('--since', 'yesterday').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/usage: pnpm audit-export --since YYYY-MM-DD/);
  });
});
