import { oauthStoreOver, type StartMcpOptions, startMcpFromEnvironment } from '@ai-assistant/host-core';
import { People } from './people.js';
import type { PeopleOptions, PeopleStore } from './people-types.js';
import { usageLimitsFromEnv } from './usage.js';

/** Options of {@link startPeople}: MCP's (see `startMcpFromEnvironment`), the store and the app's hint. */
export interface StartPeopleOptions extends Omit<StartMcpOptions, 'oauth'>, PeopleOptions {
  store?: PeopleStore;
  /** MCP authorization: the exact redirect URI (the app's callback) and, optionally, its client metadata URL. */
  oauth?: Omit<NonNullable<StartMcpOptions['oauth']>, 'store'>;
}

/**
 * What an app does at start-up: connects the configured MCP servers (when `MCP_ENABLED`) and returns
 * the {@link People} over them and the store. Throws what `startMcpFromEnvironment` throws.
 */
export async function startPeople(options: StartPeopleOptions = {}): Promise<People> {
  const { store, connectHint, oauth, audit, workspaceServersAllow, appSettings, ...mcp } = options;
  // People's grants are their credentials in the store: without one, nobody could sign in.
  if (oauth && !store)
    options.logger?.warn(
      {},
      'MCP authorization (oauth) is off: it needs a store, where people’s sign-ins are kept (pass startPeople a store)',
    );
  const host = await startMcpFromEnvironment({
    ...mcp,
    // Grants are people's credentials; flows, registrations and refresh claims the store's records.
    ...(oauth && store ? { oauth: { ...oauth, store: oauthStoreOver(store.credentials, store.oauth) } } : {}),
  });
  return new People(host, store, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(connectHint ? { connectHint } : {}),
    ...(audit ? { audit } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(appSettings ? { appSettings } : {}),
    usageLimits: options.usageLimits ?? usageLimitsFromEnv(options.env ?? process.env),
    workspaceServersAllow:
      workspaceServersAllow ?? (options.env ?? process.env).WORKSPACE_SERVERS_ALLOW ?? '',
  });
}
