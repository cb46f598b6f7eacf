import type { ServerConfig } from '../config/mcp-config.js';
import type { Connection } from './connection.js';

/**
 * A server of a person's view that is theirs to open: a per-person server (the operator's or the
 * workspace's) or a workspace's own shared server; `connection` is the one open for them, if any.
 */
export interface OwnServer {
  config: ServerConfig;
  connection?: Connection;
}

/** The view's own servers that the workspace has, each with the connection opened for this person. */
export function ownServers(
  configs: Iterable<ServerConfig>,
  personal: Connection[],
  enabled: (server: string) => boolean,
): OwnServer[] {
  return [...configs]
    .filter((config) => !config.disabled && enabled(config.name))
    .filter((config) => config.connection === 'per_user' || config.workspace !== undefined)
    .map((config) => ({
      config,
      connection: personal.find((connection) => connection.config.name === config.name),
    }));
}

/**
 * Own servers whose connection is open but not working (it failed to open, the pool had no room, or
 * it went away), with why: the apps show it, and the model is told.
 */
export function ownUnavailable(
  servers: OwnServer[],
  redact: (text: string) => string,
): Array<{ server: string; restarting: boolean; reason?: string }> {
  return servers.flatMap(({ config, connection }) =>
    connection && connection.state !== 'connected'
      ? [
          {
            server: config.name,
            restarting: connection.state === 'restarting' || connection.state === 'connecting',
            ...(connection.reason ? { reason: redact(connection.reason) } : {}),
          },
        ]
      : [],
  );
}

/** What the model is told of the person's own servers: how to use them, or why they are not offered. */
export function ownServerNotes(
  servers: OwnServer[],
  redact: (text: string) => string,
  hint: (server: string) => string,
): string[] {
  return servers.flatMap(({ config, connection: own }): string[] => {
    const reason = own?.reason ? ` (${redact(own.reason)})` : '';
    if (config.connection !== 'per_user')
      // A workspace's own server: its connection is this view's; say when it is down.
      return own && own.state !== 'connected'
        ? [
            `The workspace's "${config.name}" server is unavailable now${reason}, so its tools are not offered. If the question needs it, tell the user.`,
          ]
        : [];
    if (own?.state === 'connected') return config.systemInstruction ? [config.systemInstruction] : [];
    if (own)
      return [
        `The user's own connection to the "${config.name}" server failed${reason}, so its tools are not available now. If the question needs them, tell the user; if their credential may be wrong, they can connect again (${hint(config.name)}).`,
      ];
    return [
      `The "${config.name}" server works with each user's own credential, and this user has not connected one, so its tools are not offered. If the question needs it, tell them it becomes available after they connect it (${hint(config.name)}), then ask again.`,
    ];
  });
}
