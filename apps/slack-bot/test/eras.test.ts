import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bothErasModel, type ModernServer, startModernServer } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type Harness, mentionBot, startHarness, waitFor } from './harness.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('#45 a 2026-07-28-only server and a 2025-only server in one Slack turn', () => {
  let harness: Harness;
  let modern: ModernServer;

  beforeAll(async () => {
    modern = await startModernServer();
    harness = await startHarness({
      servers: {
        modern: { url: modern.url, approval: 'auto' },
        everything: { command: process.execPath, args: [everythingEntry, 'stdio'], approval: 'auto' },
      },
      mcpEnv: { WORKSPACE_SERVERS_ALLOW: '127.0.0.1' },
    });
    harness.llm.respondWith(bothErasModel);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    modern?.close();
  });

  it('#45 both tools run in one thread and the answer quotes both', async () => {
    const { ts } = await mentionBot(harness, 'C4501', '札幌の天気と echo');
    const answer = await waitFor(() =>
      answers(harness, 'C4501', ts).find((message) => message.text.startsWith('結果')),
    );
    expect(answer.text).toContain('札幌: sunny (2026-07-28)');
    expect(answer.text).toContain('Echo: from 2025');
    // The 2026-07-28 server never saw a request of the older revision.
    expect(new Set(modern.versions)).toEqual(new Set(['2026-07-28']));
  }, 40_000);
});
