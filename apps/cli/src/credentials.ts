import { userInfo } from 'node:os';
import type { Logger, McpHost, ToolHost } from '@ai-assistant/host-core';
import { openStoreFromEnvironment, type Store } from '@ai-assistant/store';

/** The terminal's person: the local workspace and the operating system's user. */
export const localPerson = { workspace: 'local', user: userInfo().username };

/**
 * The terminal chat's own credentials, in the same store as the Slack app's (DATA_DIR or DATABASE_URL),
 * opened on first need: only when a server takes a personal credential.
 */
export class LocalCredentials {
  private store: Promise<Store> | undefined;

  constructor(
    private readonly mcp: McpHost | undefined,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {}

  /** Servers that take a personal credential. */
  personalServers(): string[] {
    return (this.mcp?.status() ?? [])
      .filter((server) => server.personalCredential)
      .map((server) => server.name);
  }

  private open(): Promise<Store> {
    this.store ??= openStoreFromEnvironment(this.env, this.logger);
    return this.store;
  }

  /** The local person's tools for a turn, or undefined when no server takes a personal credential. */
  async tools(): Promise<ToolHost | undefined> {
    if (!this.mcp || this.personalServers().length === 0) return undefined;
    const store = await this.open();
    const { secrets } = await store.credentialsOf(localPerson.workspace, localPerson.user);
    return this.mcp.forPerson({
      ...localPerson,
      credentials: secrets,
      connectHint: (server) => `/connect ${server}`,
    });
  }

  /** Which personal servers the local person has connected. */
  async connected(): Promise<Set<string>> {
    if (this.personalServers().length === 0) return new Set();
    const store = await this.open();
    return new Set(
      (await store.listCredentials(localPerson.workspace, localPerson.user)).map((entry) => entry.server),
    );
  }

  /** Why `server` cannot be connected, or undefined when it can. */
  problem(server: string | undefined): string | undefined {
    if (!server) return 'Usage: /connect <server> (or /disconnect <server>)';
    if (!this.mcp?.status().some((entry) => entry.name === server))
      return `No server named ${server}. Try /servers.`;
    if (!this.personalServers().includes(server))
      return `${server} does not take a personal credential: everyone uses it as configured.`;
    return undefined;
  }

  async connect(server: string, secret: string): Promise<void> {
    await (await this.open()).putCredential(localPerson.workspace, localPerson.user, server, secret);
    this.mcp?.forgetCredential(localPerson, server);
  }

  async disconnect(server: string): Promise<boolean> {
    const deleted = await (await this.open()).deleteCredential(
      localPerson.workspace,
      localPerson.user,
      server,
    );
    this.mcp?.forgetCredential(localPerson, server);
    return deleted;
  }

  async close(): Promise<void> {
    await (await this.store?.catch(() => undefined))?.close();
  }
}
