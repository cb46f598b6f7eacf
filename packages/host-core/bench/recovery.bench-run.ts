import { join } from 'node:path';
import { childProcesses } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { fixtures, nodeServer } from '../test/helpers.js';
import { percentile, printTable, verdict } from './table.js';

const echo = join(fixtures, 'echo-server.mjs');

/** From a kill -9 of the server until a call succeeds again, under the default restart policy. */
async function timeToRecover(): Promise<number> {
  const manager = new McpClientManager();
  await manager.connect([nodeServer('echo', echo)]);
  const [pid] = childProcesses();
  if (!pid) throw new Error('the echo server did not start');
  const killed = performance.now();
  process.kill(pid, 'SIGKILL');
  const deadline = killed + 30_000;
  try {
    while (performance.now() < deadline) {
      try {
        await manager.callTool('mcp__echo__echo', { message: 'back?' });
        if (manager.status()[0]?.state === 'connected') return performance.now() - killed;
      } catch {
        // Still restarting: the call says so; try again shortly.
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the server did not come back within 30 s');
  } finally {
    await manager.close();
  }
}

it('time to recover after kill -9', async () => {
  const samples: number[] = [];
  for (let run = 0; run < 5; run++) samples.push(await timeToRecover());
  const format = (value: number) => `${value.toFixed(0)} ms`;
  printTable(
    '@ai-assistant/host-core recovery (stdio echo server, default restart policy: 1 s + up to 25 % jitter)',
    [
      ['kill -9 → first successful call (median of 5)', format(percentile(samples, 0.5))],
      ['  worst of 5', format(Math.max(...samples))],
      ['  aim: under 2 000 ms (median)', verdict(percentile(samples, 0.5) < 2000)],
    ],
  );
}, 120_000);
