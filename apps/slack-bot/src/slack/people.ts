import type { Logger, McpHost, McpView, ServerStatus } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import type { Question } from './answer.js';

type WebClient = App['client'];

/** Action, callback and block ids of the credential flow. */
export const credentialActions = {
  connectButton: 'credential_connect',
  modal: 'credential_modal',
  secretBlock: 'secret',
  secretAction: 'value',
} as const;

/** The workspace used when an event names none (a single-workspace install without team ids). */
const unknownWorkspace = 'unknown';

/** How a person connects a server in Slack, for the model and for people. */
export const connectCommand = (server: string) => `/assistant connect ${server}`;

/**
 * Each person's credentials and each workspace's server settings, from the store, turned into the
 * tools of one turn (`McpHost.forPerson`). Without a store (tests of other things) everyone shares
 * the catalog's defaults and has no credentials.
 */
export class People {
  constructor(
    private readonly mcp: McpHost | undefined,
    private readonly store: Store | undefined,
    private readonly logger: Logger,
  ) {}

  /** The tools of one turn for the person who asked. */
  /**
   * The asker's view of MCP (their workspace's enabled servers, their own credentials): the one way a
   * turn, a slash command or the assistant pane reaches tools, resources and prompts.
   */
  async viewFor(question: Pick<Question, 'team' | 'user'>): Promise<McpView | undefined> {
    if (!this.mcp) return undefined;
    const workspace = question.team ?? unknownWorkspace;
    const user = question.user ?? '';
    const [credentials, settings] = this.store
      ? await Promise.all([
          user ? this.store.credentialsOf(workspace, user) : { secrets: {}, unreadable: [] },
          this.store.serverSettings(workspace),
        ])
      : [{ secrets: {}, unreadable: [] }, new Map<string, boolean>()];
    return this.mcp.forPerson({
      workspace,
      user,
      credentials: credentials.secrets,
      settings,
      connectHint: connectCommand,
    });
  }

  /** The workspace's enabled servers, each with whether `user` has connected it. */
  async serversOf(
    workspace: string,
    user: string,
  ): Promise<Array<ServerStatus & { enabled: boolean; connected: boolean }>> {
    const servers = this.mcp?.status() ?? [];
    const settings = (await this.store?.serverSettings(workspace)) ?? new Map<string, boolean>();
    const mine = new Set(
      (await this.store?.listCredentials(workspace, user))?.map((entry) => entry.server) ?? [],
    );
    return servers.map((server) => ({
      ...server,
      enabled: settings.get(server.name) ?? server.enabledByDefault,
      connected: mine.has(server.name),
    }));
  }

  /** A configured server that takes a person's own credential, or why not. */
  personalServer(name: string): ServerStatus | string {
    const server = this.mcp?.status().find((entry) => entry.name === name);
    if (!server) return `No server named \`${escapeSlackText(name)}\`. Try \`/assistant servers\`.`;
    if (!server.personalCredential)
      return `\`${escapeSlackText(name)}\` does not take a personal credential: everyone uses it as it is configured.`;
    if (!this.store) return 'Credentials cannot be stored: the bot runs without its store.';
    return server;
  }

  /** Stores a person's secret for a server; their own connections to it reopen with the new one. */
  async connect(workspace: string, user: string, server: string, secret: string): Promise<void> {
    if (!this.store) throw new Error('the bot runs without its store');
    await this.store.putCredential(workspace, user, server, secret);
    this.mcp?.forgetCredential({ workspace, user }, server);
    this.logger.info({ workspace, user, server }, 'credential connected');
  }

  /** Deletes a person's secret for a server; whether there was one. */
  async disconnect(workspace: string, user: string, server: string): Promise<boolean> {
    const deleted = (await this.store?.deleteCredential(workspace, user, server)) ?? false;
    this.mcp?.forgetCredential({ workspace, user }, server);
    if (deleted) this.logger.info({ workspace, user, server }, 'credential disconnected');
    return deleted;
  }

  /** An admin's choice for the workspace. */
  async setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void> {
    if (!this.store) throw new Error('the bot runs without its store');
    await this.store.setServerEnabled(workspace, server, enabled, by);
    this.logger.info({ workspace, server, enabled, by }, 'workspace server setting changed');
  }
}

/** The modal that takes a person's token for a server: one input, what the server is, where to get one. */
export function connectModal(server: ServerStatus) {
  const about = [
    server.description ? escapeSlackText(server.description) : undefined,
    server.credentialHelp ? `*Where to get a token:* ${escapeSlackText(server.credentialHelp)}` : undefined,
    'The token is stored encrypted and used only for your own requests. It is never shown again.',
  ].filter(Boolean);
  return {
    type: 'modal' as const,
    callback_id: credentialActions.modal,
    private_metadata: JSON.stringify({ server: server.name }),
    title: { type: 'plain_text' as const, text: `Connect ${server.name}`.slice(0, 24) },
    submit: { type: 'plain_text' as const, text: 'Connect' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: about.join('\n\n') } },
      {
        type: 'input',
        block_id: credentialActions.secretBlock,
        label: { type: 'plain_text', text: 'Your token' },
        element: {
          type: 'plain_text_input',
          action_id: credentialActions.secretAction,
          placeholder: { type: 'plain_text', text: 'Paste the token here' },
          min_length: 1,
          max_length: 3000,
        },
      },
    ],
  };
}

/** The modal after a successful connect. */
export function connectedModal(server: string) {
  return {
    type: 'modal' as const,
    title: { type: 'plain_text' as const, text: 'Connected' },
    close: { type: 'plain_text' as const, text: 'Done' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `✓ connected: \`${escapeSlackText(server)}\` now uses your own token. Ask again.`,
        },
      },
    ],
  };
}

/**
 * Tells the person (only them) that a tool needed their own credential, with a button that opens the
 * connect modal. Failures are logged, never thrown: the answer goes on.
 */
export async function offerConnect(
  client: WebClient,
  question: Question,
  server: string,
  logger: Logger,
  /** Their token was sent and refused (expired, revoked): they connect again. */
  refused = false,
): Promise<void> {
  if (!question.user) return;
  const name = `\`${escapeSlackText(server)}\``;
  const line = refused
    ? `${name} refused your token: it may have expired or been revoked. Connect it again, then ask again.`
    : `${name} needs your own token. Connect it, then ask again.`;
  try {
    await client.chat.postEphemeral({
      channel: question.channel,
      user: question.user,
      thread_ts: question.threadTs,
      text: line,
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: `🔑 ${line}` },
        },
        {
          type: 'actions',
          block_id: 'credential',
          elements: [
            {
              type: 'button',
              action_id: credentialActions.connectButton,
              text: {
                type: 'plain_text',
                text: `${refused ? 'Reconnect' : 'Connect'} ${server}`.slice(0, 75),
              },
              value: server,
              style: 'primary',
            },
          ],
        },
      ],
    });
  } catch (error) {
    logger.warn({ server, error }, 'could not offer the connect button');
  }
}
