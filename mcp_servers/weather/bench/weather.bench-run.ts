import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { it } from 'vitest';
import { startFakeJma } from '../src/testing/fake-jma.js';
import { serverEntry, serverEnvironment } from '../test/spawn.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function peakRssMiB(pid: number | null | undefined): number {
  if (!pid) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function connect(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  return { client, transport };
}

async function coldStartMs(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const { client } = await connect(args, env);
  await client.listTools();
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

async function callLatencies(env: Record<string, string>, calls: number) {
  const { client, transport } = await connect([serverEntry], env);
  const call = () => client.callTool({ name: 'get_weather', arguments: { location: '東京' } });
  await call(); // the first call builds the place index; it is part of cold start, not of latency
  const samples: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    const result = await call();
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`get_weather failed during the benchmark: ${JSON.stringify(result)}`);
  }
  const rss = peakRssMiB(transport.pid);
  await client.close();
  return { samples, rss };
}

it('weather server benchmark', async () => {
  const jma = await startFakeJma();
  const env = serverEnvironment(jma.baseUrl);
  const runs = 20;
  const ours: number[] = [];
  const yardstick: number[] = [];
  for (let index = 0; index < runs; index++) {
    ours.push(await coldStartMs([serverEntry], env));
    yardstick.push(await coldStartMs([everythingEntry, 'stdio'], { PATH: env.PATH ?? '' }));
  }
  const warm = await callLatencies(env, 200);
  const cold = await callLatencies({ ...env, JMA_CACHE: 'off' }, 200);
  await jma.close();

  const format = (value: number) => value.toFixed(2);
  const rows = [
    ['cold start, spawn → tools/list (median of 20)', `${format(percentile(ours, 0.5))} ms`],
    ['  server-everything, same measure (yardstick)', `${format(percentile(yardstick, 0.5))} ms`],
    [
      '  ratio to yardstick (aim ≤ 1.5×)',
      `${format(percentile(ours, 0.5) / percentile(yardstick, 0.5))}× ${percentile(ours, 0.5) / percentile(yardstick, 0.5) <= 1.5 ? 'met' : 'MISSED'}`,
    ],
    [
      'get_weather warm cache p50 / p99 (200 calls)',
      `${format(percentile(warm.samples, 0.5))} / ${format(percentile(warm.samples, 0.99))} ms`,
    ],
    [
      'get_weather cold cache p50 / p99 (200 calls)',
      `${format(percentile(cold.samples, 0.5))} / ${format(percentile(cold.samples, 0.99))} ms`,
    ],
    ['peak RSS of the server (warm run / cold run)', `${format(warm.rss)} / ${format(cold.rss)} MiB`],
  ];
  const width = Math.max(...rows.map(([label]) => (label ?? '').length));
  const table = rows.map(([label, value]) => `| ${(label ?? '').padEnd(width)} | ${value} |`).join('\n');
  process.stdout.write(
    `\n@ai-assistant/mcp-server-weather benchmark (stdio, loopback fake JMA)\n${table}\n\n`,
  );
});
