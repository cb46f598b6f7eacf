import type { People } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { AllMiddlewareArgs, App } from '@slack/bolt';
import { forgetInstallation, storeQuery } from '../../slack/installations.js';

interface UninstallDependencies {
  store: Store;
  people: People;
  logger: Logger;
}

/**
 * Forgets the workspace (or the organisation) the event came from: installation, credentials, settings;
 * its people's own MCP connections close at once.
 */
async function forget(
  { store, people, logger }: UninstallDependencies,
  context: AllMiddlewareArgs['context'],
  why: string,
) {
  const query = storeQuery(context);
  try {
    const workspaces = await forgetInstallation(store, query);
    people.forgetWorkspaces(workspaces);
    logger.info(
      { why, team: query.teamId, enterprise: query.enterpriseId, workspaces },
      'workspace forgotten',
    );
  } catch (error) {
    logger.error(
      { why, team: query.teamId, error: String(error) },
      'could not forget an uninstalled workspace',
    );
  }
}

/**
 * `app_uninstalled`, and `tokens_revoked` naming the bot's token: the workspace's installation and
 * everything stored for it (every person's credentials, the server settings, event claims) are deleted.
 * A revoked user token alone changes nothing: the app keeps no user tokens.
 */
export function register(app: App, store: Store, people: People, logger: Logger): void {
  const dependencies: UninstallDependencies = { store, people, logger };
  // A workspace seen under an organisation-wide install is recorded with its enterprise (once per
  // process), so uninstalling the organisation finds every workspace people stored credentials in.
  const recorded = new Set<string>();
  app.use(async ({ context, next }) => {
    const { teamId, enterpriseId } = context;
    if (context.isEnterpriseInstall && teamId && enterpriseId && !recorded.has(teamId)) {
      recorded.add(teamId);
      await store.workspaces.ensure(teamId, enterpriseId).catch((error: unknown) => {
        recorded.delete(teamId);
        logger.warn({ team: teamId, error: String(error) }, 'could not record the workspace’s enterprise');
      });
    }
    await next();
  });
  app.event('app_uninstalled', async ({ context }) => forget(dependencies, context, 'app_uninstalled'));
  app.event('tokens_revoked', async ({ event, context }) => {
    if ((event.tokens.bot ?? []).length > 0) await forget(dependencies, context, 'tokens_revoked');
  });
}
