import type { ApiKey } from '../../contract/api-keys.js';
import type { Plan } from '../../contract/organizations.js';
import type { OrgRole, Permission } from '../../contract/permissions.js';
import type { User, UserStatus } from '../../contract/users.js';
import { jsonArrayWithout, jsonStrings } from './dialects.js';
import { type Listing, newestFirst, runList, type SortPosition, withParams } from './paging.js';
import { type Awaitable, andThen, pointRead, type Q, type StoreEnv } from './sql.js';

type Row = {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  environment: ApiKey['environment'];
  prefix: string;
  last4: string;
  secret_hash: string;
  project_ids: string | null;
  permissions: string | null;
  multi_org: number;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
};

function toApiKey(r: Row): ApiKey {
  return {
    id: r.id,
    name: r.name,
    organizationId: r.org_id,
    userId: r.user_id,
    environment: r.environment,
    prefix: r.prefix,
    last4: r.last4,
    projectIds: r.project_ids === null ? null : (JSON.parse(r.project_ids) as string[]),
    permissions: r.permissions === null ? null : (JSON.parse(r.permissions) as Permission[]),
    multiOrganization: r.multi_org === 1,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

/** A stored key with its hash, for authentication. */
export type StoredApiKey = ApiKey & { secretHash: string };

/** A key found by its hash, with its owner's role and status in its organization (undefined: not a member there). */
/** A member's role and status in an organization, and that organization's plan: what a request acts with. */
export type Standing = Pick<User, 'role' | 'status'> & { plan: Plan };

export type FoundApiKey = StoredApiKey & { ownerStanding: Standing | undefined };

/**
 * The key whose secret hashes to `hash`, with its owner's membership of the key's organization and that
 * organization's plan: every request with an API key reads all three (the key, whether its owner may still act, the
 * rate limit of the plan), so they are one query.
 */
const byHash = pointRead((q, hash: string) =>
  q
    .selectFrom('api_keys as k')
    .leftJoin('org_users as m', (join) => join.onRef('m.org_id', '=', 'k.org_id').onRef('m.user_id', '=', 'k.user_id'))
    .leftJoin('organizations as o', 'o.id', 'k.org_id')
    .selectAll('k')
    .select(['m.role as owner_role', 'm.status as owner_status', 'o.plan as org_plan'])
    .where('k.secret_hash', '=', hash)
    .$castTo<Row & { owner_role: OrgRole | null; owner_status: UserStatus | null; org_plan: Plan | null }>(),
);

/**
 * API keys: their SQL in one place. Only a SHA-256 hash of the secret is stored, with its display prefix and last
 * four characters. (Tables: see migrations/.)
 */
export function apiKeysStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  return {
    get: async (orgId: string, id: string) => {
      const r = await q
        .selectFrom('api_keys')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .$castTo<Row>()
        .executeTakeFirst();
      return r && toApiKey(r);
    },
    /** The key whose secret hashes to `hash`, with that hash and its owner's standing. */
    byHash: (hash: string): Awaitable<FoundApiKey | undefined> =>
      andThen(byHash(q, hash), (r) => {
        if (!r) return undefined;
        // Completed in place: spreading the key into a new object would cost V8 more than the read.
        const key = toApiKey(r) as FoundApiKey;
        key.secretHash = r.secret_hash;
        const { owner_role: role, owner_status: status, org_plan: plan } = r;
        key.ownerStanding = role !== null && status !== null && plan !== null ? { role, status, plan } : undefined;
        return key;
      }),
    insert: async (k: StoredApiKey): Promise<void> => {
      await q
        .insertInto('api_keys')
        .values({
          id: k.id,
          org_id: k.organizationId,
          user_id: k.userId,
          name: k.name,
          environment: k.environment,
          prefix: k.prefix,
          last4: k.last4,
          secret_hash: k.secretHash,
          project_ids: k.projectIds && JSON.stringify(k.projectIds),
          permissions: k.permissions && JSON.stringify(k.permissions),
          multi_org: k.multiOrganization ? 1 : 0,
          created_at: k.createdAt,
          expires_at: k.expiresAt,
        })
        .execute();
    },
    /** Records the key's use at `now` (bookkeeping: see `SqlDb.bookkeeping`). */
    touch: (id: string, now: string): Promise<void> =>
      env.sql.bookkeeping(q.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id)),
    /** Marks a key revoked; false when it already was. */
    revoke: async (id: string, now: string) => {
      const r = await q
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** Revokes every active key the user owns in the organization; returns how many. */
    revokeForUser: async (orgId: string, userId: string, now: string) => {
      const r = await q
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    removeForUser: async (orgId: string, userId: string): Promise<void> => {
      await q.deleteFrom('api_keys').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },
    /** Those of `projectIds` that name no project of the organization (to validate a key's restriction). */
    unknownProjects: async (orgId: string, projectIds: readonly string[]) => {
      const { rows } = await withParams<{ value: string }>(
        `SELECT value FROM ${jsonStrings(dialect, '?')} WHERE value NOT IN (SELECT id FROM projects WHERE org_id = ?)`,
        [JSON.stringify(projectIds), orgId],
      ).execute(q);
      return rows.map((r) => r.value);
    },
    /** Takes a deleted project out of every key's `projectIds`; revokes keys left with none. Returns their ids. */
    dropProject: async (orgId: string, projectId: string, now: string) => {
      await withParams(
        `UPDATE api_keys SET project_ids = ${jsonArrayWithout(dialect, 'api_keys.project_ids')}
        WHERE org_id = ? AND project_ids IS NOT NULL
          AND EXISTS (SELECT 1 FROM ${jsonStrings(dialect, 'api_keys.project_ids')} WHERE value = ?)`,
        [projectId, orgId, projectId],
      ).execute(q);
      // Both backends write an empty array as `[]` (store/dialects.ts).
      const revoked = await q
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('org_id', '=', orgId)
        .where('revoked_at', 'is', null)
        .where('project_ids', '=', '[]')
        .returning('id')
        .execute();
      return revoked.map((r) => r.id);
    },
    /** Active and revoked keys of the organization, newest first. */
    list: async (orgId: string, listing: Listing, next: (p: SortPosition) => string, userId?: string) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (userId) {
        where.push('user_id = ?');
        params.push(userId);
      }
      const spec = newestFirst('api_keys', where, params);
      const { rows, pagination } = await runList<Row>(q, spec, listing, next);
      return { data: rows.map(toApiKey), pagination };
    },
  };
}
