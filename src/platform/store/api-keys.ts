import type { ApiKey } from '../../contract/api-keys.js';
import type { Permission } from '../../contract/permissions.js';
import type { Db } from './db.js';
import { type Listing, newestFirst, runList, type SortPosition } from './paging.js';

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

/**
 * API keys: their SQL in one place. Only a SHA-256 hash of the secret is stored, with its display prefix and last
 * four characters. (Tables: see migrations/.)
 */
export function apiKeysStore(db: Db) {
  const get = db.prepare<[string, string], Row>('SELECT * FROM api_keys WHERE org_id = ? AND id = ?');
  const byHash = db.prepare<[string], Row>('SELECT * FROM api_keys WHERE secret_hash = ?');
  const insert = db.prepare(
    `INSERT INTO api_keys (id, org_id, user_id, name, environment, prefix, last4, secret_hash, project_ids, permissions,
       multi_org, created_at, expires_at)
     VALUES (@id, @organizationId, @userId, @name, @environment, @prefix, @last4, @secretHash, @projectIds, @permissions,
       @multiOrg, @createdAt, @expiresAt)`,
  );
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const revokeForUser = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const dropProject = db.prepare(
    `UPDATE api_keys SET project_ids = (SELECT json_group_array(value) FROM json_each(api_keys.project_ids) WHERE value != @projectId)
     WHERE org_id = @orgId AND project_ids IS NOT NULL
       AND EXISTS (SELECT 1 FROM json_each(api_keys.project_ids) WHERE value = @projectId)`,
  );
  const revokeEmpty = db.prepare(
    `UPDATE api_keys SET revoked_at = @now WHERE org_id = @orgId AND revoked_at IS NULL AND project_ids IS NOT NULL
       AND json_array_length(project_ids) = 0 RETURNING id`,
  );
  const removeForUser = db.prepare('DELETE FROM api_keys WHERE org_id = ? AND user_id = ?');
  const unknownProjects = db.prepare<[string, string], { value: string }>(
    'SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM projects WHERE org_id = ?)',
  );
  return {
    get: (orgId: string, id: string) => {
      const r = get.get(orgId, id);
      return r && toApiKey(r);
    },
    /** The key whose secret hashes to `hash`, with that hash. */
    byHash: (hash: string): StoredApiKey | undefined => {
      const r = byHash.get(hash);
      return r && { ...toApiKey(r), secretHash: r.secret_hash };
    },
    insert: (k: StoredApiKey) =>
      void insert.run({
        ...k,
        projectIds: k.projectIds && JSON.stringify(k.projectIds),
        permissions: k.permissions && JSON.stringify(k.permissions),
        multiOrg: k.multiOrganization ? 1 : 0,
      }),
    touch: (id: string, now: string) => void touch.run(now, id),
    /** Marks a key revoked; false when it already was. */
    revoke: (id: string, now: string) => revoke.run(now, id).changes === 1,
    /** Revokes every active key the user owns in the organization; returns how many. */
    revokeForUser: (orgId: string, userId: string, now: string) => revokeForUser.run(now, orgId, userId).changes,
    removeForUser: (orgId: string, userId: string) => void removeForUser.run(orgId, userId),
    /** Those of `projectIds` that name no project of the organization (to validate a key's restriction). */
    unknownProjects: (orgId: string, projectIds: readonly string[]) =>
      unknownProjects.all(JSON.stringify(projectIds), orgId).map((r) => r.value),
    /** Takes a deleted project out of every key's `projectIds`; revokes keys left with none. Returns their ids. */
    dropProject: (orgId: string, projectId: string, now: string) => {
      dropProject.run({ orgId, projectId });
      return (revokeEmpty.all({ orgId, now }) as { id: string }[]).map((r) => r.id);
    },
    /** Active and revoked keys of the organization, newest first. */
    list: (orgId: string, listing: Listing, next: (p: SortPosition) => string, userId?: string) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (userId) {
        where.push('user_id = ?');
        params.push(userId);
      }
      const spec = newestFirst('api_keys', where, params);
      const { rows, pagination } = runList<Row>(db, spec, listing, next);
      return { data: rows.map(toApiKey), pagination };
    },
  };
}
