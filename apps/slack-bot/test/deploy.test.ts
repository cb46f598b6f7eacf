import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { botUserId, startFakeSlack, startFakeVendor, weatherModel } from '@ai-assistant/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runBotProcess, waitFor } from './harness.js';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');

describe('the deploy folder (what the Docker image contains)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'deploy-'));
  // A deploy folder holds a whole node_modules: removed off the main thread, retried on a busy disk, with
  // a hook limit to match (a synchronous removal once outlived the hook's limit after both tests passed).
  afterAll(() => rm(scratch, { recursive: true, force: true, maxRetries: 10 }), 300_000);

  const deployTo = (folder: string) =>
    spawnSync(process.execPath, [join(repoRoot, 'scripts', 'deploy.mjs'), folder], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, INIT_CWD: repoRoot },
      timeout: 60_000,
    });

  it('never deletes a folder it did not write: a non-empty folder, the repository, its parent, a folder inside it', () => {
    const notes = join(scratch, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'notes.txt'), 'keep me');
    const refused = deployTo(notes);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/is not empty and holds no earlier deploy .*nothing was changed/);
    expect(readdirSync(notes)).toEqual(['notes.txt']);
    for (const [folder, why] of [
      [repoRoot, /holds the repository/],
      ['.', /holds the repository/],
      [join(repoRoot, '..'), /holds the repository/],
      [join(repoRoot, 'apps'), /inside the repository/],
    ] as const) {
      const result = deployTo(folder);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(why);
      expect(result.stderr).not.toMatch(/null/);
    }
    expect(existsSync(join(repoRoot, '.git'))).toBe(true);
  });

  it('runs from a copy outside the repository with plain node and answers a mention with the weather', async () => {
    // An earlier deploy (its marker lists what it wrote) is replaced, stale files and all; one that
    // holds something it did not write (a store left in .data) is refused, nothing lost.
    mkdirSync(join(scratch, 'built'));
    writeFileSync(join(scratch, 'built', '.ai-assistant-deploy'), JSON.stringify({ written: ['stale.txt'] }));
    writeFileSync(join(scratch, 'built', 'stale.txt'), 'from the last deploy');
    mkdirSync(join(scratch, 'built', '.data'));
    const keeping = deployTo(join(scratch, 'built'));
    expect(keeping.status).toBe(2);
    expect(keeping.stderr).toMatch(/holds \.data, which the last deploy did not write/);
    expect(existsSync(join(scratch, 'built', 'stale.txt'))).toBe(true);
    rmSync(join(scratch, 'built', '.data'), { recursive: true });
    const before = ['.', 'apps', 'mcp_servers'].map((folder) => readdirSync(join(repoRoot, folder)).sort());
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'deploy.mjs'), join(scratch, 'built')], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
    // Nothing was written into the repository (pnpm deploy's stray bin folder is removed).
    expect(['.', 'apps', 'mcp_servers'].map((folder) => readdirSync(join(repoRoot, folder)).sort())).toEqual(
      before,
    );
    // Moved elsewhere, as `COPY --from=build` does: nothing may point back into the repository.
    const app = join(scratch, 'moved', 'app');
    cpSync(join(scratch, 'built'), app, { recursive: true, verbatimSymlinks: true });
    rmSync(join(scratch, 'built'), { recursive: true, force: true, maxRetries: 5 });
    expect(existsSync(join(app, 'stale.txt'))).toBe(false);
    expect(existsSync(join(app, '.ai-assistant-deploy'))).toBe(true);
    expect(existsSync(join(app, 'mcp_servers', 'weather', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(app, 'config', 'mcp_servers.json'))).toBe(true);
    // The shipped knowledge entry's folder goes along (../knowledge from config/).
    expect(existsSync(join(app, 'knowledge', 'README.md'))).toBe(true);

    const [slack, llm, jma] = await Promise.all([startFakeSlack(), startFakeVendor(), startFakeJma()]);
    llm.respondWith(weatherModel);
    const bot = runBotProcess('dist/main.js', app, {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-deploy-test-token',
      SLACK_APP_TOKEN: 'xapp-deploy-test-token',
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      OPENAI_API_KEY: 'sk-deploy-test-key-0123',
      OPENAI_BASE_URL: llm.baseURL,
      MCP_ENABLED: 'true',
      // Forwarded to the weather server by the shipped config.
      JMA_BASE_URL: jma.baseUrl,
      MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00',
    });
    const child = bot.child;
    const exited = bot.exited;
    try {
      await slack.connected();
      const { ts } = await slack.mention('C1', '東京の天気を教えて');
      const answer = await waitFor(
        () =>
          slack
            .thread('C1', ts)
            .find((message) => message.user === botUserId && !message.streaming && /晴れ/.test(message.text)),
        30_000,
      );
      expect(answer.text).toContain('晴れ時々くもり');
      expect(jma.hits.get('/bosai/forecast/data/forecast/130000.json')).toBeGreaterThan(0);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await Promise.all([slack.close(), llm.close(), jma.close()]);
      if (child.exitCode !== 0) process.stderr.write(bot.output());
    }
  }, 300_000);
});
