import type { ApiKey, ApiKeyCreate, CreatedApiKey } from '../../contract/api-keys.js';
import type { List, PagingQuery } from '../../contract/common.js';
import type { Permission } from '../../contract/permissions.js';
import { displayParts, generateApiKey, hashSecret } from '../auth/api-keys.js';
import type { Ctx } from '../context.js';
import { forbidden, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { effectivePermissions } from './access.js';

/** `GET /organizations/{orgId}/api-keys`: active and revoked keys, newest first, offset or cursor paging. */
export async function listApiKeys(ctx: Ctx, orgId: string, q: PagingQuery): Promise<List<ApiKey>> {
  const scope = `api-keys:${orgId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.apiKeys.list(orgId, listing, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
}

/** A key of the acting organization, or `404`. */
async function loadKey(ctx: Ctx, keyId: string): Promise<ApiKey> {
  const key = await ctx.stores.apiKeys.get(ctx.principal.orgId, keyId);
  if (!key) throw notFound('API key');
  return key;
}

export function getApiKey(ctx: Ctx, keyId: string): Promise<ApiKey> {
  return loadKey(ctx, keyId);
}

/** In first-seen order, without duplicates. */
function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/**
 * The restrictions of a new key. A key never reaches further than the credential that creates it: it may narrow the
 * caller's permissions but not widen them (`403`), and when the caller's are restricted, omitted permissions inherit
 * them. Its projects may be any of the organization's: a key restricted to projects cannot create keys at all (a
 * change of the organization, http/permit.ts).
 */
async function restrictions(
  ctx: Ctx,
  input: ApiKeyCreate,
): Promise<{ permissions: Permission[] | null; projectIds: string[] | null }> {
  const p = ctx.principal;
  const held = effectivePermissions(p);
  let permissions: Permission[] | null = null;
  if (input.permissions) {
    permissions = unique(input.permissions);
    const extra = permissions.filter((perm) => !held.includes(perm));
    if (extra.length > 0) {
      throw forbidden(`a key cannot hold permissions its creator lacks: ${extra.join(', ')}`);
    }
  } else if (p.grants) {
    permissions = held;
  }
  let projectIds: string[] | null = null;
  if (input.projectIds) {
    projectIds = unique(input.projectIds);
    const unknown = await ctx.stores.apiKeys.unknownProjects(p.orgId, projectIds);
    if (unknown.length > 0) {
      throw invalidField('projectIds', `not projects of this organization: ${unknown.join(', ')}`);
    }
  }
  return { permissions, projectIds };
}

/**
 * `POST /organizations/{orgId}/api-keys`: a key of the caller's user in this organization. The secret is in this
 * response only; the store keeps its hash, and the event records no part of it.
 */
export async function createApiKey(ctx: Ctx, orgId: string, input: ApiKeyCreate): Promise<CreatedApiKey> {
  const p = ctx.principal;
  const wanted = ctx.mode === 'live' ? 'live' : 'test';
  if (input.environment !== wanted) {
    throw invalidField('environment', `this ${ctx.mode} instance issues only ${wanted} keys`);
  }
  if (input.multiOrganization && !p.multiOrg) {
    throw forbidden('only a multi-organization credential can create a multi-organization key');
  }
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined) {
    const at = new Date(input.expiresAt);
    if (at.getTime() <= ctx.clock().getTime()) throw invalidField('expiresAt', 'must be in the future');
    expiresAt = at.toISOString();
  }
  return ctx.tx(async (ctx) => {
    const { permissions, projectIds } = await restrictions(ctx, input);
    const secret = generateApiKey(input.environment);
    const key: ApiKey = {
      id: ctx.ids('apiKey'),
      name: input.name,
      organizationId: orgId,
      userId: p.userId,
      environment: input.environment,
      ...displayParts(secret),
      projectIds,
      permissions,
      multiOrganization: input.multiOrganization ?? false,
      createdAt: ctx.now(),
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    };
    await ctx.stores.apiKeys.insert({ ...key, secretHash: hashSecret(secret) });
    await ctx.emit(
      'api_key.created',
      { type: 'api_key', id: key.id },
      {
        name: key.name,
        userId: key.userId,
        environment: key.environment,
        projectIds,
        permissions,
        multiOrganization: key.multiOrganization,
        expiresAt,
      },
    );
    return { ...key, key: secret };
  });
}

/**
 * `DELETE /api-keys/{keyId}`: revokes a key at once; revoking a revoked key changes nothing. Only owners may revoke
 * an owner's key (admins cannot change an owner, docs/api-reference.md, "Roles").
 */
export async function revokeApiKey(ctx: Ctx, keyId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const key = await loadKey(ctx, keyId);
    if (key.revokedAt) return;
    const owner = await ctx.stores.users.get(ctx.principal.orgId, key.userId);
    if (owner?.role === 'owner' && ctx.principal.role !== 'owner') {
      throw forbidden("only owners can revoke an owner's API key");
    }
    await ctx.stores.apiKeys.revoke(keyId, ctx.now());
    await ctx.emit('api_key.revoked', { type: 'api_key', id: keyId }, { name: key.name, userId: key.userId });
  });
}
