import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import { elicitationActions, type SlackElicitations } from '../../slack/elicitation.js';

/** The question's buttons: open the form, open the page, decline. */
export function onElicitationButton(elicitations: SlackElicitations) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    await elicitations.pressed({
      client,
      id: action.value ?? '',
      action: action.action_id,
      user: body.user.id,
      channel: body.channel?.id ?? body.container.channel_id ?? '',
      triggerId: body.trigger_id,
    });
  };
}

/** Registers the question's buttons and its form (submitted, or closed without sending). */
export function register(app: App, elicitations: SlackElicitations): void {
  for (const actionId of [elicitationActions.open, elicitationActions.visit, elicitationActions.decline])
    app.action<BlockAction<ButtonAction>>(actionId, onElicitationButton(elicitations));
  app.view(elicitationActions.modal, async ({ ack, body, view }: SlackViewMiddlewareArgs) => {
    const errors = elicitations.submitted({
      id: view.private_metadata,
      user: body.user.id,
      values: view.state.values as Parameters<SlackElicitations['submitted']>[0]['values'],
    });
    await ack(errors ? { response_action: 'errors', errors } : undefined);
  });
  app.view({ callback_id: elicitationActions.modal, type: 'view_closed' }, async ({ ack, body, view }) => {
    await ack();
    elicitations.closed({ id: view.private_metadata, user: body.user.id });
  });
}
