import type { Logger } from '@ai-assistant/chat-types';
import type { McpHost, RemoteServerConfig } from '@ai-assistant/host-core';
import type { PeopleStore } from './people-types.js';

/**
 * Deletes every person's credential for a workspace's server (it was removed, or another takes its
 * name): a credential belongs to the server it was given for, never to a later one of the same name.
 * An OAuth grant is revoked at its authorization server first, through the server's address rules
 * (best effort: a failure is logged, the grant deleted all the same). How many people had one.
 */
export async function dropServerCredentials(
  host: McpHost | undefined,
  store: PeopleStore | undefined,
  logger: Logger,
  workspace: string,
  server: string,
  config: RemoteServerConfig | undefined,
): Promise<number> {
  const credentials = store?.credentials;
  if (!credentials?.holders || !credentials.deleteServer) return 0;
  const holders = await credentials.holders(workspace, server);
  if (holders.length === 0) return 0;
  // Only with the server's own address rules (a workspace's: public addresses only).
  const oauth = config?.publicAddressesOnly ? host?.oauth : undefined;
  // A few at a time: each revocation is a round trip to the authorization server.
  for (let start = 0; oauth && start < holders.length; start += 8)
    await Promise.all(
      holders
        .slice(start, start + 8)
        .map((user) =>
          oauth
            .disconnect({ workspace, user }, server, config)
            .catch((error: unknown) =>
              logger.warn(
                { workspace, user, server, error: String(error) },
                'revoking a removed server’s credential failed; it is deleted all the same',
              ),
            ),
        ),
    );
  await credentials.deleteServer(workspace, server);
  for (const user of holders) host?.forgetCredential({ workspace, user }, server);
  logger.info({ workspace, server, people: holders.length }, 'credentials of a server deleted');
  return holders.length;
}
