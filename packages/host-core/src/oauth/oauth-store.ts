/**
 * What MCP authorization keeps, and where: a person's grant for a server is their credential for it
 * (encrypted per workspace, person and server, like a pasted token); client registrations and pending
 * authorizations are sealed records; `claim` lets exactly one replica refresh a grant, `release` ends
 * that claim when the refresh is done.
 * `@ai-assistant/store` provides one (see the apps); {@link memoryOAuthStore} keeps them in memory.
 */
export interface OAuthStore {
  grant(workspace: string, user: string, server: string): Promise<string | undefined>;
  saveGrant(workspace: string, user: string, server: string, grant: string): Promise<void>;
  deleteGrant(workspace: string, user: string, server: string): Promise<boolean>;
  record(kind: string, id: string): Promise<string | undefined>;
  saveRecord(kind: string, id: string, workspace: string | undefined, value: string): Promise<void>;
  /** Whether there was one: of two callers deleting the same record, exactly one hears true. */
  deleteRecord(kind: string, id: string): Promise<boolean>;
  /** True for exactly one caller per id, across replicas, until the id is released. */
  claim(id: string, workspace: string): Promise<boolean>;
  /** Ends a claim this replica made (the work it guarded is done): the id may be claimed again. */
  release(id: string): Promise<void>;
}

/** An {@link OAuthStore} in this process's memory (the terminal chat, tests). */
export function memoryOAuthStore(): OAuthStore {
  const grants = new Map<string, string>();
  const records = new Map<string, string>();
  const claims = new Set<string>();
  const grantKey = (workspace: string, user: string, server: string) =>
    `${workspace}\u0000${user}\u0000${server}`;
  return {
    grant: async (workspace, user, server) => grants.get(grantKey(workspace, user, server)),
    saveGrant: async (workspace, user, server, grant) => {
      grants.set(grantKey(workspace, user, server), grant);
    },
    deleteGrant: async (workspace, user, server) => grants.delete(grantKey(workspace, user, server)),
    record: async (kind, id) => records.get(`${kind}:${id}`),
    saveRecord: async (kind, id, _workspace, value) => {
      records.set(`${kind}:${id}`, value);
    },
    deleteRecord: async (kind, id) => records.delete(`${kind}:${id}`),
    claim: async (id) => {
      if (claims.has(id)) return false;
      claims.add(id);
      return true;
    },
    release: async (id) => {
      claims.delete(id);
    },
  };
}

/** The store's part an {@link OAuthStore} needs besides credentials: sealed records and claims. */
export type OAuthRecords = Pick<OAuthStore, 'record' | 'saveRecord' | 'deleteRecord' | 'claim' | 'release'>;

/**
 * An {@link OAuthStore} whose grants are people's credentials (so "connected" means the same for a
 * pasted token and an OAuth connection) and whose flows, registrations and claims are `records`.
 */
export function oauthStoreOver(
  credentials: {
    of(workspace: string, user: string): Promise<{ secrets: Record<string, string> }>;
    put(workspace: string, user: string, server: string, secret: string): Promise<void>;
    delete(workspace: string, user: string, server: string): Promise<boolean>;
  },
  records: OAuthRecords = memoryOAuthStore(),
): OAuthStore {
  return {
    grant: async (workspace, user, server) => (await credentials.of(workspace, user)).secrets[server],
    saveGrant: (workspace, user, server, grant) => credentials.put(workspace, user, server, grant),
    deleteGrant: (workspace, user, server) => credentials.delete(workspace, user, server),
    record: (kind, id) => records.record(kind, id),
    saveRecord: (kind, id, workspace, value) => records.saveRecord(kind, id, workspace, value),
    deleteRecord: (kind, id) => records.deleteRecord(kind, id),
    claim: (id, workspace) => records.claim(id, workspace),
    release: (id) => records.release(id),
  };
}
