import { type ConnectProblem, ConnectRefused, type People, type PersonRef } from '@ai-assistant/assistant';
import type { Logger, ServerStatus } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import type { Question } from './answer.js';
import type { ConnectStarts } from './connect-start.js';
import { connectLinkMessage, moreAccess } from './oauth-connect.js';

type WebClient = App['client'];

/** Action, callback and block ids of the credential flow. */
export const credentialActions = {
  connectButton: 'credential_connect',
  modal: 'credential_modal',
  secretBlock: 'secret',
  secretAction: 'value',
} as const;

/** The workspace used when an event names none (a single-workspace install without team ids). */
export const unknownWorkspace = 'unknown';

/** How a person connects a server in Slack, for the model and for people. */
export const connectCommand = (server: string) => `/assistant connect ${server}`;

/** The person behind a Slack event: its team (the workspace) and user. */
export function personOf(who: { team?: string | undefined; user?: string | undefined }): PersonRef {
  return { workspace: who.team ?? unknownWorkspace, user: who.user ?? '' };
}

/** Why `People.personalServer` refused a server, as a Slack reply. */
export function connectProblemText(name: string, problem: ConnectProblem): string {
  const server = `\`${escapeSlackText(name)}\``;
  if (problem === 'unknown server') return `No server named ${server}. Try \`/assistant servers\`.`;
  if (problem === 'not personal')
    return `${server} does not take a personal credential: everyone uses it as it is configured.`;
  if (problem === 'no oauth')
    return `${server} signs in with OAuth, and this bot has no public URL for the sign-in to come back to (the operator sets PUBLIC_URL).`;
  return 'Credentials cannot be stored: the bot runs without its store.';
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
  { people, starts }: { people: People; starts: ConnectStarts },
  logger: Logger,
  /** Their token was sent and refused (expired, revoked): they connect again. */
  refused = false,
  /** The server asked for more access (403 insufficient_scope): this scope, granted by connecting again. */
  scope?: string,
): Promise<void> {
  if (!question.user) return;
  const found = people.personalServer(server, personOf(question).workspace);
  if (!(found instanceof ConnectRefused) && found.oauth) {
    // An OAuth server: a link to its authorization server, for this person only.
    const message = await connectLinkMessage(
      people,
      starts,
      personOf(question),
      server,
      logger,
      refused,
      scope,
    );
    await client.chat
      .postEphemeral({
        channel: question.channel,
        user: question.user,
        thread_ts: question.threadTs,
        ...('problem' in message ? { text: message.problem } : message),
      } as Parameters<WebClient['chat']['postEphemeral']>[0])
      .catch((error: unknown) => logger.warn({ server, error }, 'could not offer the Connect link'));
    return;
  }
  const name = `\`${escapeSlackText(server)}\``;
  const line = scope
    ? `${name} needs more permission than your token has (${moreAccess(scope)}). Connect it again with a token that has it, then ask again.`
    : refused
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
