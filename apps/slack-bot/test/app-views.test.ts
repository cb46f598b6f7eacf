import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chromiumArgs,
  chromiumPath,
  closeBrowser,
  completion,
  type FakeRequest,
} from '@ai-assistant/test-kit';
import { PDFDocument } from 'pdf-lib';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appViewActions } from '../src/app-views/app-views.js';
import { approvalActions } from '../src/slack/approvals.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

// MCP Apps views in a real browser: Debian's chromium, driven by playwright-core (no browser download),
// against the real Apps servers from npm and our weather server, through the real bot and fake Slack.
const hasBrowser = existsSync(chromiumPath);
const entry = (name: string) =>
  join(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const appServer = (name: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [entry(name), '--stdio'],
  ...extra,
});

/** The MCP Apps examples on the registry: each server's tool with a view, and what "works" means for it. */
const examples: Array<{ server: string; package: string; tool: string; args?: string; works: string }> = [
  ...['vanillajs', 'react', 'vue', 'svelte', 'preact', 'solid'].map((kind) => ({
    server: kind,
    package: `server-basic-${kind}`,
    tool: 'get-time',
    works: 'Get Server Time shows a new time (a tool call from the app)',
  })),
  {
    server: 'budget',
    package: 'server-budget-allocator',
    tool: 'get-budget-data',
    works: 'its chart is drawn',
  },
  {
    server: 'cohort',
    package: 'server-cohort-heatmap',
    tool: 'get-cohort-data',
    works: 'its heatmap is drawn',
  },
  {
    server: 'segments',
    package: 'server-customer-segmentation',
    tool: 'get-customer-data',
    works: 'its chart is drawn',
  },
  { server: 'map', package: 'server-map', tool: 'show-map', works: 'its globe is drawn' },
  {
    server: 'pdf',
    package: 'server-pdf',
    tool: 'display_pdf',
    args: 'PDF',
    works: 'a page of the PDF is drawn (its bytes read by the app through the bot)',
  },
];

