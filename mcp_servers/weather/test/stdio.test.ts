import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import { describe } from 'vitest';
import { startFakeJma } from '../src/testing/fake-jma.js';
import { weatherServerScenarios } from './scenarios.js';
import { serverEntry, serverEnvironment } from './spawn.js';

describe('weather server', () => {
  weatherServerScenarios('the built executable over stdio', async () => {
    const jma = await startFakeJma();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverEntry],
      env: serverEnvironment(jma.baseUrl),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0' });
    await client.connect(transport);
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
