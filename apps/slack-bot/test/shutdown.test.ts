import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { descendantsOf } from '@ai-assistant/host-core/internal';
import { startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { botUserId, startFakeSlack, startFakeVendor, weatherModel } from '@ai-assistant/test-kit';
import { describe, expect, it } from 'vitest';
import { freePort, runBotProcess, waitFor, writeMcpConfig } from './harness.js';

const mainEntry = resolve(import.meta.dirname, '..', 'dist', 'main.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the built app as a process', () => {
  it('SIGTERM with an answer in flight: it completes, the process exits 0, no child process remains', async () => {
    const [slack, llm, jma] = await Promise.all([startFakeSlack(), startFakeVendor(), startFakeJma()]);
    // A slow model, so the answer is still being written when the signal comes.
    llm.respondWith(async (request) => {
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 700));
      return weatherModel(request);
    });
    const config = writeMcpConfig(jma.baseUrl);
    const workdir = mkdtempSync(resolve(tmpdir(), 'bot-run-'));
    const bot = runBotProcess(mainEntry, workdir, {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-process-test-token',
      SLACK_APP_TOKEN: 'xapp-process-test-token',
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      OPENAI_API_KEY: 'sk-process-test-key-0123',
      OPENAI_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: config.path,
    });
    const child = bot.child;
    const exited = bot.exited;
    try {
      await slack.connected();
      // The app connects MCP before it opens the socket: the weather server is running now.
      const childPids = await descendantsOf(child.pid as number);
      expect(childPids.length).toBeGreaterThan(0);
      const { ts } = await slack.mention('C1', '東京の天気を教えて');
      await waitFor(() => llm.requests.length >= 1);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const answer = slack.thread('C1', ts).find((message) => message.user === botUserId);
      expect(answer?.text).toContain('晴れ時々くもり');
      expect(childPids.filter(alive)).toEqual([]);
      // Secrets never reach the log.
      expect(bot.output()).toContain('shutting down');
      for (const secret of ['xoxb-process-test-token', 'xapp-process-test-token', 'sk-process-test-key-0123'])
        expect(bot.output()).not.toContain(secret);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await Promise.all([slack.close(), llm.close(), jma.close()]);
      config.remove();
      rmSync(workdir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 120_000);
});

describe('a busy port', () => {
  it('is named with the variable that moves it, and the app exits 1 without a stack trace', async () => {
    const slack = await startFakeSlack();
    const blocker = createServer();
    await new Promise<void>((resolvePromise) => blocker.listen(0, '127.0.0.1', resolvePromise));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const bot = runBotProcess(mainEntry, mkdtempSync(resolve(tmpdir(), 'bot-port-')), {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-port-test-token',
      SLACK_APP_TOKEN: 'xapp-port-test-token',
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      OPENAI_API_KEY: 'sk-port-test-key-0123',
      MCP_ENABLED: 'false',
    });
    const code = await bot.exited;
    blocker.close();
    await slack.close();
    expect(code).toBe(1);
    expect(bot.output()).toContain(`port ${port} is already in use on 127.0.0.1; set PORT to another port`);
    expect(bot.output()).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack trace
  });
});

describe('#48 the health endpoint listens before Slack answers', () => {
  it('/healthz answers 503 "starting" while auth.test is pending (events refused) or Slack cannot be reached, then 503 "failed" with the reason (no token) for a wrong token; SIGTERM still exits 0', async () => {
    // A Slack that holds each auth.test until the test answers it (or drops it).
    const authTests: ServerResponse[] = [];
    const waiting: Array<{ count: number; arrived: () => void }> = [];
    /** Resolves once `count` auth.test requests have arrived. */
    const authTestsArrived = (count: number) =>
      new Promise<void>((arrived) => {
        if (authTests.length >= count) arrived();
        else waiting.push({ count, arrived });
      });
    const slack = createHttpServer((request, response) => {
      request.resume();
      if (request.url?.endsWith('/auth.test')) {
        authTests.push(response);
        for (const waiter of waiting) if (authTests.length >= waiter.count) waiter.arrived();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: false, error: 'invalid_auth' }));
    });
    await new Promise<void>((resolvePromise) => slack.listen(0, '127.0.0.1', resolvePromise));
    const address = slack.address();
    const slackPort = typeof address === 'object' && address ? address.port : 0;
    const port = await freePort();
    const workdir = mkdtempSync(resolve(tmpdir(), 'bot-health-'));
    const bot = runBotProcess(mainEntry, workdir, {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-wrong-token-for-health',
      SLACK_SIGNING_SECRET: 'health-test-signing-secret',
      SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
      PORT: String(port),
      OPENAI_API_KEY: 'sk-health-test-key-0123',
      MCP_ENABLED: 'false',
    });
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      const text = await response.text();
      return {
        status: response.status,
        text,
        slack: JSON.parse(text).slack as { state: string; reason?: string },
      };
    };
    /** Health once `until` holds for it (the bot's state changes as Slack answers). */
    const healthWhen = async (until: (report: Awaited<ReturnType<typeof health>>) => boolean) => {
      for (;;) {
        if (bot.child.exitCode !== null) throw new Error(`the bot exited:\n${bot.output()}`);
        const report = await health().catch(() => undefined);
        if (report && until(report)) return report;
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
      }
    };
    try {
      await Promise.race([authTestsArrived(1), bot.exited]);
      const starting = await health();
      expect(starting.status).toBe(503);
      expect(starting.slack).toEqual({
        state: 'starting',
        reason: "waiting for Slack's answer to auth.test",
      });
      // Events wait (Slack retries them) until the bot knows who it is.
      const event = await fetch(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', body: '{}' });
      expect(event.status).toBe(503);
      expect(await event.text()).toContain('not connected to Slack yet');
      // The connection drops: Slack cannot be reached, and the client retries.
      authTests[0]?.socket?.destroy();
      const unreachable = await healthWhen((report) => /cannot reach Slack/.test(report.slack.reason ?? ''));
      expect(unreachable.status).toBe(503);
      expect(unreachable.slack.state).toBe('starting');
      expect(unreachable.slack.reason).toContain('still retrying');
      // The retry is answered: the token is wrong.
      await Promise.race([authTestsArrived(2), bot.exited]);
      authTests[1]?.writeHead(200, { 'content-type': 'application/json' });
      authTests[1]?.end(JSON.stringify({ ok: false, error: 'invalid_auth' }));
      const failed = await healthWhen((report) => report.slack.state === 'failed');
      expect(failed.status).toBe(503);
      expect(failed.slack.reason).toContain('invalid_auth');
      expect(failed.slack.reason).toContain('SLACK_BOT_TOKEN');
      // The process stays up so that its health says why; a signal still stops it.
      expect(bot.child.exitCode).toBeNull();
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
      expect(bot.output()).toContain('invalid_auth');
      for (const text of [unreachable.text, failed.text, bot.output()]) {
        expect(text).not.toContain('xoxb-wrong-token-for-health');
        expect(text).not.toContain('sk-health-test-key-0123');
      }
    } finally {
      if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
      for (const response of authTests) response.destroy();
      slack.closeAllConnections();
      slack.close();
      rmSync(workdir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 120_000);
});

describe('#48 a token Slack refuses at once', () => {
  // Slack answers a wrong token with `invalid_auth` (docs.slack.dev, auth.test): here every call at once.
  for (const [mode, receiver] of [
    ['Socket Mode', { SLACK_APP_TOKEN: 'xapp-refused-app-token' }],
    ['HTTP', { SLACK_SIGNING_SECRET: 'refused-signing-secret' }],
  ] as const)
    it(`${mode}: the bot keeps running, /healthz says 503 "failed" with the reason; SIGTERM exits 0`, async () => {
      let authTests = 0;
      const slack = createHttpServer((request, response) => {
        request.resume();
        if (request.url?.endsWith('/auth.test')) authTests++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: false, error: 'invalid_auth' }));
      });
      await new Promise<void>((resolvePromise) => slack.listen(0, '127.0.0.1', resolvePromise));
      const address = slack.address();
      const slackPort = typeof address === 'object' && address ? address.port : 0;
      const port = await freePort();
      const workdir = mkdtempSync(resolve(tmpdir(), 'bot-refused-'));
      const bot = runBotProcess(mainEntry, workdir, {
        PATH: process.env.PATH ?? '',
        SLACK_BOT_TOKEN: 'xoxb-refused-bot-token',
        ...receiver,
        SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
        PORT: String(port),
        OPENAI_API_KEY: 'sk-refused-test-key-0123',
        MCP_ENABLED: 'false',
      });
      try {
        // The bot says it cannot start, and why; from then on it only reports.
        await Promise.race([
          waitFor(() => /cannot start: .*invalid_auth/.test(bot.output()), 60_000).catch(() => undefined),
          bot.exited,
        ]);
        expect(bot.output()).toMatch(/cannot start: .*invalid_auth/);
        expect(authTests).toBeGreaterThan(0);
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        const report = JSON.parse(await response.text()) as { slack: { state: string; reason: string } };
        expect(response.status).toBe(503);
        expect(report.slack.state).toBe('failed');
        expect(report.slack.reason).toContain('SLACK_BOT_TOKEN');
        // Still running after every call Slack was sent has been answered.
        const answered = authTests;
        await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(authTests).toBe(answered);
        expect(bot.child.exitCode).toBeNull();
        expect(bot.output()).not.toContain('WebAPIPlatformError');
        bot.child.kill('SIGTERM');
        expect(await bot.exited).toBe(0);
        expect(bot.output()).not.toContain('xoxb-refused-bot-token');
      } finally {
        if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
        slack.closeAllConnections();
        slack.close();
        rmSync(workdir, { recursive: true, force: true, maxRetries: 5 });
      }
    }, 120_000);
});
