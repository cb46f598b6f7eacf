import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ButtonPress } from '../../slack/button-press.js';

/** A button's listener: acknowledges, then hands the press (who, where, which) to `target`. */
export function onButtonPress(target: { pressed(press: ButtonPress): Promise<void> }) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    await target.pressed({
      client,
      id: action.value ?? '',
      action: action.action_id,
      user: body.user.id,
      channel: body.channel?.id ?? body.container.channel_id ?? '',
      triggerId: body.trigger_id,
    });
  };
}
