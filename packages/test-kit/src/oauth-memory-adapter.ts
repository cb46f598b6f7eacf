import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

/**
 * oidc-provider's storage in memory, one per authorization server. Its own in-memory adapter works the
 * same but prints a production warning on every start; this one keeps test output quiet.
 */
export function oauthMemoryAdapter(): AdapterFactory {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const keysOfGrant = new Map<string, Set<string>>();
  const sessionByUid = new Map<string, string>();
  const idByUserCode = new Map<string, string>();
  const read = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      upsert: async (id, payload, expiresIn) => {
        const key = keyOf(id);
        entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
        if (payload.grantId) {
          const keys = keysOfGrant.get(payload.grantId) ?? new Set<string>();
          keysOfGrant.set(payload.grantId, keys.add(key));
        }
        if (model === 'Session' && payload.uid) sessionByUid.set(payload.uid, id);
        if (payload.userCode) idByUserCode.set(payload.userCode, id);
      },
      find: async (id) => read(keyOf(id)),
      findByUid: async (uid) => {
        const id = sessionByUid.get(uid);
        return id === undefined ? undefined : read(keyOf(id));
      },
      findByUserCode: async (userCode) => {
        const id = idByUserCode.get(userCode);
        return id === undefined ? undefined : read(keyOf(id));
      },
      consume: async (id) => {
        const payload = read(keyOf(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        entries.delete(keyOf(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const key of keysOfGrant.get(grantId) ?? []) entries.delete(key);
        keysOfGrant.delete(grantId);
      },
    };
  };
}
