import { randomUUID } from 'node:crypto';
import type { ElicitationAnswer, ElicitationRequest, Logger } from '@ai-assistant/host-core';
import type { App, types } from '@slack/bolt';
import { clipEscaped, escapeSlackText } from '../format/slack-text.js';
import { slackErrorCode } from './answer.js';
import { type ButtonPress, tellPrivately } from './button-press.js';
import { formBlocks, formProblem, readForm } from './elicitation-form.js';

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
  /** Answers the server (an error refuses its request, saying why), and replaces the question by `line`. */
  settle: (answer: ElicitationAnswer | FormNotShown, line: string) => void;
}

/**
 * A form Slack cannot show whole: the server's request is refused with JSON-RPC "Invalid params" (the
 * SDK sends an error's numeric `code` and `message`), so the server learns why instead of a bare decline.
 */
export class FormNotShown extends Error {
  readonly code = -32602;
  constructor(reason: string) {
    super(`the person could not be asked: ${reason}`);
    this.name = 'FormNotShown';
  }
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
    // A form Slack cannot show whole is refused before anyone is asked: a cut form would send the
    // server an answer without the fields the person never saw.
    const problem = request.mode === 'url' ? undefined : formProblem(request.requestedSchema);
    if (problem) {
      this.logger.warn({ server: request.server, problem }, 'a form Slack cannot show was refused');
      await client.chat
        .postMessage({
          channel: context.channel,
          thread_ts: context.threadTs,
          text: `📝 ${server} のフォームは Slack で全体を表示できないため断りました（${escapeSlackText(problem)}）。`,
        })
        .catch((error: unknown) => this.logger.warn({ error: String(error) }, 'could not say why'));
      throw new FormNotShown(problem);
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
    return new Promise<ElicitationAnswer>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => settle({ action: 'cancel' }, `⌛ ${server} への回答は中断されました`);
      const settle = (answer: ElicitationAnswer | FormNotShown, line: string) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        if (answer instanceof FormNotShown) reject(answer);
        else resolve(answer);
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
    // Slack may still refuse the form (a limit no schema check foresaw): the server is told, not left waiting.
    await client.views
      .open({
        trigger_id: options.triggerId,
        view: this.form(options.id, pending.request),
      })
      .catch(async (error: unknown) => {
        const reason = `Slack refused the form (${slackErrorCode(error) ?? 'no reason given'})`;
        this.logger.warn({ server: pending.request.server, reason }, 'a form could not be opened');
        await tellPrivately(
          client,
          options,
          `フォームを開けませんでした: ${escapeSlackText(reason)}`,
          this.logger,
        );
        pending.settle(new FormNotShown(reason), `⚠️ ${server} のフォームを開けませんでした`);
      });
  }

  /** The modal of a form question: the server's message, then its fields. */
  private form(id: string, request: ElicitationRequest) {
    return {
      type: 'modal' as const,
      callback_id: elicitationActions.modal,
      private_metadata: id,
      notify_on_close: true,
      title: { type: 'plain_text' as const, text: request.server.slice(0, 24) || 'MCP' },
      submit: { type: 'plain_text' as const, text: '送信' },
      close: { type: 'plain_text' as const, text: 'キャンセル' },
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: clipEscaped(escapeSlackText(request.message), 3000) || ' ' },
        },
        ...formBlocks(request.requestedSchema),
      ],
    } as unknown as types.ModalView;
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
