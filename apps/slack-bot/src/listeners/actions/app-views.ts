import { appViewPages } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { AppViews, type AppViewsOptions, appViewActions } from '../../app-views/app-views.js';
import { escapeSlackText } from '../../format/slack-text.js';
import { personOf } from '../../slack/people.js';

/**
 * Open under a result with a view: whoever pressed it (Slack's payload says who) gets, in a message
 * only they see, their own link to the page, or why there is none.
 */
export function onOpenPressed(views: Pick<AppViews, 'pressed'>, logger: Logger) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const person = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });
    const channel = body.channel?.id ?? body.container?.channel_id;
    if (!channel) return;
    const threadTs = (body.message as { thread_ts?: string } | undefined)?.thread_ts;
    try {
      const link = await views.pressed(person, action.value ?? '');
      await client.chat.postEphemeral({
        channel,
        user: person.user,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        text: link.url
          ? `${escapeSlackText(link.text)} <${link.url}|Open the page>`
          : escapeSlackText(link.text),
        ...(link.url
          ? {
              blocks: [
                { type: 'section', text: { type: 'mrkdwn', text: escapeSlackText(link.text) } },
                {
                  type: 'actions',
                  elements: [
                    {
                      type: 'button',
                      text: { type: 'plain_text', text: 'Open the page' },
                      url: link.url,
                      action_id: `${appViewActions.open}_link`,
                    },
                  ],
                },
              ],
            }
          : {}),
      });
    } catch (error) {
      logger.warn({ error: String(error) }, 'could not answer an Open press');
    }
  };
}

/**
 * MCP Apps views: the Open button's action, and the pages (with their JSON endpoint) the bot serves
 * under `/apps/` when it has a public URL. `views` goes to answering, which offers them.
 */
export function register(app: App, options: AppViewsOptions) {
  const views = new AppViews(options);
  app.action<BlockAction<ButtonAction>>(appViewActions.open, onOpenPressed(views, options.logger));
  // The link button of the ephemeral message opens the page in the browser; Slack still sends its press.
  app.action(`${appViewActions.open}_link`, async ({ ack }) => ack());
  const served = options.publicUrl ? appViewPages(views, options.publicUrl, options.logger) : undefined;
  return { views, pages: served?.pages ?? {}, forms: served?.forms ?? {} };
}
