import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { it } from 'vitest';
import { descendantsOf } from '../src/mcp/process-tree.js';
import { fixtures, nodeServer } from '../test/helpers.js';
import { percentile, printTable, verdict } from './table.js';

const echo = join(fixtures, 'echo-server.mjs');

function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

// The built package, as an app runs it: loaded by Node itself like the bare SDK beside it (the bench
// config externalizes dist/), not through vitest's module transform. Typed by the sources it is built
// from; `pnpm bench` builds first. A path in a variable, so type-checking a fresh clone needs no build.
const built = new URL('../dist/index.js', import.meta.url).href;
const { McpClientManager } = (await import(built)) as typeof import('../src/mcp/client-manager.js');

const echoEntry = (name: string) => nodeServer(name, echo);

async function timeConnect(count: number, sequential = false): Promise<number> {
  const manager = new McpClientManager();
  const servers = Array.from({ length: count }, (_, index) => echoEntry(`echo${index}`));
  const started = performance.now();
  if (sequential) for (const server of servers) await manager.connect([server]);
  else await manager.connect(servers);
  const elapsed = performance.now() - started;
  await manager.close();
  return elapsed;
}

it('McpClientManager benchmark', async () => {
  const one: number[] = [];
  const ten: number[] = [];
  const tenSequential: number[] = [];
  for (let run = 0; run < 5; run++) {
    one.push(await timeConnect(1));
    ten.push(await timeConnect(10));
    tenSequential.push(await timeConnect(10, true));
  }

  // Per-call overhead and throughput: the manager's callTool against the SDK's bare Client.callTool,
  // same server kind; both plain, and both listening for progress (each then sends a progress token,
  // which costs the server's SDK several microseconds to parse: compare like with like).
  // Each side has three server processes of its own (a manager each, a client each) and its calls go
  // round them: which core a child lands on, and how warm it is, differs from one process to the next
  // by more than the host's own cost, and three per side average it out.
  const pool = 3;
  const inFlight = 32;
  const managers = await Promise.all(
    Array.from({ length: pool }, async () => {
      // The per-server gate set to 32 for the throughput part; sequential calls never wait on it.
      const manager = new McpClientManager({ maxConcurrentPerServer: inFlight });
      await manager.connect([echoEntry('echo')]);
      return manager;
    }),
  );
  const bareClient = async () => {
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [echo], stderr: 'ignore' }),
    );
    // As any real client (and the manager) does, a bare client lists the tools first: the SDK then
    // knows each tool's output schema and task support, and checks every result against them.
    await client.listTools();
    return client;
  };
  const bares = await Promise.all(Array.from({ length: pool }, bareClient));
  const baresWithToken = await Promise.all(Array.from({ length: pool }, bareClient));
  const listeningManagers = await Promise.all(
    Array.from({ length: pool }, async () => {
      const manager = new McpClientManager({ maxConcurrentPerServer: inFlight });
      await manager.connect([echoEntry('echo')]);
      return manager;
    }),
  );
  const viaManager = managers.map((manager) => () => manager.callTool('mcp__echo__echo', { message: 'x' }));
  const viaSdk = bares.map((client) => () => client.callTool({ name: 'echo', arguments: { message: 'x' } }));
  // The same listening for progress, as the chat loop's calls do: both then carry a progress token.
  const viaManagerListening = listeningManagers.map(
    (manager) => () => manager.callTool('mcp__echo__echo', { message: 'x' }, { onProgress: () => {} }),
  );
  const viaSdkWithToken = baresWithToken.map(
    (client) => () =>
      client.callTool({ name: 'echo', arguments: { message: 'x' } }, { onprogress: () => {} }),
  );
  const calls = 2000;
  const sides = [viaManager, viaSdk, viaSdkWithToken, viaManagerListening];
  const perCall: number[][] = sides.map(() => []);
  for (let index = -200; index < calls; index++) {
    // Each round starts with another side (the first call after a pause is the slowest) and takes the
    // next process of each; the first 200 rounds warm everything up.
    for (let turn = 0; turn < sides.length; turn++) {
      const side = (index + 200 + turn) % sides.length;
      const call = sides[side]?.[(index + 200) % pool] as () => Promise<unknown>;
      const started = performance.now();
      await call();
      if (index >= 0) perCall[side]?.push(performance.now() - started);
    }
  }
  const [managerCalls = [], sdkCalls = [], sdkTokenCalls = [], listeningCalls = []] = perCall;
  // Throughput with 32 calls in flight at once. The sides take turns batch by batch (a batch is 32
  // calls started together and awaited together, on one process), so a slower stretch of this shared
  // machine falls on all alike; each side's rate is its calls over the time its own batches took.
  const batches = 1500;
  const batchTimes: number[][] = sides.map(() => []);
  for (let batch = -100; batch < batches; batch++) {
    for (let turn = 0; turn < sides.length; turn++) {
      const side = (batch + 100 + turn) % sides.length;
      const call = sides[side]?.[(batch + 100) % pool] as () => Promise<unknown>;
      const started = performance.now();
      await Promise.all(Array.from({ length: inFlight }, call));
      if (batch >= 0) batchTimes[side]?.push(performance.now() - started);
    }
  }
  const rateOf = (times: number[] = []) =>
    (inFlight * times.length) / (times.reduce((sum, ms) => sum + ms, 0) / 1000);
  const [wideRate, bareRate, tokenRate, listeningRate] = batchTimes.map(rateOf) as number[] as [
    number,
    number,
    number,
    number,
  ];
  await Promise.all(
    [...managers, ...bares, ...baresWithToken, ...listeningManagers].map((part) => part.close()),
  );

  const many = new McpClientManager();
  await many.connect(Array.from({ length: 10 }, (_, index) => echoEntry(`echo${index}`)));
  const children = await descendantsOf(process.pid);
  const childRss = children.reduce((sum, pid) => sum + rssMiB(pid), 0);
  const hostRss = process.memoryUsage().rss / 1024 / 1024;
  await many.close();

  const managerP50 = percentile(managerCalls, 0.5);
  const sdkP50 = percentile(sdkCalls, 0.5);
  const sdkTokenP50 = percentile(sdkTokenCalls, 0.5);
  const listeningP50 = percentile(listeningCalls, 0.5);
  const format = (value: number) => value.toFixed(3);
  printTable('@ai-assistant/host-core McpClientManager benchmark (stdio echo servers)', [
    ['connect 1 stdio server (median of 5)', `${format(percentile(one, 0.5))} ms`],
    ['connect 10 stdio servers in parallel (median of 5)', `${format(percentile(ten, 0.5))} ms`],
    ['  the same 10 one after another, for comparison', `${format(percentile(tenSequential, 0.5))} ms`],
    [
      "  ratio parallel 10 / 1 (CPU-bound starts on this machine's cores)",
      `${(percentile(ten, 0.5) / percentile(one, 0.5)).toFixed(2)}×`,
    ],
    [
      `callTool p50 via manager / bare SDK Client (${calls} calls each, on ${pool} processes)`,
      `${format(managerP50)} / ${format(sdkP50)} ms`,
    ],
    [
      '  ratio (aim ≤ 1.1×) and added per call (aim < 0.2 ms)',
      `${(managerP50 / sdkP50).toFixed(3)}× ${verdict(managerP50 / sdkP50 <= 1.1)} / ${format(managerP50 - sdkP50)} ms ${verdict(managerP50 - sdkP50 < 0.2)}`,
    ],
    [
      '  listening for progress (a progress token on the wire, as every call of a turn): manager / bare SDK',
      `${format(listeningP50)} / ${format(sdkTokenP50)} ms = ${(listeningP50 / sdkTokenP50).toFixed(3)}× ${verdict(listeningP50 / sdkTokenP50 <= 1.1)}`,
    ],
    [
      `throughput, ${inFlight} calls in flight: manager / bare SDK (${batches} batches each, in turn, on ${pool} processes)`,
      `${wideRate.toFixed(0)} / ${bareRate.toFixed(0)} calls/s`,
    ],
    ['  ratio (aim ≥ 0.95×)', `${(wideRate / bareRate).toFixed(3)}× ${verdict(wideRate / bareRate >= 0.95)}`],
    [
      '  listening for progress: manager / bare SDK',
      `${listeningRate.toFixed(0)} / ${tokenRate.toFixed(0)} calls/s = ${(listeningRate / tokenRate).toFixed(3)}× ${verdict(listeningRate / tokenRate >= 0.95)}`,
    ],
    [
      'RSS with 10 servers: host / 10 children together',
      `${hostRss.toFixed(1)} / ${childRss.toFixed(1)} MiB`,
    ],
  ]);
});
