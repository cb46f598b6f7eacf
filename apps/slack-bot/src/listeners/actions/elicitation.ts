import type { App, BlockAction, ButtonAction, SlackViewMiddlewareArgs } from '@slack/bolt';
import { elicitationActions, type SlackElicitations } from '../../slack/elicitation.js';
import { onButtonPress } from './press.js';

/** Registers the question's buttons and its form (submitted, or closed without sending). */
export function register(app: App, elicitations: SlackElicitations): void {
  for (const actionId of [elicitationActions.open, elicitationActions.visit, elicitationActions.decline])
    app.action<BlockAction<ButtonAction>>(actionId, onButtonPress(elicitations));
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