/** A thread's messages drawn roughly as Slack draws them (text, sections with a button, context). */
function slackThreadHtml(
  messages: Array<{ user?: string; text: string; blocks?: unknown }>,
  ephemeral: string,
): string {
  const escaped = (text: string) => text.replace(/[&<>]/g, (character) => `&#${character.charCodeAt(0)};`);
  const mrkdwn = (text: string) =>
    escaped(text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'))
      .replace(/\*([^*\n]+)\*/g, '<b>$1</b>')
      .replace(/&#60;(http[^|]+)\|([^&]+)&#62;/g, '<u>$2</u>')
      .replace(/\n/g, '<br>')
      .replace(/🖼️ /g, '')
      .replace(/&#60;@UBOT0001&#62;/g, '<b style="color:#1264a3">@ai-assistant</b>');
  const block = (entry: {
    type?: string;
    text?: { text?: string };
    accessory?: { text?: { text?: string } };
    elements?: Array<{ text?: string | { text?: string } }>;
  }) => {
    if (entry.type === 'section')
      return `<div class="section"><div>${mrkdwn(entry.text?.text ?? '')}</div>${entry.accessory ? `<button>${escaped(entry.accessory.text?.text ?? '')}</button>` : ''}</div>`;
    if (entry.type === 'context')
      return `<div class="context">${(entry.elements ?? []).map((element) => mrkdwn(typeof element.text === 'string' ? element.text : '')).join(' ')}</div>`;
    if (entry.type === 'actions')
      return `<div>${(entry.elements ?? []).map((element) => `<button>${escaped(typeof element.text === 'object' ? (element.text.text ?? '') : '')}</button>`).join('')}</div>`;
    return '';
  };
  const shown = messages.map((message) => {
    const who = message.user === 'UBOT0001' ? 'ai-assistant' : 'Hanako';
    // A streamed answer keeps its text, with the blocks of its stop under it; a posted one is its blocks.
    const blocks = (Array.isArray(message.blocks) ? message.blocks : []) as Parameters<typeof block>[0][];
    const textInBlocks = blocks[0]?.type === 'section' && blocks[0].text?.text === message.text;
    const body = `${textInBlocks ? '' : `<div>${mrkdwn(message.text)}</div>`}${blocks.map(block).join('')}`;
    return `<div class="message"><div class="avatar ${who === 'ai-assistant' ? 'bot' : ''}"></div><div><div class="name">${who}</div>${body}</div></div>`;
  });
  return `<!doctype html><meta charset="utf-8"><style>
body{font:15px/1.46 -apple-system,'Segoe UI',sans-serif;color:#1d1c1d;margin:0;padding:12px 8px;background:#fff}
.message{display:flex;gap:8px;padding:8px 12px}.avatar{width:36px;height:36px;border-radius:6px;background:#e8912d;flex:none}.avatar.bot{background:#4a154b}
.name{font-weight:900}.section{display:flex;justify-content:space-between;align-items:flex-start;gap:16px;margin:4px 0}
button{font:inherit;font-weight:700;font-size:13px;padding:3px 12px;border:1px solid #bbb;border-radius:4px;background:#fff}
.context{color:#616061;font-size:12px}.ephemeral{background:#f8f8f8}.only{color:#616061;font-size:12px}
</style>${shown.join('')}<div class="message ephemeral"><div class="avatar bot"></div><div><div class="name">ai-assistant <span class="only">Only visible to you</span></div><div>${mrkdwn(ephemeral.replace(/ <http[^>]+>$/, ''))}</div><button>Open the page</button></div></div>`;
}

/** A model that calls the tool a question names ("call <tool> <json arguments>"), then repeats its result. */
function namedToolModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string }>;
  const tools = (request.body.tools ?? []) as Array<{ function: { name: string } }>;
  const last = messages.at(-1);
  if (last?.role === 'tool')
    return completion(request, { text: `結果: ${String(last.content).slice(0, 200)}` });
  const question = String(last?.content ?? '');
  const weather = tools.find((candidate) => candidate.function.name === 'mcp__weather__get_weather');
  if (question.includes('週間天気') && weather)
    return completion(request, {
      toolCall: { name: weather.function.name, arguments: { location: '東京', date: 'week' } },
    });
  const asked = /call (\S+)(?: (.*))?$/.exec(question);
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
    const pdfPath = join(mkdtempSync(join(tmpdir(), 'app-views-')), 'memo.pdf');
    beforeAll(async () => {
      const pdf = await PDFDocument.create();
      pdf.addPage([400, 300]).drawText('Quarterly memo', { x: 40, y: 240, size: 24 });
      writeFileSync(pdfPath, await pdf.save());
      harness = await startHarness({
        publicUrl: true,
        now: () => new Date(Date.now() + clockOffset),
        servers: {
          // Default approval ("writes"): its tool is not marked read-only, so each call asks.
          basic: appServer('server-basic-vanillajs'),
          budget: appServer('server-budget-allocator', { approval: 'auto' }),
          // One connection per person: only those who connected it may use it.
          // The registry's Apps examples, for the count of those that render and work.
          ...Object.fromEntries(
            examples
              .filter((example) => example.server !== 'budget')
              .map((example) => [
                example.server,
                appServer(example.package, {
                  approval: 'auto',
                  args: [entry(example.package), '--stdio', ...(example.server === 'pdf' ? [pdfPath] : [])],
                }),
              ]),
          ),
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
        args: chromiumArgs,
      });
    }, 120_000);
    afterAll(async () => {
      await closeBrowser(browser);
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
      const { ts, offer, value } = await ask('C460', '東京の週間天気は？');
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
      // For the README: the page, and the thread as Slack would show it (set APP_VIEW_SCREENSHOTS=1).
      if (process.env.APP_VIEW_SCREENSHOTS) {
        const images = join(import.meta.dirname, '..', '..', '..', 'docs', 'images');
        await page.setViewportSize({ width: 960, height: 760 });
        await page.screenshot({ path: join(images, 'app-view-weather-week.png'), fullPage: true });
        const thread = await context.newPage();
        await thread.setViewportSize({ width: 760, height: 400 });
        await thread.setContent(slackThreadHtml(harness.slack.thread('C460', ts), link.text));
        await thread.screenshot({ path: join(images, 'app-view-slack-thread.png'), fullPage: true });
      }
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
      // The expired link stays in the store until the next answer with a view, an hour or more later.
      const nonce = (token: string) =>
        (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { nonce: string })
          .nonce;
      const unused = nonce(new URL(fresh.url as string).searchParams.get('t') ?? '');
      expect(await harness.store.sealed.get('app-link', unused)).toBeDefined();
      clockOffset = 2 * 3_600_000;
      await ask('C465', '東京の週間天気は？');
      await expect.poll(() => harness.store.sealed.get('app-link', unused)).toBeUndefined();
      clockOffset = 0;
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

    it("#46 of the registry's 11 MCP Apps examples, at least 80% render and work from a Slack thread", async () => {
      const context = await browser.newContext();
      const results: Array<{ server: string; rendered: boolean; works: boolean; note: string }> = [];
      for (const [index, example] of examples.entries()) {
        const result = { server: example.package, rendered: false, works: false, note: '' };
        const errors: string[] = [];
        try {
          const args = example.args === 'PDF' ? ` ${JSON.stringify({ url: `file://${pdfPath}` })}` : '';
          const channel = `C47${index}`;
          const asked = await ask(channel, `call mcp__${example.server}__${example.tool}${args}`);
          const link = await open(channel, asked.offer.ts, asked.value);
          const page = await context.newPage();
          page.on('console', (message) => {
            if (message.type() === 'error') errors.push(message.text().slice(0, 160));
          });
          await page.goto(link.url as string);
          await page.waitForURL(/\/apps\/view\//);
          await page.waitForSelector('body[data-state="ready"]', { timeout: 15_000 });
          const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
          if (!frame) throw new Error('no frame');
          // Rendered: something of a fair size is drawn or written in the frame.
          const drawn = (selector: string) =>
            frame
              .waitForFunction(
                (wanted) =>
                  [
                    ...(
                      globalThis as unknown as {
                        document: {
                          querySelectorAll(s: string): Iterable<{
                            getBoundingClientRect(): { width: number; height: number };
                            textContent: string | null;
                          }>;
                        };
                      }
                    ).document.querySelectorAll(wanted),
                  ].some((element) => {
                    const box = element.getBoundingClientRect();
                    return (
                      box.width > 40 &&
                      box.height > 16 &&
                      (wanted !== 'body *' || Boolean(element.textContent?.trim()))
                    );
                  }),
                selector,
                { timeout: 15_000 },
              )
              .then(() => true);
          result.rendered = await drawn('body *');
          // What a person sees (layout text), not the text of the page's styles and scripts.
          // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
          const shown = () => frame.locator('body').innerText();
          if (example.tool === 'get-time') {
            const before = await shown();
            await frame.getByRole('button', { name: /Get Server Time/i }).click();
            await expect.poll(shown, { timeout: 15_000 }).not.toBe(before);
            result.works = true;
          } else if (example.server === 'cohort') {
            // A grid of cells (no canvas, no svg): the retention figures are written in it.
            await expect.poll(shown, { timeout: 15_000 }).toMatch(/\d+(\.\d+)?%/);
            result.works = true;
          } else result.works = await drawn('canvas, svg');
          await page.close();
        } catch (error) {
          result.note = `${String(error).split('\n')[0]?.slice(0, 160)}${errors.length ? `; console: ${errors.slice(0, 2).join(' | ')}` : ''}`;
        }
        results.push(result);
      }
      // The measure, for the record (the suite's output keeps it).
      process.stdout.write(
        `${results
          .map(
            (entry) =>
              `${entry.works ? 'works' : entry.rendered ? 'renders only' : 'fails'}\t${entry.server}\t${entry.note}`,
          )
          .join('\n')}\n`,
      );
      await context.close();
      expect(results.filter((entry) => entry.works).length / results.length).toBeGreaterThanOrEqual(0.8);
      // Over every request the model vendor received: no app-only tool (server-pdf's six, whose
      // _meta.ui.visibility is ["app"]) and no byte of a view's HTML.
      const offered = harness.llm.requests.flatMap((request) =>
        ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
          (tool) => tool.function.name,
        ),
      );
      expect(offered.length).toBeGreaterThan(0);
      const appOnly = [
        'read_pdf_bytes',
        'submit_page_data',
        'submit_save_data',
        'submit_viewer_state',
        'poll_pdf_commands',
        'save_pdf',
      ];
      expect(offered.filter((name) => appOnly.some((tool) => name.endsWith(`__${tool}`)))).toEqual([]);
      const sent = JSON.stringify(harness.llm.requests.map((request) => request.body));
      expect(sent).not.toMatch(/<html|<script|text\/html;profile=mcp-app/i);
      // The PDF viewer read its bytes with an app-only tool, through the bot, as the person (audited).
      const pdfCalls = await harness.store.audit.recent('T0001', { server: 'pdf', person: 'UHUMAN01' });
      expect(pdfCalls.map((entry) => entry.tool)).toContain('read_pdf_bytes');
    }, 400_000);

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
