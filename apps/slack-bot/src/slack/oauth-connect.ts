import type { IncomingMessage, ServerResponse } from 'node:http';
import type { People, PersonRef } from '@ai-assistant/assistant';
import { AuthorizationError, type Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import { ConnectStarts, html, page } from './connect-start.js';

/** The Connect link button's action id (its value is the flow's state). */
export const oauthLinkAction = 'oauth_connect';

/** The message that offered a Connect link, per flow state: the callback marks it ✓ on any replica. */
export class ConnectMessages {
  constructor(private readonly sealed: Store['sealed']) {}

  async remember(state: string, workspace: string, responseUrl: string): Promise<void> {
    await this.sealed.put('oauth-slack-message', state, { workspace }, responseUrl);
  }

  /** The message's response_url, once: it is forgotten as it is read. */
  async take(state: string): Promise<string | undefined> {
    const found = await this.sealed.get('oauth-slack-message', state);
    if (found) await this.sealed.delete('oauth-slack-message', state);
    return found;
  }
}

/**
 * The private message that offers a person an OAuth server's Connect link: the button opens the
 * bot's start page (whose account, confirm), which goes on to the authorization server; the link is
 * theirs alone, works once and lasts 10 minutes. Undefined (and logged) when the flow cannot start;
 * then `problem` says why, in words for the person.
 */
export async function connectLinkMessage(
  people: People,
  starts: ConnectStarts,
  person: PersonRef,
  server: string,
  logger: Logger,
  refused = false,
  /** The server asked for more access (403 insufficient_scope): the link asks for this scope. */
  scope?: string,
): Promise<{ text: string; blocks: unknown[] } | { problem: string }> {
  const name = `\`${escapeSlackText(server)}\``;
  let started: { url: string; expiresAt: Date };
  let link: string;
  try {
    started = await people.beginConnect(person, server);
    link = await starts.link(person, server, started);
  } catch (error) {
    logger.warn({ server, error }, 'could not start connecting an OAuth server');
    return {
      problem: `${name} cannot be connected right now: ${error instanceof AuthorizationError ? escapeSlackText(error.message) : 'the sign-in could not start'}.`,
    };
  }
  const state = new URL(started.url).searchParams.get('state') ?? '';
  const line = scope
    ? `${name} needs more permission than you granted it (${moreAccess(scope)}): sign in again to grant it.`
    : refused
      ? `${name} needs you to sign in again (your access expired, was revoked, or it needs more access).`
      : `${name} needs you to sign in with your own account.`;
  return {
    text: `${line} Connect it, then ask again.`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `🔑 ${line} The link is yours alone: it works once, for 10 minutes, and names your Slack account before you sign in; you come back here when done.`,
        },
      },
      {
        type: 'actions',
        block_id: 'oauth',
        elements: [
          {
            type: 'button',
            action_id: oauthLinkAction,
            text: { type: 'plain_text', text: `${refused ? 'Reconnect' : 'Connect'} ${server}`.slice(0, 75) },
            url: link,
            value: state,
            style: 'primary',
          },
        ],
      },
    ],
  };
}

/** A Connect link was pressed (Slack opens the URL itself): remember its message for the ✓. */
export function onConnectLinkPressed(messages: ConnectMessages, logger: Logger) {
  return async ({
    ack,
    body,
    action,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const workspace = body.team?.id ?? body.user.team_id ?? 'unknown';
    if (!action.value || !body.response_url) return;
    await messages.remember(action.value, workspace, body.response_url).catch((error: unknown) => {
      logger.warn({ error }, 'could not remember the Connect message');
    });
  };
}

/**
 * `GET /oauth/callback`: where the authorization server sends the person back. The URL checked is
 * the public one (`PUBLIC_URL` + the path and query), never one built from the request's Host header,
 * and only in the browser that confirmed the flow on the start page (its cookie).
 * Success: a plain page, and the Slack message that offered the link turns to ✓.
 */
export function oauthCallbackPage(options: {
  people: People;
  starts: ConnectStarts;
  messages: ConnectMessages;
  publicUrl: string;
  logger: Logger;
}) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const callback = new URL(request.url ?? '/', `${options.publicUrl}/`);
    const state = callback.searchParams.get('state') ?? '';
    if (!(await options.starts.confirmedHere(request, state))) {
      options.logger.warn({}, 'an OAuth redirect outside the browser that confirmed it was refused');
      return page(
        response,
        400,
        'Not connected',
        '<p>This sign-in was not confirmed in this browser, or already used: open the Connect link from Slack in the browser you sign in with.</p>',
      );
    }
    // The flow's cookie has done its work, whatever happens next.
    response.setHeader('set-cookie', ConnectStarts.clearCookie(state));
    try {
      // This route serves only the callback: the public redirect URI plus what came back in the query.
      const done = await options.people.completeConnect(
        `${options.publicUrl}/oauth/callback${callback.search}`,
      );
      page(
        response,
        200,
        'Connected — you can close this tab',
        `<p>${html(done.server)} now works with your own account. Go back to Slack and ask again.</p>`,
      );
      const responseUrl = state ? await options.messages.take(state) : undefined;
      if (responseUrl)
        await fetch(responseUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            replace_original: true,
            response_type: 'ephemeral',
            text: `✓ Connected \`${escapeSlackText(done.server)}\` with your own account. Ask again.`,
          }),
          signal: AbortSignal.timeout(10_000),
        }).catch((error: unknown) =>
          options.logger.warn({ server: done.server, error }, 'could not mark the Connect message ✓'),
        );
    } catch (error) {
      options.logger.warn({ error }, 'an OAuth redirect was refused');
      page(
        response,
        400,
        'Not connected',
        `<p>${html(
          error instanceof AuthorizationError
            ? error.message
            : 'The sign-in could not be completed. Start again from Slack.',
        )}</p>`,
      );
    }
  };
}

/** The scope a server asked for, as the person reads it (a server's words: escaped, clipped). */
export function moreAccess(scope: string): string {
  return `it asks for \`${escapeSlackText(scope.replace(/`/g, "'")).slice(0, 200)}\``;
}
