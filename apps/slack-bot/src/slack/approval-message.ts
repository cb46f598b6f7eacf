import type { ApprovalRequest } from '@ai-assistant/host-core';
import type { RecordedDecision } from '@ai-assistant/store';
import type { types } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';

/** Button and modal ids of an approval request. */
export const approvalActions = {
  approve: 'approval_approve',
  denyWithReason: 'approval_deny_reason',
  deny: 'approval_deny',
  reasonModal: 'approval_reason_modal',
  reasonBlock: 'reason',
} as const;

/** What the request's message is about: `tool`（サーバー `server`）. */
export function summaryOf(request: ApprovalRequest): string {
  return `\`${escapeSlackText(request.tool)}\`（サーバー \`${escapeSlackText(request.server)}\`）`;
}

/** The request's blocks: who is asked, what would run, the arguments, and the three buttons. */
export function requestBlocks(options: {
  id: string;
  request: ApprovalRequest;
  asker: string;
  summary: string;
  argumentBlocks: types.KnownBlock[];
}): types.KnownBlock[] {
  const { id, request, asker, summary } = options;
  const effect = request.hints.readOnly
    ? '読み取りのみ'
    : request.hints.destructive
      ? '⚠️ 変更・削除を伴う可能性があります'
      : '変更を伴います';
  return [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${
          request.sampling
            ? `🔐 <@${asker}> さん、サーバー \`${escapeSlackText(request.server)}\` がアシスタントのモデルに次のメッセージへの回答を求めています（会話の他の内容は送られません）。`
            : `🔐 <@${asker}> さん、アシスタントが ${summary} を実行しようとしています。${effect}`
        }${request.hidesSecrets ? '\n⚠️ 引数に秘密の値が含まれています（[REDACTED] と表示）。承認すると、その実際の値がツールに送られます。' : ''}`,
      },
    },
    ...options.argumentBlocks,
    {
      type: 'actions',
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
  ];
}

/** Why a request expired, as its message says it. */
export type ExpiryCause = 'timeout' | 'aborted' | 'restart';

/** The line the request's message becomes once decided (its buttons go). */
export function decisionLine(decision: RecordedDecision, summary: string, cause: ExpiryCause): string {
  if (decision.outcome === 'approved') return `✅ <@${decision.by}> が ${summary} を承認しました`;
  if (decision.outcome === 'denied')
    return `⛔ <@${decision.by}> が ${summary} を却下しました${decision.reason ? `: ${escapeSlackText(decision.reason)}` : ''}`;
  if (cause === 'aborted') return `⌛ ${summary} は中断されたため実行しませんでした`;
  if (cause === 'restart') return `⌛ ${summary} は再起動のため期限切れになりました`;
  return `⌛ ${summary} は承認されないまま期限が切れたため、実行しませんでした`;
}

/** The deny-with-reason modal of request `id`. */
export function reasonModal(id: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: approvalActions.reasonModal,
    private_metadata: id,
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
  };
}
