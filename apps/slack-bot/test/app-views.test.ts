import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appViewActions } from '../src/app-views/app-views.js';
import { approvalActions } from '../src/slack/approvals.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

// MCP Apps views in a real browser: Debian's chromium, driven by playwright-core (no browser download),
// against the real Apps servers from npm and our weather server, through the real bot and fake Slack.
const chromiumPath = '/usr/bin/chromium';
const hasBrowser = existsSync(chromiumPath);
const entry = (name: string) =>
  join(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const appServer = (name: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [entry(name), '--stdio'],
  ...extra,
});

/** A model that calls the tool a question names ("call <tool> <json arguments>"), then repeats its result. */
function namedToolModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string }>;
  const tools = (request.body.tools ?? []) as Array<{ function: { name: string } }>;
  const last = messages.at(-1);
  if (last?.role === 'tool')
    return completion(request, { text: `結果: ${String(last.content).slice(0, 200)}` });
  const asked = /call (\S+)(?: (.*))?$/.exec(String(last?.content ?? ''));
  const tool = asked && tools.find((candidate) => candidate.function.name === asked[1]);
  if (!asked || !tool) return completion(request, { text: `no such tool offered: ${asked?.[1]}` });
  return completion(request, {
    toolCall: { name: tool.function.name, arguments: asked[2] ? JSON.parse(asked[2]) : {} },
  });
}

const title = '#46 MCP Apps views open from the thread, in a real browser';

