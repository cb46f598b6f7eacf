import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import { approvalActions, type SlackApprovals } from '../../slack/approvals.js';

/** The three approval buttons. */
export function onApprovalButton(approvals: SlackApprovals) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    await approvals.pressed({
      client,
      id: action.value ?? '',
      action: action.action_id,
      user: body.user.id,
      channel: body.channel?.id ?? body.container.channel_id ?? '',
      triggerId: body.trigger_id,
    });
  };
}

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
    app.action<BlockAction<ButtonAction>>(actionId, onApprovalButton(approvals));
  app.view(approvalActions.reasonModal, onReasonSubmitted(approvals));
}
