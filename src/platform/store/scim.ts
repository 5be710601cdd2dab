import type { Selectable } from 'kysely';
import type { ScimToken } from '../../contract/scim.js';
import type { ScimTokensTable } from './schema.js';
import type { Q, StoreEnv } from './sql.js';

const TOKEN_COLUMNS = ['id', 'org_id', 'name', 'created_at', 'last_used_at'] as const;

type TokenRow = Pick<Selectable<ScimTokensTable>, (typeof TOKEN_COLUMNS)[number]>;

function toToken(r: TokenRow): ScimToken {
  return { id: r.id, organizationId: r.org_id, name: r.name, createdAt: r.created_at, lastUsedAt: r.last_used_at };
}

/** What SCIM says of a resource beyond the platform's record of it. */
export interface ScimExtra {
  externalId: string | null;
  attributes: Record<string, unknown>;
}

function toExtra(r: { external_id: string | null; attributes: string }): ScimExtra {
  return { externalId: r.external_id, attributes: JSON.parse(r.attributes) as Record<string, unknown> };
}

export type ScimKind = 'User' | 'Group';

/** A SCIM request that failed, as `plat scim status` shows the last one. */
export interface ScimFailure {
  at: string;
  method: string;
  path: string;
  status: number;
  scimType: string | null;
  detail: string;
}

/**
 * Directory sync (docs/scim.md): its tokens (hashes of their secrets only), and what SCIM says of members and teams
 * beyond their records; their SQL in one place.
 */
export function scimStore(q: Q, env: StoreEnv) {
  return {
    /** What SCIM says of each resource of a kind in the organization (of those `ids` only, when given), by id. */
    extras: async (orgId: string, kind: ScimKind, ids?: readonly string[]): Promise<Map<string, ScimExtra>> => {
      if (ids?.length === 0) return new Map();
      let query = q
        .selectFrom('scim_resources')
        .select(['id', 'external_id', 'attributes'])
        .where('org_id', '=', orgId)
        .where('kind', '=', kind);
      if (ids) query = query.where('id', 'in', ids);
      const rows = await query.execute();
      return new Map(rows.map((r) => [r.id, toExtra(r)]));
    },
    extra: async (orgId: string, kind: ScimKind, id: string): Promise<ScimExtra | undefined> => {
      const r = await q
        .selectFrom('scim_resources')
        .select(['external_id', 'attributes'])
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toExtra(r);
    },
    setExtra: async (orgId: string, kind: ScimKind, id: string, extra: ScimExtra): Promise<void> => {
      const values = { external_id: extra.externalId, attributes: JSON.stringify(extra.attributes) };
      await q
        .insertInto('scim_resources')
        .values({ org_id: orgId, kind, id, ...values })
        .onConflict((oc) => oc.columns(['org_id', 'kind', 'id']).doUpdateSet(values))
        .execute();
    },
    dropExtra: async (orgId: string, kind: ScimKind, id: string): Promise<void> => {
      await q
        .deleteFrom('scim_resources')
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .execute();
    },
    /** The organization's tokens, oldest first. */
    tokens: async (orgId: string): Promise<ScimToken[]> => {
      const rows = await q
        .selectFrom('scim_tokens')
        .select(TOKEN_COLUMNS)
        .where('org_id', '=', orgId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toToken);
    },
    /** One of the organization's tokens, or undefined (another organization's is undefined too). */
    token: async (orgId: string, id: string): Promise<ScimToken | undefined> => {
      const r = await q
        .selectFrom('scim_tokens')
        .select(TOKEN_COLUMNS)
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toToken(r);
    },
    /** The token whose secret hashes to `hash`, or undefined. */
    byHash: async (hash: string): Promise<ScimToken | undefined> => {
      const r = await q
        .selectFrom('scim_tokens')
        .select(TOKEN_COLUMNS)
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      return r && toToken(r);
    },
    insertToken: async (t: ScimToken, hash: string): Promise<void> => {
      await q
        .insertInto('scim_tokens')
        .values({
          id: t.id,
          org_id: t.organizationId,
          name: t.name,
          token_hash: hash,
          created_at: t.createdAt,
          last_used_at: t.lastUsedAt,
        })
        .execute();
    },
    /**
     * Records a request the token made: when, and whether (and how) it failed. Bookkeeping (see `SqlDb.bookkeeping`):
     * statistics for `plat scim status`, not worth a wait for the disk at every request.
     */
    recordRequest: (id: string, now: string, failure?: ScimFailure): Promise<void> =>
      env.sql.bookkeeping(
        q
          .updateTable('scim_tokens')
          .set((eb) => ({
            last_used_at: now,
            requests: eb('requests', '+', 1),
            ...(failure && { failures: eb('failures', '+', 1), last_failure: JSON.stringify(failure) }),
          }))
          .where('id', '=', id),
      ),
    /** The organization's SCIM activity: requests and failures of all its tokens, the last of each, what SCIM made. */
    activity: async (orgId: string) => {
      const tokens = await q
        .selectFrom('scim_tokens')
        .select(['requests', 'failures', 'last_used_at', 'last_failure'])
        .where('org_id', '=', orgId)
        .execute();
      const kinds = await q
        .selectFrom('scim_resources')
        .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
        .where('org_id', '=', orgId)
        .groupBy('kind')
        .execute();
      const count = (kind: ScimKind) => Number(kinds.find((k) => k.kind === kind)?.n ?? 0);
      const failures = tokens
        .map((t) => (t.last_failure === null ? undefined : (JSON.parse(t.last_failure) as ScimFailure)))
        .filter((f): f is ScimFailure => f !== undefined)
        .sort((a, b) => (a.at < b.at ? 1 : -1));
      return {
        tokens: tokens.length,
        requests: tokens.reduce((n, t) => n + Number(t.requests), 0),
        failures: tokens.reduce((n, t) => n + Number(t.failures), 0),
        lastRequestAt: tokens
          .map((t) => t.last_used_at)
          .reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null),
        lastFailure: failures[0] ?? null,
        users: count('User'),
        groups: count('Group'),
      };
    },
    /** Deletes one of the organization's tokens; false when there was none. */
    deleteToken: async (orgId: string, id: string): Promise<boolean> => {
      const r = await q.deleteFrom('scim_tokens').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
  };
}
