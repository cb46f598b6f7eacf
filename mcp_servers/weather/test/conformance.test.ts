import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeJma } from '../src/testing/fake-jma.js';
import { serverEnvironment, startHttpServer, stop } from './spawn.js';

const conformanceBin = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const baseline = resolve(import.meta.dirname, '..', 'conformance-baseline.yml');

describe('MCP conformance suite against --http', () => {
  it('passes every scenario except those needing the suite’s own fixture tools', async () => {
    const jma = await startFakeJma();
    const server = await startHttpServer(serverEnvironment(jma.baseUrl));
    try {
      const run = await new Promise<{ code: number | null; output: string }>((resolvePromise) => {
        const child = spawn(
          process.execPath,
          [conformanceBin, 'server', '--url', server.url, '--expected-failures', baseline],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
        });
        child.stderr.on('data', (chunk) => {
          output += chunk;
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolvePromise({ code, output });
        });
      });
      const passed = Number(/Total: (\d+) passed/.exec(run.output)?.[1] ?? 0);
      expect(run.output).toContain('Baseline check passed');
      expect(run.code, run.output.slice(-2000)).toBe(0);
      expect(passed).toBeGreaterThanOrEqual(10);
    } finally {
      await stop(server.child);
      await jma.close();
    }
  }, 120_000);
});
