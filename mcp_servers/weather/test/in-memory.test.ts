import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe } from 'vitest';
import { JmaClient } from '../src/jma/client.js';
import { createServer } from '../src/server.js';
import { startFakeJma } from '../src/testing/fake-jma.js';
import { recordedNow, weatherServerScenarios } from './scenarios.js';

describe('weather server', () => {
  weatherServerScenarios('in memory (createServer)', async () => {
    const jma = await startFakeJma();
    const now = () => new Date(recordedNow);
    const jmaClient = new JmaClient({ baseUrl: jma.baseUrl, timeoutMs: 500, now });
    const server = createServer({ jma: jmaClient, now });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    return {
      client,
      jma,
      async close() {
        await client.close();
        await server.close();
        await jmaClient.close();
        await jma.close();
      },
    };
  });
});
