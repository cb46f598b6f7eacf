import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { join, resolve } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { openStoreFromEnvironment } from '@ai-assistant/store';
import {
  chromiumArgs,
  chromiumPath,
  closeBrowser,
  completion,
  embeddedStoreFolder,
  type FakeRequest,
  type FakeVendor,
  startFakeVendor,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The terminal chat's MCP Apps views in a real browser: Debian's chromium, driven by playwright-core
// (no browser download), against the built chat, our weather server and an Apps example from npm.
const hasBrowser = existsSync(chromiumPath);
const basicServer = join(
  import.meta.dirname,
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-basic-vanillajs',
  'dist',
  'index.js',
);

/** Weather week for "週間天気", a named tool for "call <tool>", else the question said back. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string }>;
  const last = messages.at(-1);
  if (last?.role === 'tool')
    return completion(request, { text: `結果: ${String(last.content).slice(0, 80)}` });
  const question = String(last?.content ?? '');
  if (question.includes('週間天気'))
    return completion(request, {
      toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京', date: 'week' } },
    });
  const asked = /^call (\S+)$/.exec(question);
  if (asked) return completion(request, { toolCall: { name: asked[1] as string, arguments: {} } });
  return completion(request, { text: `heard: ${question}` });
}

/** The chat's output as it comes (stdout and stderr), and a wait for what it prints next. */
function watch(child: ChildProcessWithoutNullStreams) {
  let output = '';
  const waiters: Array<{ from: number; pattern: RegExp; found: (match: RegExpExecArray) => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(output.slice(waiter.from));
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.found(match);
      }
    }
  };
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk) => {
      output += chunk;
      check();
    });
  return {
    output: () => output,
    /** What matches `pattern` in the output from now on. */
    next(pattern: RegExp): Promise<RegExpExecArray> {
      return new Promise((found) => waiters.push({ from: output.length, pattern, found }));
    },
  };
}

const link = /http:\/\/127\.0\.0\.1:\d+\/apps\/open\?t=[\w.-]+/;
const title = '#46 the terminal prints a local link to a result’s view, served on 127.0.0.1';

