import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect } from 'vitest';
import { startFakeJma } from '../src/testing/fake-jma.js';
import { eraOptions, weatherServerScenarios } from './scenarios.js';
import { serverEntry, serverEnvironment } from './spawn.js';

describe('weather server', () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const)
    weatherServerScenarios(`the built executable over stdio, protocol ${era}`, async () => {
      const jma = await startFakeJma();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [serverEntry],
        env: serverEnvironment(jma.baseUrl),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'stdio-test', version: '0' }, eraOptions(era));
      await client.connect(transport);
      expect(client.getNegotiatedProtocolVersion()).toBe(era);
      return {
        client,
        jma,
        async close() {
          await client.close();
          await jma.close();
        },
      };
    });
});