(hasBrowser ? describe : describe.skip)(
  hasBrowser ? title : `${title} (platform skip: no ${chromiumPath}; .ci/run installs Debian's chromium)`,
  () => {
    let harness: Harness;
    let browser: Browser;
    let clockOffset = 0;
    beforeAll(async () => {
      harness = await startHarness({
        publicUrl: true,
        now: () => new Date(Date.now() + clockOffset),
        servers: {
          // Default approval ("writes"): its tool is not marked read-only, so each call asks.
          basic: appServer('server-basic-vanillajs'),
          budget: appServer('server-budget-allocator', { approval: 'auto' }),
          // One connection per person: only those who connected it may use it.
          mine: appServer('server-basic-react', {
            approval: 'auto',
            connection: 'per_user',
            env: { TOKEN: '${token}' },
          }),
        },
      });
      harness.llm.respondWith(namedToolModel);
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await harness?.close();
    });

    /** Asks in a new thread; returns the thread and the Open button's value under the answer. */
    async function ask(channel: string, question: string, approve = false) {
      const { ts } = await mentionBot(harness, channel, question);
      if (approve) {
        const approval = await waitFor(() =>
          harness.slack
            .thread(channel, ts)
            .find((message) => JSON.stringify(message.blocks ?? []).includes(approvalActions.approve)),
        );
        const id = JSON.stringify(approval.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
        await harness.slack.press({
          channel,
          messageTs: approval.ts,
          actionId: approvalActions.approve,
          value: id,
        });
      }
      const offer = await waitFor(
        () =>
          harness.slack
            .thread(channel, ts)
            .find((message) => JSON.stringify(message.blocks ?? []).includes(appViewActions.open)),
        20_000,
      );
      const value = JSON.stringify(offer.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
      return { ts, offer, value };
    }

    /** Presses Open as `user`; returns the ephemeral message's link (or its text when there is none). */
    async function open(channel: string, messageTs: string, value: string, user = 'UHUMAN01') {
      const before = harness.slack.callsOf('chat.postEphemeral').length;
      await harness.slack.press({ channel, messageTs, actionId: appViewActions.open, value, user });
      const told = await waitFor(() => harness.slack.callsOf('chat.postEphemeral')[before]);
      expect(told.args.user).toBe(user);
      const url = /<(http[^|>]+)\|/.exec(String(told.args.text))?.[1];
      return { url, text: String(told.args.text) };
    }

    /** Opens a link in a page and waits for the host page to be ready (or to refuse). */
    async function visit(context: BrowserContext, url: string): Promise<Page> {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForURL(/\/apps\/view\//);
      await page.waitForSelector('body[data-state]');
      return page;
    }

    it('#46 the asker opens the weather week view; the link works once and only in that browser; the frame cannot reach the bot', async () => {
      const { ts, offer, value } = await ask(
        'C460',
        `call mcp__weather__get_weather {"location":"東京","date":"week"}`,
      );
      // Under the answer: the result's first line and Open (an action button, not a URL button).
      expect(JSON.stringify(offer.blocks)).toContain('get_weather');
      expect(JSON.stringify(offer.blocks)).not.toContain('"url"');
      const link = await open('C460', offer.ts, value);
      expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/apps\/open\?t=/);
      const context = await browser.newContext();
      const page = await visit(context, link.url as string);
      expect(await page.getAttribute('body', 'data-state')).toBe('ready');
      const frame = page.frameLocator('iframe');
      await frame.locator('svg').first().waitFor();
      expect(await page.locator('#status').textContent()).toBe('Your result.');
      // The app's frame: sandboxed (no allow-same-origin), an opaque origin, no cookies, no bot.
      expect(await page.getAttribute('iframe', 'sandbox')).toBe('allow-scripts');
      const inside = page.frames().find((candidate) => candidate !== page.mainFrame());
      // Runs in the browser (the bot's tsconfig has no DOM types: the page's globals are named here).
      const probes = await inside?.evaluate(async () => {
        const { self, document, window } = globalThis as unknown as {
          self: { origin: string };
          document: { cookie: string };
          window: { parent: { document: { cookie: string } } };
        };
        const attempt = async (work: () => unknown) => {
          try {
            return `read: ${String(await work())}`;
          } catch (error) {
            return `refused: ${(error as Error).name}`;
          }
        };
        return {
          origin: self.origin,
          cookie: await attempt(() => document.cookie),
          parent: await attempt(() => window.parent.document.cookie),
          api: await attempt(() => fetch('/apps/host.js').then((response) => response.status)),
        };
      });
      expect(probes).toEqual({
        origin: 'null',
        cookie: 'refused: SecurityError',
        parent: 'refused: SecurityError',
        api: 'refused: TypeError',
      });
      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/apps/' });
      // The same link again (forwarded): used. The page's address in another browser: not theirs.
      const other = await browser.newContext();
      const again = await other.newPage();
      await again.goto(link.url as string);
      expect(await again.textContent('body')).toContain('already used');
      await again.goto(page.url());
      expect(await again.textContent('body')).toContain('belongs to the browser that opened its link');
      // An altered link, and an expired one, are refused.
      const fresh = await open('C460', offer.ts, value);
      const altered = (fresh.url as string).replace(
        /t=(.)/,
        (_, first: string) => `t=${first === 'e' ? 'f' : 'e'}`,
      );
      await again.goto(altered);
      expect(await again.textContent('body')).toMatch(/changed|not a link/);
      clockOffset = 11 * 60_000;
      await again.goto(fresh.url as string);
      clockOffset = 0;
      expect(await again.textContent('body')).toContain('expired');
      await other.close();
      await context.close();
      expect(harness.slack.thread('C460', ts).length).toBeGreaterThan(1);
    }, 120_000);

    it('#46 an app-initiated write asks the person in the page: allowed it runs and is audited, refused it does not run', async () => {
      const { ts, offer, value } = await ask('C461', 'call mcp__basic__get-time', true);
      const link = await open('C461', offer.ts, value);
      const context = await browser.newContext();
      const page = await visit(context, link.url as string);
      const frame = page.frameLocator('iframe');
      const shown = frame.locator('#server-time');
      await expect.poll(() => shown.textContent(), { timeout: 15_000 }).not.toBe('Loading...');
      const first = await shown.textContent();
      const audited = async () =>
        (await harness.store.audit.recent('T0001', { server: 'basic' })).map((entry) => entry.outcome);
      expect(await audited()).toEqual(['ok']);
      // Allowed: runs, approved by the person, in the audit.
      await frame.locator('#get-time-btn').click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Allow' }).click();
      await expect.poll(() => shown.textContent(), { timeout: 15_000 }).not.toBe(first);
      await expect.poll(audited).toEqual(['ok', 'ok']);
      const approved = (await harness.store.audit.recent('T0001', { server: 'basic' }))[0];
      expect(approved?.approval?.by).toBe('UHUMAN01');
      // Refused: nothing runs (no new time; the app shows the failed call); the audit says denied.
      await frame.locator('#get-time-btn').click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Refuse' }).click();
      await expect.poll(audited).toEqual(['denied', 'ok', 'ok']);
      await expect.poll(() => shown.textContent()).toBe('[ERROR]');
      // A message to the thread waits for the person; an open-link request is only shown.
      await frame.locator('#send-message-btn').click();
      const dialog = page.getByRole('alertdialog');
      expect(await dialog.textContent()).toContain('This is message text.');
      await dialog.getByRole('button', { name: 'Post' }).click();
      await waitFor(() =>
        harness.slack.thread('C461', ts).find((message) => message.text.includes('This is message text.')),
      );
      const pagesBefore = context.pages().length;
      await frame.locator('#open-link-btn').click();
      await page.getByRole('status').filter({ hasText: 'modelcontextprotocol.io' }).waitFor();
      expect(context.pages().length).toBe(pagesBefore);
      await context.close();
    }, 120_000);

    it('#46 another member gets the view under their own access, or a clear refusal', async () => {
      await harness.people.connect({ workspace: 'T0001', user: 'UHUMAN01' }, 'mine', 'my-own-token-1');
      const budget = await ask('C462', 'call mcp__budget__get-budget-data');
      const theirs = await open('C462', budget.offer.ts, budget.value, 'UOTHER99');
      const context = await browser.newContext();
      const page = await visit(context, theirs.url as string);
      expect(await page.locator('#status').textContent()).toContain('your own access');
      await page.frameLocator('iframe').locator('body *').first().waitFor();
      const auditOfOther = await harness.store.audit.recent('T0001', {
        person: 'UOTHER99',
        server: 'budget',
      });
      expect(auditOfOther.map((entry) => entry.outcome)).toEqual(['ok']);
      const mine = await ask('C463', 'call mcp__mine__get-time');
      const refused = await open('C463', mine.offer.ts, mine.value, 'UOTHER99');
      const refusedPage = await visit(context, refused.url as string);
      expect(await refusedPage.getAttribute('body', 'data-state')).toBe('refused');
      expect(await refusedPage.locator('#status').textContent()).toContain('You have not connected mine');
      expect(await refusedPage.locator('iframe').count()).toBe(0);
      await context.close();
    }, 120_000);
  },
);
