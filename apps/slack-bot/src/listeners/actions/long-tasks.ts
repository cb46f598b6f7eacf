import type { Logger } from '@ai-assistant/host-core';
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { tellPrivately } from '../../slack/button-press.js';
import { type LongTaskFollower, longTaskActions } from '../../slack/long-tasks.js';

/** Cancel under a task that outlived its answer: only its person; the task is cancelled on its server. */
export function register(app: App, follower: LongTaskFollower, logger: Logger): void {
  app.action<BlockAction<ButtonAction>>(longTaskActions.cancel, async ({ ack, body, action, client }) => {
    await ack();
    const presser = body.user.id;
    const workspace = body.team?.id ?? body.user.team_id ?? '';
    try {
      const refusal = await follower.cancel(action.value ?? '', presser, workspace);
      if (refusal)
        await tellPrivately(client, { channel: body.channel?.id ?? presser, user: presser }, refusal, logger);
    } catch (error) {
      logger.warn({ error }, 'a task Cancel press failed');
    }
  });
}
