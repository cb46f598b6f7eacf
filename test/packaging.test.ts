import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTarballs, missingFromTarball, packWorkspace, publishedWorkspaces } from './packaging.js';

const repoRoot = resolve(import.meta.dirname, '..');

// What a user of the published packages does, in a folder outside the workspace: install the tarballs
// (without a registry: see installTarballs), start each server's bin through npx, and use host-core and
// llm-providers from there. The stand-in for JMA is the repository's, not part of any package.
const fakeJma = pathToFileURL(join(repoRoot, 'mcp_servers/weather/dist/testing/index.js')).href;
const consumerScript = `
import { McpClientManager } from '@ai-assistant/host-core';
import { AnthropicProvider, OpenAIProvider } from '@ai-assistant/llm-providers';
import { startFakeJma } from '${fakeJma}';

const jma = await startFakeJma();
const base = { transport: 'stdio', command: 'npx', cwd: process.cwd(), timeoutMs: 30000, disabled: false };
const mcp = new McpClientManager({ connectTimeoutMs: 60000 });
await mcp.connect([
  { ...base, name: 'weather', args: ['--no-install', 'mcp-server-weather'],
    env: { JMA_BASE_URL: jma.baseUrl, MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00' } },
  { ...base, name: 'knowledge', args: ['--no-install', 'mcp-server-knowledge'], env: {} },
]);
const forecast = await mcp.callTool('mcp__weather__get_weather', { location: '東京' });
const providers = [
  new OpenAIProvider({ model: 'm', apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' }).name,
  new AnthropicProvider({ model: 'm', apiKey: 'k', baseURL: 'http://127.0.0.1:9' }).name,
];
const result = { status: mcp.status(), tools: mcp.listTools().map((tool) => tool.name), forecast, providers };
await mcp.close();
await jma.close();
process.stdout.write(JSON.stringify(result));
`;

describe('packaging: the published tarballs work on their own', () => {
  const workspaces = publishedWorkspaces(repoRoot);
  let scratch: string;
  const tarballs = new Map<string, string>();

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'packaging-'));
    mkdirSync(join(scratch, 'tarballs'));
    for (const workspace of workspaces) {
      tarballs.set(workspace.name, packWorkspace(repoRoot, workspace, join(scratch, 'tarballs')));
    }
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 5 }));

  it('publishes the seven packages, each with LICENSE, README, repository and its bin/exports files', () => {
    expect([...tarballs.keys()].sort()).toEqual([
      '@ai-assistant/chat-types',
      '@ai-assistant/host-core',
      '@ai-assistant/llm-providers',
      '@ai-assistant/mcp-server-kit',
      '@ai-assistant/mcp-server-knowledge',
      '@ai-assistant/mcp-server-weather',
      '@ai-assistant/mcp-server-web',
    ]);
    for (const [name, tarball] of tarballs) {
      const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
      // Each package folder keeps a copy of the root LICENSE (so a server folder stays movable); no drift.
      expect(execFileSync('tar', ['-xzOf', tarball, 'package/LICENSE'], { encoding: 'utf8' }), name).toBe(
        readFileSync(join(repoRoot, 'LICENSE'), 'utf8'),
      );
      expect(listing, name).toContain('package/README.md');
      // Tests, their recorded data and the stand-ins built from them stay in the repository.
      expect(
        listing.split('\n').filter((line) => /^package\/(test|dist\/testing)\//.test(line)),
        name,
      ).toEqual([]);
      expect(missingFromTarball(tarball), name).toEqual([]);
      const manifest = JSON.parse(
        execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
      ) as Record<string, unknown>;
      expect(manifest, name).toMatchObject({ license: 'MIT', repository: { type: 'git' } });
      expect(JSON.stringify(manifest), name).not.toContain('workspace:');
      expect(statSync(tarball).size, name).toBeGreaterThan(0);
    }
  });

  it('installs from the tarballs alone; npx runs both servers; host-core and llm-providers use them', () => {
    const consumer = join(scratch, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), '{"name":"consumer","private":true,"type":"module"}');
    installTarballs(consumer, tarballs);
    writeFileSync(join(consumer, 'check.mjs'), consumerScript);
    const output = execFileSync(process.execPath, ['check.mjs'], {
      cwd: consumer,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      timeout: 120_000,
    });
    const result = JSON.parse(output) as {
      status: Array<{ name: string; state: string }>;
      tools: string[];
      forecast: { text: string; isError: boolean };
      providers: string[];
    };
    expect(result.status.map((server) => [server.name, server.state])).toEqual([
      ['weather', 'connected'],
      ['knowledge', 'connected'],
    ]);
    expect(result.tools).toEqual(
      expect.arrayContaining([
        'mcp__weather__get_weather',
        'mcp__knowledge__search_knowledge',
        'mcp__knowledge__get_document',
      ]),
    );
    expect(result.forecast.isError).toBe(false);
    expect(result.forecast.text).toContain('東京');
    expect(result.providers).toEqual(['openai', 'anthropic']);
  }, 300_000);

  describe('the checker itself', () => {
    // Repacks the weather tarball without one file, as a broken `files` list would.
    function weatherWithout(path: string): string {
      const folder = mkdtempSync(join(scratch, 'broken-'));
      execFileSync('tar', ['-xzf', tarballs.get('@ai-assistant/mcp-server-weather') as string, '-C', folder]);
      unlinkSync(join(folder, 'package', path));
      const broken = join(folder, 'broken.tgz');
      execFileSync('tar', ['-czf', broken, '-C', folder, 'package']);
      return broken;
    }

    it('fails when a tarball lacks the file its bin names, or the server that file starts', () => {
      expect(missingFromTarball(weatherWithout('bin/mcp-server-weather.js'))).toEqual([
        'bin/mcp-server-weather.js (named by bin mcp-server-weather)',
      ]);
      expect(missingFromTarball(weatherWithout('dist/index.js'))).toEqual([
        'dist/index.js (imported by bin/mcp-server-weather.js)',
      ]);
    });

    it('fails when a file that an export imports is missing', () => {
      const problems = missingFromTarball(weatherWithout('dist/jma/client.js'));
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.every((problem) => problem.startsWith('dist/jma/client.js (imported by dist/'))).toBe(
        true,
      );
    });

    it('says so when a package is not built', () => {
      const unbuilt = mkdtempSync(join(scratch, 'unbuilt-'));
      writeFileSync(join(unbuilt, 'package.json'), '{"name":"@ai-assistant/unbuilt"}');
      expect(() =>
        packWorkspace(repoRoot, { name: '@ai-assistant/unbuilt', folder: unbuilt }, scratch),
      ).toThrow(/@ai-assistant\/unbuilt is not built .*run `pnpm build` first/);
    });
  });
});
