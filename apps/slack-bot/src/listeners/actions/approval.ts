import type { App, BlockAction, ButtonAction, SlackViewMiddlewareArgs } from '@slack/bolt';
import { approvalActions, type SlackApprovals } from '../../slack/approvals.js';
import { onButtonPress } from './press.js';

/** The deny-with-reason modal. */
export function onReasonSubmitted(approvals: SlackApprovals) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs) => {
    await ack();
    const reason = view.state.values[approvalActions.reasonBlock]?.value?.value ?? '';
    await approvals.reasoned({ id: view.private_metadata, user: body.user.id, reason });
  };
}

/** Registers the approval buttons and modal. */
export function register(app: App, approvals: SlackApprovals): void {
  for (const actionId of [approvalActions.approve, approvalActions.denyWithReason, approvalActions.deny])
    app.action<BlockAction<ButtonAction>>(actionId, onButtonPress(approvals));
  app.view(approvalActions.reasonModal, onReasonSubmitted(approvals));
}
