import {
  type AppViewRecord,
  AppViewService,
  type People,
  type ToolView,
  type ViewSession,
} from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { App, types } from '@slack/bolt';
import { clipEscaped, escapeSlackText } from '../format/slack-text.js';

type KnownBlock = types.KnownBlock;
type WebClient = App['client'];

/** The action of the Open button under an answer whose tool has a view. */
export const appViewActions = { open: 'app_view_open' } as const;

/** A result with a view, as kept for its Open button: where it was asked, by whom, and what came back. */
export interface ViewRecord extends AppViewRecord {
  channel: string;
  threadTs: string;
}

export interface AppViewsOptions {
  store: Pick<Store, 'sealed' | 'audit'>;
  people: Pick<People, 'viewFor'>;
  /** The bot's public URL (PUBLIC_URL): the page's address; without it, Open says why. */
  publicUrl: string | undefined;
  logger: Logger;
  /** The Web API client of a workspace (the app's own in one-workspace mode). */
  clientFor: (workspace: string) => Promise<WebClient | undefined>;
  /** Answers a message the app posted in the thread as the person's follow-up. */
  followUp?: (question: {
    channel: string;
    threadTs: string;
    messageTs: string;
    text: string;
    user: string;
    team: string;
    client: WebClient;
  }) => void;
  now?: () => Date;
}

/**
 * MCP Apps views of tool results, offered in Slack: an Open button under the answer, a personal,
 * signed, single-use link for whoever presses it, and the page's requests answered through that
 * person's own view of MCP (the assistant's `AppViewService`); a message the app sends is posted in
 * the thread as the person's follow-up once they confirm it.
 */
export class AppViews extends AppViewService<ViewRecord> {
  constructor(private readonly slack: AppViewsOptions) {
    super({
      sealed: slack.store.sealed,
      audit: slack.store.audit,
      people: slack.people,
      logger: slack.logger,
      again: 'Press Open in Slack again for a new one',
      message: { prompt: 'The page wants to post this in the Slack thread as you:', button: 'Post' },
      ...(slack.now ? { now: slack.now } : {}),
    });
  }

  /**
   * The blocks to put under an answer: one line per result with a view (its tool, server and the
   * start of what the model read) and an Open button. Each is kept in the store for `viewRetentionMs`.
   */
  async blocksFor(
    place: { channel: string; threadTs: string; workspace: string; asker: string },
    views: ToolView[],
  ): Promise<KnownBlock[]> {
    const blocks: KnownBlock[] = [];
    for (const view of views.slice(0, 5)) {
      const kept = await this.keep(place, view);
      if (!kept) continue;
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `🖼️ *${clipEscaped(escapeSlackText(view.tool), 100)}* (${clipEscaped(escapeSlackText(view.server), 60)}): ${clipEscaped(escapeSlackText(kept.record.summary), 300)}`,
        },
        accessory: {
          type: 'button',
          action_id: appViewActions.open,
          text: { type: 'plain_text', text: 'Open' },
          value: kept.id,
        },
      });
    }
    if (blocks.length > 0)
      blocks.push({
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'Open shows a result as its server’s page, to whoever presses it, with their own access.',
          },
        ],
      });
    return blocks;
  }

  /**
   * Open was pressed: a link for the person who pressed it (an ephemeral message only they see), or
   * why there is none.
   */
  async pressed(
    person: { workspace: string; user: string },
    viewId: string,
  ): Promise<{ url?: string; text: string }> {
    if (!this.slack.publicUrl)
      return {
        text: 'This page cannot be opened: the bot has no public address. The operator sets PUBLIC_URL (the address of the bot’s HTTP server, as for Connect links).',
      };
    const record = await this.record(viewId);
    if (!record) return { text: 'This result’s page is no longer kept. Ask again for a new one.' };
    const token = await this.links.issue(viewId, person);
    const url = `${this.slack.publicUrl}/apps/open?t=${token}`;
    const whose =
      person.user === record.asker && person.workspace === record.workspace
        ? 'your result'
        : 'this view with your own access (the tool runs again for you)';
    return {
      url,
      text: `Your link to ${whose}: it works once, in one browser, for 10 minutes. Do not forward it.`,
    };
  }

  /** Posts the app's message in the thread as the person's follow-up, which the bot then answers. */
  protected override async deliverMessage(
    session: ViewSession,
    record: ViewRecord,
    text: string,
  ): Promise<{ error?: string }> {
    const client = await this.slack.clientFor(session.workspace);
    if (!client || session.workspace !== record.workspace)
      return { error: 'The message could not be posted: the thread is in another workspace.' };
    const posted = await client.chat.postMessage({
      channel: record.channel,
      thread_ts: record.threadTs,
      text: `<@${session.user}> (from the ${escapeSlackText(record.tool)} page): ${escapeSlackText(text)}`,
    });
    this.slack.followUp?.({
      channel: record.channel,
      threadTs: record.threadTs,
      messageTs: posted.ts as string,
      text,
      user: session.user,
      team: session.workspace,
      client,
    });
    return {};
  }
}
