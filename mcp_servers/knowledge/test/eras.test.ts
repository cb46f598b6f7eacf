import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

describe('#45 the built executable over --http, in both protocol eras', () => {
  let folder: string;
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-eras-'));
    writeFileSync(join(folder, 'leave.md'), '# Leave\n\nAnnual leave is requested in the HR portal.\n');
    child = spawn(process.execPath, [entry, '--docs', folder, '--http', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    url = await new Promise<string>((resolvePromise, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /"msg":"listening","url":"([^"]+)"/.exec(stderr)?.[1];
        if (found) resolvePromise(found);
      });
      child.once('exit', (code) => reject(new Error(`exited (${code}) before listening: ${stderr}`)));
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('searches in both eras; a changed folder reaches the 2025 session directly and the 2026-07-28 client on its listen stream', async () => {
    const clients: Record<'2025-11-25' | '2026-07-28', Client> = {
      '2025-11-25': new Client({ name: 'legacy', version: '0' }),
      '2026-07-28': new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: 'auto' } }),
    };
    try {
      const heard: Array<Promise<void>> = [];
      for (const [era, client] of Object.entries(clients)) {
        heard.push(
          new Promise((resolvePromise) =>
            client.setNotificationHandler('notifications/resources/list_changed', async () =>
              resolvePromise(),
            ),
          ),
        );
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        expect(client.getNegotiatedProtocolVersion()).toBe(era);
        const result = (await client.callTool({
          name: 'search_knowledge',
          arguments: { query: 'annual leave' },
        })) as CallToolResult;
        expect(JSON.stringify(result.structuredContent), era).toContain('leave');
      }
      const subscription = await clients['2026-07-28'].listen({ resourcesListChanged: true });
      expect(subscription.honoredFilter).toMatchObject({ resourcesListChanged: true });
      writeFileSync(join(folder, 'expenses.md'), '# Expenses\n\nReceipts go to the finance team.\n');
      await Promise.all(heard);
      await subscription.close();
    } finally {
      await Promise.allSettled(Object.values(clients).map((client) => client.close()));
    }
  });
});
