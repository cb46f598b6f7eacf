import {
  type PeopleOptions,
  type StartPeopleOptions,
  UsageGate,
  usageLimitsFromEnv,
  workspaceLimitsOf,
} from '@ai-assistant/assistant';
import type { ChatServiceOptions } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';

/**
 * What the operator gets from every turn and change: the audit trail (tool calls with approvals and
 * outcomes; connects, disconnects, admins' changes) in the store, and usage counted against the
 * budgets of the environment (`USAGE_LIMIT_*`, `RATE_LIMIT_QUESTIONS_PER_MINUTE`) and those the
 * workspace's admins set.
 */
export function operatorHooks(
  store: Store,
  env: NodeJS.ProcessEnv,
  now?: () => Date,
): {
  chat: Pick<ChatServiceOptions, 'usage' | 'audit'>;
  people: Pick<PeopleOptions, 'audit' | 'usageLimits'>;
} {
  const audit = (entry: Parameters<Store['audit']['record']>[0]) => store.audit.record(entry);
  const limits = usageLimitsFromEnv(env);
  const usage = new UsageGate({
    store: store.usage,
    limits,
    ...(now ? { now } : {}),
    // The budgets a workspace's admins set in App Home: lower than the environment's, never higher.
    workspaceLimits: async (workspace: string) => workspaceLimitsOf(await store.workspaces.limits(workspace)),
  });
  return {
    chat: { usage, audit },
    // The environment's budgets are the ceiling of those admins set.
    people: { audit, usageLimits: limits },
  };
}

/**
 * MCP servers with OAuth: people's browsers come back to this bot's own HTTP server at
 * `<PUBLIC_URL>/oauth/callback?as=<id>` (one redirect URI per authorization server); an https
 * PUBLIC_URL also serves a client ID metadata document per authorization server,
 * `<PUBLIC_URL>/oauth/client-metadata/<id>.json`.
 */
export function oauthOptions(publicUrl: string | undefined): Pick<StartPeopleOptions, 'oauth'> {
  if (!publicUrl) return {};
  return {
    oauth: {
      redirectUrl: `${publicUrl}/oauth/callback`,
      ...(publicUrl.startsWith('https://')
        ? { clientMetadataUrl: `${publicUrl}/oauth/client-metadata/{as}.json` }
        : {}),
      clientName: 'ai-assistant (Slack)',
    },
  };
}
