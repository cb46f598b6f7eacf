import { randomUUID } from 'node:crypto';
import type { ElicitationAnswer, ElicitationRequest, Logger } from '@ai-assistant/host-core';
import type { App, types } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import { type ButtonPress, tellPrivately } from './button-press.js';
import { formBlocks, readForm } from './elicitation-form.js';

type WebClient = App['client'];

/** Button and modal ids of a server's question. */
export const elicitationActions = {
  open: 'elicitation_open',
  visit: 'elicitation_visit',
  decline: 'elicitation_decline',
  modal: 'elicitation_modal',
} as const;

/** Where a server's question is asked, and of whom. */
export interface ElicitationContext {
  channel: string;
  threadTs: string;
  /** The person who asked the bot: the only one who may answer the server. */
  asker: string;
  signal?: AbortSignal;
  client?: WebClient;
}

interface Pending {
  request: ElicitationRequest;
  asker: string;
  channel: string;
  ts: string;
  client: WebClient;
  settle: (answer: ElicitationAnswer, line: string) => void;
}

/**
 * A server's questions in the middle of a tool call, in the thread: a form (a modal built from the
 * server's schema, opened with a button) or a page to open (a link button). Only the asker may answer;
 * ⛔ declines, closing the modal or the timeout cancels. Pending questions live in this process.
 */
export class SlackElicitations {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  async ask(request: ElicitationRequest, context: ElicitationContext): Promise<ElicitationAnswer> {
    const id = randomUUID();
    const client = context.client ?? this.client;
    const server = `\`${escapeSlackText(request.server)}\``;
    const url = request.mode === 'url' ? safeUrl(request.url) : undefined;
    if (request.mode === 'url' && !url) {
      this.logger.warn({ server: request.server }, 'a URL elicitation without an https:// URL was declined');
      return { action: 'decline' };
    }
    const first: types.Button = url
      ? {
          type: 'button',
          action_id: elicitationActions.visit,
          url,
          value: id,
          style: 'primary',
          text: { type: 'plain_text', text: `🔗 ${new URL(url).host}`.slice(0, 75) },
        }
      : {
          type: 'button',
          action_id: elicitationActions.open,
          value: id,
          style: 'primary',
          text: { type: 'plain_text', text: '📝 入力する' },
        };
    const posted = await client.chat.postMessage({
      channel: context.channel,
      thread_ts: context.threadTs,
      text: `📝 ${server} が入力を求めています`,
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: `📝 <@${context.asker}> さん、サーバー ${server} が${url ? 'ページを開くよう' : '入力を'}求めています:\n>${escapeSlackText(request.message).slice(0, 2500)}${url ? `\n（${escapeSlackText(new URL(url).host)} が開きます）` : ''}`,
          },
        },
        {
          type: 'actions',
          block_id: 'elicitation',
          elements: [
            first,
            {
              type: 'button',
              action_id: elicitationActions.decline,
              value: id,
              style: 'danger',
              text: { type: 'plain_text', text: '⛔ 断る' },
            },
          ],
        },
      ],
    });
    const ts = posted.ts as string;
    return new Promise<ElicitationAnswer>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => settle({ action: 'cancel' }, `⌛ ${server} への回答は中断されました`);
      const settle = (answer: ElicitationAnswer, line: string) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        resolve(answer);
        void client.chat
          .update({ channel: context.channel, ts, text: line, blocks: [] })
          .catch((error: unknown) =>
            this.logger.warn({ error: String(error) }, 'could not update the question'),
          );
      };
      this.pending.set(id, { request, asker: context.asker, channel: context.channel, ts, client, settle });
      timer = setTimeout(
        () => settle({ action: 'cancel' }, `⌛ ${server} への回答は期限切れになりました`),
        this.timeoutMs,
      );
      timer.unref();
      if (context.signal?.aborted) onAbort();
      else context.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A button of a question was pressed: only the asker's press counts. */
  async pressed(options: ButtonPress): Promise<void> {
    const client = options.client ?? this.client;
    const pending = this.pending.get(options.id);
    if (!pending) return tellPrivately(client, options, 'この質問はもう有効ではありません。', this.logger);
    if (options.user !== pending.asker)
      return tellPrivately(
        client,
        options,
        `この質問に答えられるのは <@${pending.asker}> さんだけです。`,
        this.logger,
      );
    const server = `\`${escapeSlackText(pending.request.server)}\``;
    if (options.action === elicitationActions.decline)
      return pending.settle({ action: 'decline' }, `⛔ <@${options.user}> が ${server} への回答を断りました`);
    if (options.action === elicitationActions.visit)
      return pending.settle({ action: 'accept' }, `🔗 <@${options.user}> が ${server} のページを開きました`);
    await client.views.open({
      trigger_id: options.triggerId,
      view: {
        type: 'modal',
        callback_id: elicitationActions.modal,
        private_metadata: options.id,
        notify_on_close: true,
        title: { type: 'plain_text', text: pending.request.server.slice(0, 24) || 'MCP' },
        submit: { type: 'plain_text', text: '送信' },
        close: { type: 'plain_text', text: 'キャンセル' },
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: escapeSlackText(pending.request.message).slice(0, 3000) || ' ' },
          },
          ...formBlocks(pending.request.requestedSchema),
        ],
      },
    });
  }

  /** The form was submitted: its values go to the server, or the errors back to the person. */
  submitted(options: {
    id: string;
    user: string;
    values: Parameters<typeof readForm>[1];
  }): Record<string, string> | undefined {
    const pending = this.pending.get(options.id);
    if (!pending || options.user !== pending.asker) return undefined;
    const read = readForm(pending.request.requestedSchema, options.values);
    if ('errors' in read) return read.errors;
    pending.settle(
      { action: 'accept', content: read.content },
      `✅ <@${options.user}> が ${`\`${escapeSlackText(pending.request.server)}\``} に回答しました`,
    );
    return undefined;
  }

  /** The form was closed without sending: the question is cancelled. */
  closed(options: { id: string; user: string }): void {
    const pending = this.pending.get(options.id);
    if (!pending || options.user !== pending.asker) return;
    pending.settle(
      { action: 'cancel' },
      `✖️ <@${options.user}> が ${`\`${escapeSlackText(pending.request.server)}\``} への回答を取りやめました`,
    );
  }
}

/** An https:// URL as given (http only for loopback, for local servers), else undefined. */
function safeUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
