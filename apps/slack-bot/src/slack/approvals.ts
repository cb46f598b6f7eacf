import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest, Logger } from '@ai-assistant/host-core';
import type { PendingApproval, RecordedDecision, Store } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import { argumentDisplay } from './approval-arguments.js';
import {
  approvalActions,
  decisionLine,
  type ExpiryCause,
  reasonModal,
  requestBlocks,
  summaryOf,
} from './approval-message.js';
import { type ButtonPress, tellPrivately } from './button-press.js';

export { approvalActions } from './approval-message.js';

type WebClient = App['client'];

/** Where an approval is asked, and of whom. */
export interface ApprovalContext {
  channel: string;
  threadTs: string;
  /** The person who asked the question: the only one who may answer. */
  asker: string;
  /** Their workspace (the event's team), under which the request is recorded. */
  workspace?: string;
  signal?: AbortSignal;
  /** The client Bolt authorized for the question (its workspace's token). */
  client?: WebClient;
}

/** What a request's row says of its message (the ledger's `detail`). */
interface MessageDetail {
  channel: string;
  ts?: string;
  summary: string;
}

const unknownWorkspace = 'unknown';

function detailOf(request: PendingApproval): MessageDetail | undefined {
  try {
    const detail = JSON.parse(request.detail) as Partial<MessageDetail>;
    return typeof detail.channel === 'string' && typeof detail.summary === 'string'
      ? { channel: detail.channel, summary: detail.summary, ...(detail.ts ? { ts: detail.ts } : {}) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The decision as the host reads it. */
function forHost(decision: RecordedDecision): ApprovalDecision {
  if (decision.outcome === 'expired') return { outcome: 'expired' };
  const by = decision.by ? { by: decision.by } : {};
  if (decision.outcome === 'approved') return { outcome: 'approved', ...by };
  return { outcome: 'denied', ...by, ...(decision.reason ? { reason: decision.reason } : {}) };
}

const unrecorded: ApprovalDecision = {
  outcome: 'denied',
  reason:
    'the approval request could not be recorded (the store is unreachable), so the call was not run; try again later',
};

/**
 * Approval requests in Slack threads: a message written by the host (tool, server, arguments) with
 * ✅ Approve, ✏️ Deny with reason and ⛔ Deny, which only the asker may press; answered, expired or
 * abandoned, the message says so and loses its buttons. The requests live in the store: a press
 * reaching any replica is recorded, and the replica that asked runs the tool and updates the message.
 */
export class SlackApprovals {
  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    /** Requests one person may have waiting at once; past it, a new one is refused unasked. */
    private readonly perPerson: number,
    /** The store's approvals (`store.approvals`). */
    private readonly ledger: Store['approvals'],
  ) {}

  /** Asks in the thread; resolves with the asker's answer, or `expired` after the timeout or an abort. */
  async ask(request: ApprovalRequest, context: ApprovalContext): Promise<ApprovalDecision> {
    const summary = summaryOf(request);
    const client = context.client ?? this.client;
    const workspace = context.workspace ?? unknownWorkspace;
    let waiting: number;
    try {
      waiting = await this.ledger.countWaiting(workspace, context.asker);
    } catch (error) {
      this.logger.error({ error: String(error) }, 'could not count the waiting approval requests');
      return unrecorded;
    }
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
    const id = randomUUID();
    const detail: MessageDetail = { channel: context.channel, summary };
    // Recorded before it is posted: a press, on whichever replica, always finds it.
    try {
      await this.ledger.open({
        id,
        workspace,
        person: context.asker,
        detail: JSON.stringify(detail),
        expiresAt: new Date(Date.now() + this.timeoutMs),
      });
    } catch (error) {
      this.logger.error({ error: String(error) }, 'could not record an approval request');
      return unrecorded;
    }
    let ts: string;
    try {
      const posted = await client.chat.postMessage({
        channel: context.channel,
        thread_ts: context.threadTs,
        text: `🔐 承認が必要です: ${summary}`,
        blocks: requestBlocks({
          id,
          request,
          asker: context.asker,
          summary,
          argumentBlocks: display.blocks,
        }),
      });
      ts = posted.ts as string;
    } catch (error) {
      await this.ledger.decide(id, { outcome: 'expired' }).catch(() => false);
      throw error;
    }
    await this.ledger
      .describe(id, JSON.stringify({ ...detail, ts }))
      .catch((error: unknown) =>
        this.logger.warn({ error: String(error) }, 'could not record where the approval request was posted'),
      );
    const { decision, cause } = await this.decisionOf(id, context.signal);
    // The buttons go: a second press finds nothing to answer.
    void this.update(
      client,
      context.channel,
      ts,
      decision
        ? decisionLine(decision, summary, cause)
        : `⚠️ ${summary} は承認を記録できなかったため実行しませんでした`,
    );
    return decision ? forHost(decision) : unrecorded;
  }

  /** A button was pressed: only the asker's press counts (checked on the payload's user id). */
  async pressed(options: ButtonPress): Promise<void> {
    const client = options.client ?? this.client;
    const request = await this.open(options.id);
    if (!request)
      return tellPrivately(client, options, 'この承認リクエストはもう有効ではありません。', this.logger);
    if (options.user !== request.person)
      return tellPrivately(
        client,
        options,
        `この操作を承認できるのは <@${request.person}> さんだけです。`,
        this.logger,
      );
    if (options.action === approvalActions.approve || options.action === approvalActions.deny) {
      const outcome = options.action === approvalActions.approve ? 'approved' : 'denied';
      // The replica that asked learns it (at once here, by the row elsewhere) and updates the message.
      if (!(await this.ledger.decide(options.id, { outcome, by: options.user })))
        await tellPrivately(client, options, 'この承認リクエストはもう有効ではありません。', this.logger);
      return;
    }
    await client.views.open({ trigger_id: options.triggerId, view: reasonModal(options.id) });
  }

  /** The deny-with-reason modal was submitted. */
  async reasoned(options: { id: string; user: string; reason: string }): Promise<void> {
    const reason = options.reason.trim().slice(0, 500);
    await this.ledger.decide(options.id, {
      outcome: 'denied',
      by: options.user,
      ...(reason ? { reason } : {}),
    });
  }

  /**
   * At start-up (after the replica's liveness is held): the requests whose replica is gone expire, and
   * their messages say so. Best effort: a message that cannot be updated is logged.
   */
  async expireOrphans(
    orphans: () => Promise<PendingApproval[]>,
    /** The bot token of a workspace (OAuth: its installation's); undefined: the app's own. */
    tokenFor: (workspace: string) => Promise<string | undefined>,
  ): Promise<void> {
    const expired = await orphans().catch((error: unknown) => {
      this.logger.warn(
        { error: String(error) },
        'could not expire the approval requests of stopped replicas',
      );
      return [];
    });
    for (const request of expired) {
      const detail = detailOf(request);
      if (!detail?.ts) continue;
      try {
        const token = await tokenFor(request.workspace);
        await this.client.chat.update({
          ...(token ? { token } : {}),
          channel: detail.channel,
          ts: detail.ts,
          text: decisionLine(
            { outcome: 'expired', by: null, reason: null, decidedAt: new Date() },
            detail.summary,
            'restart',
          ),
          blocks: [],
        });
      } catch (error) {
        this.logger.warn(
          { workspace: request.workspace, error: String(error) },
          'could not update an approval request that expired with its replica',
        );
      }
    }
    if (expired.length > 0)
      this.logger.info({ count: expired.length }, 'approval requests of stopped replicas expired');
  }

  /** Waits for the decision; past the timeout or on abort, records the expiry unless a decision won. */
  private async decisionOf(
    id: string,
    aborted: AbortSignal | undefined,
  ): Promise<{ decision: RecordedDecision | undefined; cause: ExpiryCause }> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), ...(aborted ? [aborted] : [])]);
    const cause: () => ExpiryCause = () => (aborted?.aborted ? 'aborted' : 'timeout');
    try {
      return { decision: await this.ledger.wait(id, { signal }), cause: cause() };
    } catch (error) {
      if (!signal.aborted) this.logger.error({ error: String(error) }, 'could not wait for an approval');
    }
    try {
      if (await this.ledger.decide(id, { outcome: 'expired' }))
        return {
          decision: { outcome: 'expired', by: null, reason: null, decidedAt: new Date() },
          cause: cause(),
        };
      // A decision won the race with the expiry: it counts.
      return { decision: (await this.ledger.get(id))?.decision, cause: cause() };
    } catch (error) {
      this.logger.error({ error: String(error) }, 'could not record an approval request’s expiry');
      return { decision: undefined, cause: cause() };
    }
  }

  /** The request if it still waits for a decision, else undefined. */
  private async open(id: string): Promise<PendingApproval | undefined> {
    const request = await this.ledger.get(id).catch((error: unknown) => {
      this.logger.warn({ error: String(error) }, 'could not read an approval request');
      return undefined;
    });
    return request && !request.decision && request.expiresAt.getTime() > Date.now() ? request : undefined;
  }

  private async update(client: WebClient, channel: string, ts: string, text: string): Promise<void> {
    await client.chat
      .update({ channel, ts, text, blocks: [] })
      .catch((error: unknown) =>
        this.logger.warn({ error: String(error) }, 'could not update the approval message'),
      );
  }
}
