import type { Adapter } from 'oidc-provider';

/** What the relying party's client registration is right now (its redirect URIs can change after start). */
export type ClientMetadata = () => Record<string, unknown>;

/**
 * The test IdP's storage: one in-memory map per provider, with the relying party's client read live from the
 * registration. Clients come from the adapter rather than the `clients` option because static clients are frozen
 * when the provider is built, and a test learns its callback URL (it holds the organization's id) only later;
 * oidc-provider caches an adapter client by the hash of its metadata, so a changed registration is seen at once.
 * Owning the adapter also silences the warning oidc-provider prints for its own development-only one.
 */
export function memoryAdapter(clientId: string, client: ClientMetadata): (model: string) => Adapter {
  const rows = new Map<string, { payload: Record<string, any>; expiresAt: number }>();
  const live = (key: string) => {
    const row = rows.get(key);
    if (!row) return undefined;
    if (row.expiresAt > Date.now()) return row.payload;
    rows.delete(key);
    return undefined;
  };
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        rows.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
      },
      async find(id) {
        if (model === 'Client') return id === clientId ? client() : undefined;
        return live(key(id));
      },
      async findByUid(uid) {
        for (const [k, row] of rows) if (k.startsWith(`${model}:`) && row.payload.uid === uid) return live(k);
        return undefined;
      },
      async findByUserCode() {
        return undefined; // no device flow at this IdP
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        rows.delete(key(id));
      },
      // A second use of a code revokes what the first use issued: everything of its grant goes.
      async revokeByGrantId(grantId) {
        for (const [k, row] of rows) if (row.payload.grantId === grantId) rows.delete(k);
      },
    };
  };
}
