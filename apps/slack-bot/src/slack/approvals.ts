import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest, Logger } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import { argumentDisplay } from './approval-arguments.js';

type WebClient = App['client'];

/** Button and modal ids of an approval request. */
export const approvalActions = {
  approve: 'approval_approve',
  denyWithReason: 'approval_deny_reason',
  deny: 'approval_deny',
  reasonModal: 'approval_reason_modal',
  reasonBlock: 'reason',
} as const;

/** Where an approval is asked, and of whom. */
export interface ApprovalContext {
  channel: string;
  threadTs: string;
  /** The person who asked the question: the only one who may answer. */
  asker: string;
  signal?: AbortSignal;
  /** The client Bolt authorized for the question (its workspace's token). */
  client?: WebClient;
}

interface Pending {
  asker: string;
  channel: string;
  ts: string;
  summary: string;
  settle: (decision: ApprovalDecision, line: string) => void;
}

/**
 * Approval requests in Slack threads: a message written by the host (tool, server, arguments) with
 * ✅ Approve, ✏️ Deny with reason and ⛔ Deny, which only the asker may press; answered, expired or
 * abandoned, the message says so and loses its buttons. Pending requests live in this process: after a
 * restart a press is told "no longer active".
 */
export class SlackApprovals {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    /** Requests one person may have waiting at once; past it, a new one is refused unasked. */
    private readonly perPerson = 3,
  ) {}

  /** Asks in the thread; resolves with the asker's answer, or `expired` after the timeout or an abort. */
  async ask(request: ApprovalRequest, context: ApprovalContext): Promise<ApprovalDecision> {
    const id = randomUUID();
    const tool = escapeSlackText(request.tool);
    const server = escapeSlackText(request.server);
    const effect = request.hints.readOnly
      ? '読み取りのみ'
      : request.hints.destructive
        ? '⚠️ 変更・削除を伴う可能性があります'
        : '変更を伴います';
    const summary = `\`${tool}\`（サーバー \`${server}\`）`;
    const client = context.client ?? this.client;
    const waiting = [...this.pending.values()].filter((entry) => entry.asker === context.asker).length;
    if (waiting >= this.perPerson)
      return {
        outcome: 'denied',
        reason: `the person already has ${waiting} approval requests waiting; they must answer those first, so this call was not asked and not run`,
      };
    const display = argumentDisplay(request.arguments);
    if (!display.complete) {
      // What cannot be shown whole cannot be approved: no buttons, and the model is told why.
      await client.chat.postMessage({
        channel: context.channel,
        thread_ts: context.threadTs,
        text: `⛔ ${summary} は引数が長すぎて全てを表示できないため、承認を求めずに中止しました（${escapeSlackText(display.reason)}）`,
      });
      return {
        outcome: 'denied',
        reason: `the arguments (${display.reason}) could not all be shown to the person for approval, so the call was not run; call it with fewer or shorter arguments`,
      };
    }
    const posted = await client.chat.postMessage({
      channel: context.channel,
      thread_ts: context.threadTs,
      text: `🔐 承認が必要です: ${summary}`,
      blocks: [
        {
          type: 'section' as const,
          text: {
            type: 'mrkdwn' as const,
            text: `🔐 <@${context.asker}> さん、アシスタントが ${summary} を実行しようとしています。${effect}${request.hidesSecrets ? '\n⚠️ 引数に秘密の値が含まれています（[REDACTED] と表示）。承認すると、その実際の値がツールに送られます。' : ''}`,
          },
        },
        ...display.blocks,
        {
          type: 'actions' as const,
          block_id: 'approval',
          elements: [
            {
              type: 'button',
              action_id: approvalActions.approve,
              style: 'primary',
              value: id,
              text: { type: 'plain_text', text: '✅ 承認' },
            },
            {
              type: 'button',
              action_id: approvalActions.denyWithReason,
              value: id,
              text: { type: 'plain_text', text: '✏️ 理由を添えて却下' },
            },
            {
              type: 'button',
              action_id: approvalActions.deny,
              style: 'danger',
              value: id,
              text: { type: 'plain_text', text: '⛔ 却下' },
            },
          ],
        },
      ],
    });
    const ts = posted.ts as string;
    return new Promise<ApprovalDecision>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () =>
        settle({ outcome: 'expired' }, `⌛ ${summary} は中断されたため実行しませんでした`);
      const settle = (decision: ApprovalDecision, line: string) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        resolve(decision);
        // The buttons go: a second press finds nothing to answer.
        void client.chat
          .update({ channel: context.channel, ts, text: line, blocks: [] })
          .catch((error: unknown) =>
            this.logger.warn({ error: String(error) }, 'could not update the approval message'),
          );
      };
      this.pending.set(id, { asker: context.asker, channel: context.channel, ts, summary, settle });
      timer = setTimeout(
        () =>
          settle(
            { outcome: 'expired' },
            `⌛ ${summary} は承認されないまま期限が切れたため、実行しませんでした`,
          ),
        this.timeoutMs,
      );
      timer.unref();
      if (context.signal?.aborted) onAbort();
      else context.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A button was pressed: only the asker's press counts (checked on the payload's user id). */
  async pressed(options: {
    id: string;
    action: string;
    user: string;
    channel: string;
    triggerId: string;
    /** The client Bolt authorized for the press (its workspace's token). */
    client?: WebClient;
  }): Promise<void> {
    const client = options.client ?? this.client;
    const pending = this.pending.get(options.id);
    if (!pending)
      return this.tell(client, options.channel, options.user, 'この承認リクエストはもう有効ではありません。');
    if (options.user !== pending.asker)
      return this.tell(
        client,
        options.channel,
        options.user,
        `この操作を承認できるのは <@${pending.asker}> さんだけです。`,
      );
    if (options.action === approvalActions.approve)
      return pending.settle(
        { outcome: 'approved', by: options.user },
        `✅ <@${options.user}> が ${pending.summary} を承認しました`,
      );
    if (options.action === approvalActions.deny)
      return pending.settle(
        { outcome: 'denied', by: options.user },
        `⛔ <@${options.user}> が ${pending.summary} を却下しました`,
      );
    await client.views.open({
      trigger_id: options.triggerId,
      view: {
        type: 'modal',
        callback_id: approvalActions.reasonModal,
        private_metadata: options.id,
        title: { type: 'plain_text', text: '却下の理由' },
        submit: { type: 'plain_text', text: '却下する' },
        close: { type: 'plain_text', text: 'キャンセル' },
        blocks: [
          {
            type: 'input',
            block_id: approvalActions.reasonBlock,
            label: { type: 'plain_text', text: '理由（アシスタントに伝わります）' },
            element: { type: 'plain_text_input', action_id: 'value', multiline: true, max_length: 500 },
          },
        ],
      },
    });
  }

  /** The deny-with-reason modal was submitted. */
  reasoned(options: { id: string; user: string; reason: string }): void {
    const pending = this.pending.get(options.id);
    if (!pending || options.user !== pending.asker) return;
    const reason = options.reason.trim().slice(0, 500);
    pending.settle(
      { outcome: 'denied', by: options.user, ...(reason ? { reason } : {}) },
      `⛔ <@${options.user}> が ${pending.summary} を却下しました${reason ? `: ${escapeSlackText(reason)}` : ''}`,
    );
  }

  private async tell(client: WebClient, channel: string, user: string, text: string): Promise<void> {
    await client.chat.postEphemeral({ channel, user, text }).catch((error: unknown) => {
      this.logger.warn({ error: String(error) }, 'could not answer an approval button');
    });
  }
}
