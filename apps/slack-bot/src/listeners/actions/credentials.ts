import { ConnectRefused, credentialProblem, type People } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import { type ConnectMessages, oauthLinkAction, onConnectLinkPressed } from '../../slack/oauth-connect.js';
import {
  connectedModal,
  connectModal,
  connectProblemText,
  credentialActions,
  personOf,
} from '../../slack/people.js';

/** The Connect <server> button of the ephemeral message: opens the same modal as `/assistant connect`. */
export function onConnectButton(people: People, logger: Logger) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const workspace = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id }).workspace;
    const server = await people.personalServerIn(workspace, action.value ?? '');
    if (server instanceof ConnectRefused) return;
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: connectModal(server) });
    } catch (error) {
      logger.warn({ server: server.name, error }, 'could not open the connect modal');
    }
  };
}

/** The modal's submission: the secret is stored encrypted for (workspace, user, server); never echoed. */
export function onConnectSubmitted(people: People, logger: Logger) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs) => {
    let meta: { server?: unknown };
    try {
      meta = JSON.parse(view.private_metadata) as typeof meta;
    } catch {
      meta = {};
    }
    const secret =
      view.state.values[credentialActions.secretBlock]?.[credentialActions.secretAction]?.value?.trim() ?? '';
    const name = typeof meta.server === 'string' ? meta.server : '';
    // Whose and which workspace's credential it is comes from Slack's payload, never from the metadata.
    const person = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });
    const found = await people.personalServerIn(person.workspace, name);
    const server = found instanceof ConnectRefused ? connectProblemText(name, found.problem) : found;
    if (!secret)
      return void (await ack({
        response_action: 'errors',
        errors: { [credentialActions.secretBlock]: 'Paste your token here.' },
      }));
    if (typeof server === 'string')
      return void (await ack({
        response_action: 'errors',
        errors: { [credentialActions.secretBlock]: server.replace(/`/g, '') },
      }));
    // Checked before anything is stored; the message never repeats the value.
    const problem = credentialProblem(secret);
    if (problem)
      return void (await ack({
        response_action: 'errors',
        errors: { [credentialActions.secretBlock]: `This cannot be saved: ${problem}.` },
      }));
    try {
      await people.connect(person, server.name, secret);
      await ack({ response_action: 'update', view: connectedModal(server.name) });
    } catch (error) {
      logger.error({ server: server.name, error }, 'could not store a credential');
      await ack({
        response_action: 'errors',
        errors: { [credentialActions.secretBlock]: 'The token could not be saved. Try again in a moment.' },
      });
    }
  };
}

/** Registers the Connect button, the connect modal, and the OAuth Connect link. */
export function register(app: App, people: People, logger: Logger, messages: ConnectMessages): void {
  app.action<BlockAction<ButtonAction>>(credentialActions.connectButton, onConnectButton(people, logger));
  app.view(credentialActions.modal, onConnectSubmitted(people, logger));
  app.action<BlockAction<ButtonAction>>(oauthLinkAction, onConnectLinkPressed(messages, logger));
}
