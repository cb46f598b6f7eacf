import { describe, expect, it } from 'vitest';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { recordingLogger, remoteServer, startEverything } from './helpers.js';

describe('a normal close logs no warnings', () => {
  for (const mode of ['streamableHttp', 'sse'] as const) {
    it(`server-everything over ${mode}`, async () => {
      const { url, child } = await startEverything(mode);
      const logger = recordingLogger();
      const manager = new McpClientManager({ env: {}, logger, connectTimeoutMs: 10_000 });
      try {
        await manager.connect([remoteServer('everything', mode === 'sse' ? 'sse' : 'http', url)]);
        expect(manager.status()[0]?.state).toBe('connected');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await manager.close();
        await new Promise((resolve) => setTimeout(resolve, 300));
        const warnings = logger.lines.filter((line) => line.level === 'warn' || line.level === 'error');
        expect(warnings.map((line) => `${line.message} ${JSON.stringify(line.fields)}`)).toEqual([]);
      } finally {
        child.kill();
      }
    });
  }
});
