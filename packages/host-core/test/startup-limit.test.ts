import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childProcesses } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { nodeServer } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  expect(childProcesses()).toEqual([]);
});

describe('the start-up limit', () => {
  it('is per entry (startup_timeout_ms), and a server started by npx is told why it may be slow and what to do', async () => {
    // A stand-in for `npx -y some-server` still downloading: a process named npx that never answers.
    const folder = mkdtempSync(join(tmpdir(), 'startup-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true, maxRetries: 5 }));
    const npx = join(folder, 'npx');
    writeFileSync(npx, `#!${process.execPath}\nsetInterval(() => {}, 1000);\n`);
    chmodSync(npx, 0o755);
    // The manager's own limit is far away: only the entry's can end the start.
    const mcp = new McpClientManager({ connectTimeoutMs: 600_000 });
    cleanups.push(() => mcp.close());
    await mcp.connect([
      {
        ...nodeServer('slow', 'unused'),
        command: npx,
        args: ['-y', '@example/slow-server'],
        startupTimeoutMs: 300,
        restart: 'never',
      },
    ]);
    const [status] = mcp.status();
    expect(status?.state).toBe('failed');
    // Each attempt that ran out of time was followed by one with twice the limit, up to six times it.
    expect(status?.reason).toContain('no answer to initialize/tools/list within 1800 ms');
    expect(status?.reason).toContain(
      `npx may still be downloading the server on its first start: run "${npx} -y @example/slow-server" once by hand`,
    );
    expect(status?.reason).toContain('"startup_timeout_ms" above 1800');
  });
});