(hasBrowser ? describe : describe.skip)(
  hasBrowser ? title : `${title} (platform skip: no ${chromiumPath}; .ci/run installs Debian's chromium)`,
  () => {
    let llm: FakeVendor;
    let jma: FakeJma;
    let browser: Browser;
    beforeAll(async () => {
      [llm, jma] = await Promise.all([startFakeVendor(), startFakeJma()]);
      llm.respondWith(model);
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: chromiumArgs,
      });
    }, 120_000);
    afterAll(async () => {
      await closeBrowser(browser);
      await Promise.all([llm?.close(), jma?.close()]);
    });

    it('#46 the weather week opens from its link once, in one browser; an app’s write asks in the page, is audited, and its message is asked in the terminal', async () => {
      // Default approval ("writes"): get-time is not marked read-only, so each call asks.
      const config = writeMcpConfig(jma.baseUrl, {
        basic: { command: process.execPath, args: [basicServer, '--stdio'] },
      });
      const dataDir = embeddedStoreFolder('chat-views-');
      const child = spawn(process.execPath, [resolve(import.meta.dirname, '..', 'dist', 'main.js')], {
        cwd: dataDir,
        env: {
          PATH: process.env.PATH ?? '',
          OPENAI_API_KEY: 'sk-cli-test-0123456',
          OPENAI_BASE_URL: llm.baseURL,
          LLM_MAX_RETRIES: '0',
          MCP_ENABLED: 'true',
          MCP_SERVERS_CONFIG: config.path,
          DATA_DIR: dataDir,
        },
      });
      const exited = new Promise<number | null>((done) => child.once('exit', done));
      const chat = watch(child);
      const visit = async (url: string): Promise<Page> => {
        const page = await (await browser.newContext()).newPage();
        await page.goto(url);
        await page.waitForURL(/\/apps\/view\//);
        await page.waitForSelector('body[data-state]');
        return page;
      };
      try {
        // The weather week: a link on this machine's loopback, printed under the tool's line.
        const weekLink = chat.next(link);
        child.stdin.write('東京の週間天気は？\n');
        const [url] = await weekLink;
        const page = await visit(url);
        expect(await page.getAttribute('body', 'data-state')).toBe('ready');
        await page.frameLocator('iframe').locator('svg').first().waitFor();
        expect(await page.locator('#status').textContent()).toBe('Your result.');
        expect(await page.getAttribute('iframe', 'sandbox')).toBe('allow-scripts');
        const cookies = await page.context().cookies();
        expect(cookies).toHaveLength(1);
        expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/apps/' });
        // The same link again: used. The page's address in another browser: not theirs.
        const other = await (await browser.newContext()).newPage();
        await other.goto(url);
        expect(await other.textContent('body')).toContain('already used');
        expect(await other.textContent('body')).toContain('Ask again in the terminal chat');
        await other.goto(page.url());
        expect(await other.textContent('body')).toContain('belongs to the browser that opened its link');
        // The server answers at its own address only (another name of 127.0.0.1 is refused).
        const renamed = await new Promise<number | undefined>((done) =>
          get(
            {
              host: '127.0.0.1',
              port: new URL(url).port,
              path: '/apps/host.js',
              headers: { host: 'rebound.example' },
            },
            (response) => {
              response.resume();
              done(response.statusCode);
            },
          ),
        );
        expect(renamed).toBe(421);
        await other.context().close();
        await page.context().close();

        // An Apps example whose tool changes things: approved at the prompt, then its page.
        const asked = chat.next(/Run it\? \[y\/N\/reason\]/);
        child.stdin.write('call mcp__basic__get-time\n');
        await asked;
        const timeLink = chat.next(link);
        child.stdin.write('y\n');
        const timePage = await visit((await timeLink)[0]);
        const frame = timePage.frameLocator('iframe');
        const shown = frame.locator('#server-time');
        await expect.poll(() => shown.textContent(), { timeout: 15_000 }).not.toBe('Loading...');
        const first = await shown.textContent();
        // A write from the page asks the person there: allowed, it runs; refused, it does not.
        await frame.locator('#get-time-btn').click();
        await timePage.getByRole('alertdialog').getByRole('button', { name: 'Allow' }).click();
        await expect.poll(() => shown.textContent(), { timeout: 15_000 }).not.toBe(first);
        await frame.locator('#get-time-btn').click();
        await timePage.getByRole('alertdialog').getByRole('button', { name: 'Refuse' }).click();
        await expect.poll(() => shown.textContent()).toBe('[ERROR]');
        // The app's message waits for the person, then is asked in the terminal as their next question.
        await frame.locator('#send-message-btn').click();
        const dialog = timePage.getByRole('alertdialog');
        expect(await dialog.textContent()).toContain('This is message text.');
        const answered = chat.next(/heard: This is message text\./);
        await dialog.getByRole('button', { name: 'Ask' }).click();
        await answered;
        expect(chat.output()).toContain(
          'the get-time page asks, as your next question: This is message text.',
        );
        await timePage.context().close();
        child.stdin.end();
        expect(await exited).toBe(0);
        // Every call is in the audit: the turn's (approved at the prompt), the page's (approved in the
        // page), and the refused one, which did not run.
        const store = await openStoreFromEnvironment({ DATA_DIR: dataDir });
        try {
          const rows = (await store.audit.recent('local', { server: 'basic' })).reverse();
          expect(rows.map((row) => [row.tool, row.outcome, row.approval ? 'approved' : 'auto'])).toEqual([
            ['get-time', 'ok', 'approved'],
            ['get-time', 'ok', 'approved'],
            ['get-time', 'denied', 'auto'],
          ]);
        } finally {
          await store.close();
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
        config.remove();
        rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
      }
    }, 180_000);
  },
);
