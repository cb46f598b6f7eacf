import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { descendantsOf } from '../src/mcp/process-tree.js';
import { fixtures, nodeServer, weatherServer } from '../test/helpers.js';
import { printTable } from './table.js';

function peakRssMiB(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

it('ChatService benchmark', async () => {
  // Loop overhead: a turn of N rounds (each one echo call) against the same N calls made directly.
  const rounds = 10;
  const turns = 100;
  const mcp = new McpClientManager();
  await mcp.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
  const provider = new ScriptedProvider([
    (call) =>
      call.messages.filter((message) => message.role === 'tool').length >= rounds
        ? { text: 'done' }
        : {
            toolCalls: [
              { id: `c${call.messages.length}`, name: 'mcp__echo__echo', arguments: { message: 'x' } },
            ],
          },
  ]);
  const chat = new ChatService({ provider, tools: mcp, maxIterations: rounds + 1 });
  for (let index = 0; index < 10; index++) await chat.respond({ history: [], userMessage: 'warm' });
  let started = performance.now();
  for (let index = 0; index < turns; index++) await chat.respond({ history: [], userMessage: 'go' });
  const loopMs = performance.now() - started;
  started = performance.now();
  for (let index = 0; index < turns * rounds; index++)
    await mcp.callTool('mcp__echo__echo', { message: 'x' });
  const directMs = performance.now() - started;
  await mcp.close();
  const overheadPerRound = (loopMs - directMs) / (turns * rounds);

  // 200 concurrent answers against one weather server.
  const jma = await startFakeJma();
  const weather = new McpClientManager();
  await weather.connect([weatherServer(jma.baseUrl)]);
  // Places of the Tokyo office: the recorded forecast that matches the pinned clock.
  const places = [
    '東京',
    '八王子',
    '八丈島',
    '新宿区',
    '千代田区',
    '町田',
    '小笠原',
    '三宅島',
    '青梅',
    'Tokyo',
  ];
  const weatherProvider = new ScriptedProvider([
    (call) => {
      const result = call.messages.find((message) => message.role === 'tool');
      if (result) return { text: result.isError ? 'error' : 'ok' };
      const question = call.messages.at(-1)?.content ?? '';
      return {
        toolCalls: [{ id: 'w', name: 'mcp__weather__get_weather', arguments: { location: question } }],
      };
    },
  ]);
  const weatherChat = new ChatService({ provider: weatherProvider, tools: weather });
  await weatherChat.respond({ history: [], userMessage: '東京' });
  const concurrent = 200;
  started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: concurrent }, (_, index) =>
      weatherChat.respond({ history: [], userMessage: places[index % places.length] as string }),
    ),
  );
  const elapsed = performance.now() - started;
  const serverPids = await descendantsOf(process.pid);
  const serverRss = serverPids.reduce((sum, pid) => sum + peakRssMiB(pid), 0);
  const hostRss = peakRssMiB(process.pid);
  await weather.close();
  await jma.close();
  const succeeded = answers.filter((answer) => answer.text === 'ok').length;

  printTable('@ai-assistant/host-core ChatService benchmark', [
    [
      `loop overhead per round beyond the tool call (${turns} turns × ${rounds} rounds)`,
      `${overheadPerRound.toFixed(3)} ms`,
    ],
    ['  the same calls made directly, per call', `${(directMs / (turns * rounds)).toFixed(3)} ms`],
    [`${concurrent} concurrent respond() on one weather server: succeeded`, `${succeeded} / ${concurrent}`],
    [
      '  wall time / throughput',
      `${elapsed.toFixed(0)} ms / ${((concurrent / elapsed) * 1000).toFixed(0)} answers/s`,
    ],
    ['  peak RSS host / weather server', `${hostRss.toFixed(1)} / ${serverRss.toFixed(1)} MiB`],
  ]);
});
