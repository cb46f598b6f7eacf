import { ConnectRefused, type People, type PersonRef } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { isWorkspaceAdmin } from '../../slack/admins.js';
import { homeActions, homeView } from '../../slack/app-home.js';
import type { ConnectStarts } from '../../slack/connect-start.js';
import { connectLinkMessage } from '../../slack/oauth-connect.js';
import { connectModal, personOf } from '../../slack/people.js';

/** What the App Home needs. */
export interface AppHomeDependencies {
  people: People;
  logger: Logger;
  /** Where Connect links lead (the bot's start page). */
  starts: ConnectStarts;
  /** The store's audit trail and usage. */
  store: Pick<Store, 'audit' | 'usage' | 'schedules'>;
  now?: () => Date;
}

type WebClient = App['client'];

/** Publishes the person's home tab (their servers and usage; for admins, their controls and the audit). */
export async function publish(client: WebClient, person: PersonRef, dependencies: AppHomeDependencies) {
  const admin = await isWorkspaceAdmin(client, person.user);
  const today = (dependencies.now ?? (() => new Date()))().toISOString().slice(0, 10);
  const [servers, usage, audit, limits, mine, workspaceSchedules] = await Promise.all([
    dependencies.people.servers(person),
    dependencies.store.usage.totals(person.workspace, `${today.slice(0, 8)}01`, today, person.user),
    admin ? dependencies.store.audit.recent(person.workspace, { limit: 50 }) : undefined,
    admin ? dependencies.people.limits(person.workspace) : undefined,
    dependencies.store.schedules.ofOwner(person.workspace, person.user),
    admin ? dependencies.store.schedules.ofWorkspace(person.workspace) : undefined,
  ]);
  await client.views.publish({
    user_id: person.user,
    view: homeView({
      servers,
      admin,
      ...(usage ? { usage } : {}),
      ...(audit ? { audit } : {}),
      ...(limits ? { limits } : {}),
      ...(admin ? { ceiling: dependencies.people.limitCeiling() } : {}),
      oauthReady: dependencies.people.oauthReady,
      schedules: { mine, ...(workspaceSchedules ? { workspace: workspaceSchedules } : {}) },
    }),
  } as unknown as Parameters<WebClient['views']['publish']>[0]);
}

/** A press of one of the home tab's buttons (the server is the button's value). */
function onHomeAction(action: keyof typeof homeActions, dependencies: AppHomeDependencies) {
  return async ({
    ack,
    body,
    action: pressed,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const { people, logger } = dependencies;
    // Who acts comes from Slack's payload; an admin action is checked with Slack now, whatever the view showed.
    const person = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });
    const server = pressed.value ?? '';
    try {
      if (action === 'enable' || action === 'disable') {
        if (!(await isWorkspaceAdmin(client, person.user))) {
          logger.warn(
            { ...person, server, action },
            'an admin action from someone who is not an admin was refused',
          );
        } else if ((await people.servers(person)).some((entry) => entry.name === server)) {
          await people.setEnabled(person.workspace, server, action === 'enable', person.user);
        }
      } else if (action === 'disconnect') {
        await people.disconnect(person, server);
      } else {
        const found = await people.personalServerIn(person.workspace, server);
        if (!(found instanceof ConnectRefused)) {
          if (found.oauth) {
            const message = await connectLinkMessage(people, dependencies.starts, person, server, logger);
            await client.views.open({
              trigger_id: body.trigger_id,
              view: {
                type: 'modal',
                title: { type: 'plain_text', text: `Connect ${server}`.slice(0, 24) },
                close: { type: 'plain_text', text: 'Close' },
                blocks:
                  'problem' in message
                    ? [{ type: 'section', text: { type: 'mrkdwn', text: message.problem } }]
                    : message.blocks,
              },
            } as Parameters<WebClient['views']['open']>[0]);
          } else await client.views.open({ trigger_id: body.trigger_id, view: connectModal(found) });
        }
      }
      await publish(client, person, dependencies);
    } catch (error) {
      logger.warn({ ...person, server, action, error }, 'an App Home action failed');
    }
  };
}

/** The App Home: `app_home_opened` on the home tab publishes it; its buttons act and publish it again. */
export function register(app: App, dependencies: AppHomeDependencies): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    if (event.tab !== 'home') return;
    const person = personOf({ team: context.teamId ?? undefined, user: event.user });
    await publish(client, person, dependencies).catch((error: unknown) =>
      dependencies.logger.warn({ ...person, error }, 'could not publish the App Home'),
    );
  });
  for (const action of Object.keys(homeActions) as Array<keyof typeof homeActions>)
    app.action<BlockAction<ButtonAction>>(homeActions[action], onHomeAction(action, dependencies));
}
