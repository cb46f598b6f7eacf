import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { it } from 'vitest';
import { descendantsOf } from '../src/mcp/process-tree.js';
import { clientCapabilities } from '../src/mcp/server-requests.js';
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

/** The two eras, each pinned on both sides: the manager by `protocol_version`, the bare client by its negotiation. */
const eras = [
  { revision: '2025-11-25' as const, negotiation: { mode: 'legacy' as const } },
  { revision: '2026-07-28' as const, negotiation: { mode: { pin: '2026-07-28' } } },
];
type Era = (typeof eras)[number];

const echoEntry = (name: string, era: Era) => nodeServer(name, echo, [], { protocolVersion: era.revision });

const bareClient = async (era: Era) => {
  // The host's own capabilities: in 2026-07-28 every request carries them, so like is compared with like.
  const client = new Client(
    { name: 'bench', version: '0' },
    { capabilities: clientCapabilities, versionNegotiation: era.negotiation },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [echo], stderr: 'ignore' }),
  );
  // As any real client (and the manager) does, a bare client lists the tools first: the SDK then
  // knows each tool's output schema, and checks every result against it.
  await client.listTools();
  return client;
};

/** Connecting `count` servers at once: through a manager, or as that many bare clients. */
async function timeConnect(era: Era, count: number, viaManager: boolean): Promise<number> {
  const started = performance.now();
  if (viaManager) {
    const manager = new McpClientManager();
    await manager.connect(Array.from({ length: count }, (_, index) => echoEntry(`echo${index}`, era)));
    const elapsed = performance.now() - started;
    await manager.close();
    return elapsed;
  }
  const clients = await Promise.all(Array.from({ length: count }, () => bareClient(era)));
  const elapsed = performance.now() - started;
  await Promise.all(clients.map((client) => client.close()));
  return elapsed;
}

async function measureEra(era: Era): Promise<Array<[string, string]>> {
  // Connecting: 1 and 10 servers, the manager and bare clients taking turns (median of 5 each).
  const one: number[] = [];
  const ten: number[] = [];
  const tenBare: number[] = [];
  for (let run = 0; run < 5; run++) {
    one.push(await timeConnect(era, 1, true));
    if (run % 2 === 0) tenBare.push(await timeConnect(era, 10, false));
    ten.push(await timeConnect(era, 10, true));
    if (run % 2 === 1) tenBare.push(await timeConnect(era, 10, false));
  }

  // Per-call overhead and throughput: the manager's callTool against the SDK's bare Client.callTool,
  // same server kind, same era; both plain, and both listening for progress (each then sends a
  // progress token, which costs the server's SDK several microseconds to parse: compare like with like).
  // Each side has three server processes of its own (a manager each, a client each) and its calls go
  // round them: which core a child lands on, and how warm it is, differs from one process to the next
  // by more than the host's own cost, and three per side average it out.
  const pool = 3;
  const inFlight = 32;
  const newManager = async () => {
    // The per-server gate set to 32 for the throughput part; sequential calls never wait on it.
    const manager = new McpClientManager({ maxConcurrentPerServer: inFlight });
    await manager.connect([echoEntry('echo', era)]);
    return manager;
  };
  const managers = await Promise.all(Array.from({ length: pool }, newManager));
  const bares = await Promise.all(Array.from({ length: pool }, () => bareClient(era)));
  const baresWithToken = await Promise.all(Array.from({ length: pool }, () => bareClient(era)));
  const listeningManagers = await Promise.all(Array.from({ length: pool }, newManager));
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
  const calls = 1500;
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
  const batches = 1000;
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
  const [wideRate, bareRate, tokenRate, listeningRate] = batchTimes.map(rateOf) as [
    number,
    number,
    number,
    number,
  ];
  await Promise.all(
    [...managers, ...bares, ...baresWithToken, ...listeningManagers].map((part) => part.close()),
  );

  const many = new McpClientManager();
  await many.connect(Array.from({ length: 10 }, (_, index) => echoEntry(`echo${index}`, era)));
  const children = await descendantsOf(process.pid);
  const childRss = children.reduce((sum, pid) => sum + rssMiB(pid), 0);
  await many.close();

  const managerP50 = percentile(managerCalls, 0.5);
  const sdkP50 = percentile(sdkCalls, 0.5);
  const sdkTokenP50 = percentile(sdkTokenCalls, 0.5);
  const listeningP50 = percentile(listeningCalls, 0.5);
  const tenP50 = percentile(ten, 0.5);
  const tenBareP50 = percentile(tenBare, 0.5);
  const format = (value: number) => value.toFixed(3);
  const at = `(${era.revision})`;
  return [
    [`${at} connect 1 stdio server (median of 5)`, `${format(percentile(one, 0.5))} ms`],
    [
      `${at} connect 10 stdio servers at once: manager / 10 bare v2 Clients (median of 5)`,
      `${format(tenP50)} / ${format(tenBareP50)} ms`,
    ],
    [
      `${at}   ratio (aim ≤ 1.1×)`,
      `${(tenP50 / tenBareP50).toFixed(3)}× ${verdict(tenP50 / tenBareP50 <= 1.1)}`,
    ],
    [
      `${at} callTool p50 via manager / bare v2 Client (${calls} calls each, on ${pool} processes)`,
      `${format(managerP50)} / ${format(sdkP50)} ms`,
    ],
    [
      `${at}   ratio (aim ≤ 1.1×) and added per call (aim < 0.2 ms)`,
      `${(managerP50 / sdkP50).toFixed(3)}× ${verdict(managerP50 / sdkP50 <= 1.1)} / ${format(managerP50 - sdkP50)} ms ${verdict(managerP50 - sdkP50 < 0.2)}`,
    ],
    [
      `${at}   listening for progress (a progress token on the wire, as every call of a turn): manager / bare`,
      `${format(listeningP50)} / ${format(sdkTokenP50)} ms = ${(listeningP50 / sdkTokenP50).toFixed(3)}× ${verdict(listeningP50 / sdkTokenP50 <= 1.1)}`,
    ],
    [
      `${at} throughput, ${inFlight} calls in flight: manager / bare v2 Client (${batches} batches each, in turn)`,
      `${wideRate.toFixed(0)} / ${bareRate.toFixed(0)} calls/s`,
    ],
    [
      `${at}   ratio (aim ≥ 0.95×)`,
      `${(wideRate / bareRate).toFixed(3)}× ${verdict(wideRate / bareRate >= 0.95)}`,
    ],
    [
      `${at}   listening for progress: manager / bare`,
      `${listeningRate.toFixed(0)} / ${tokenRate.toFixed(0)} calls/s = ${(listeningRate / tokenRate).toFixed(3)}× ${verdict(listeningRate / tokenRate >= 0.95)}`,
    ],
    [`${at} RSS of the 10 server processes together`, `${childRss.toFixed(1)} MiB`],
  ];
}

it('McpClientManager benchmark, each protocol era', async () => {
  const rows: Array<[string, string]> = [];
  for (const era of eras) rows.push(...(await measureEra(era)));
  printTable(
    '@ai-assistant/host-core McpClientManager benchmark (stdio echo servers, SDK v2, both eras)',
    rows,
  );
});
