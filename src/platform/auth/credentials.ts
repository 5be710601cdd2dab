import type { Permission } from '../../contract/permissions.js';
import type { BaseCtx, Credential, Principal } from '../context.js';
import { forbidden, PlatformError } from '../errors.js';
import type { FoundApiKey, Standing } from '../store/api-keys.js';
import { type Awaitable, andThen } from '../store/sql.js';
import { hashSecret, parseApiKey, sameHash } from './api-keys.js';

/** A request header's value by name (any case), or null: what a credential is read from (http/incoming.ts). */
export type HeaderReader = (name: string) => string | null;

/** Turns a bearer access token into a credential; provided by the sign-in module. */
export type BearerVerifier = (ctx: BaseCtx, token: string) => Promise<Credential>;

function unauthenticated(message: string): PlatformError {
  return new PlatformError('authentication_failed', message);
}

/** How often a key's `lastUsedAt` is written: at most once a minute, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The credential of an API key: read with its owner's standing in one query; at once on SQLite (no promise made), later
 * on PostgreSQL. Throws `401` as authenticate says.
 */
function fromApiKey(ctx: BaseCtx, secret: string): Awaitable<Credential> {
  const parsed = parseApiKey(secret);
  if (!parsed) throw unauthenticated('invalid API key');
  const keyMode = parsed.environment === 'live' ? 'live' : 'sandbox';
  if (keyMode !== ctx.mode) {
    throw unauthenticated(
      `a ${parsed.environment} API key cannot be used with a ${ctx.mode} instance; use a ${ctx.mode === 'live' ? 'live' : 'test'} key`,
    );
  }
  const hash = hashSecret(secret);
  return andThen(ctx.stores.apiKeys.byHash(hash), (key) => keyCredential(ctx, key, hash));
}

/** The credential of the key found by its hash, or the `401` of a key that may not be used. */
function keyCredential(ctx: BaseCtx, key: FoundApiKey | undefined, hash: string): Awaitable<Credential> {
  if (!key || !sameHash(key.secretHash, hash)) throw unauthenticated('invalid API key');
  if (key.revokedAt) throw unauthenticated('API key has been revoked');
  const now = ctx.clock();
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) throw unauthenticated('API key has expired');
  const credential: Credential = {
    type: 'api_key',
    userId: key.userId,
    homeOrgId: key.organizationId,
    multiOrg: key.multiOrganization,
    grants: key.permissions ? new Set<Permission>(key.permissions) : null,
    projectIds: key.projectIds,
    keyId: key.id,
    sessionId: null,
    sessionCreatedAt: null,
    expiresAt: key.expiresAt,
  };
  // Read with the key (one query): `actIn` needs no read of its own in the key's organization. A credential is made
  // afresh for each request, so this is never older than the request.
  credential.homeStanding = key.ownerStanding ?? null;
  if (!key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
    return ctx.stores.apiKeys.touch(key.id, now.toISOString()).then(() => credential);
  }
  return credential;
}

/**
 * Reads the request's credential: `X-API-Key` or `Authorization: Bearer`, never both (docs/api.md, "Conventions").
 * Throws `401` for a missing, malformed, unknown, revoked or expired one.
 */
export function authenticate(ctx: BaseCtx, headers: HeaderReader, bearer?: BearerVerifier): Awaitable<Credential> {
  const apiKey = headers('x-api-key');
  const authorization = headers('authorization');
  if (apiKey !== null && authorization !== null) {
    throw new PlatformError('invalid_request', 'send either X-API-Key or Authorization, not both');
  }
  if (apiKey !== null) return fromApiKey(ctx, apiKey.trim());
  if (authorization !== null) {
    const m = /^Bearer +([^\s]+)$/i.exec(authorization.trim());
    if (!m) throw unauthenticated('the Authorization header must be "Bearer <access token>"');
    // What Stripe's users try first: say where a key goes rather than call it an invalid token.
    if (/^plat_(live|test)_/.test(m[1] as string)) {
      throw unauthenticated('API keys go in the X-API-Key header, not in Authorization: Bearer');
    }
    if (!bearer) throw unauthenticated('bearer tokens are not accepted by this instance');
    return bearer(ctx, m[1] as string);
  }
  throw unauthenticated('credentials required: send an X-API-Key header or Authorization: Bearer <token>');
}

/**
 * The organization a request means to act in: `X-Org-Id` when sent, else the organization in the path, else the
 * credential's own. Whether the credential may act there is `actIn`'s question.
 */
export function actingOrgId(credential: Credential, header: string | undefined, pathOrgId: unknown): string {
  return header ?? (typeof pathOrgId === 'string' ? pathOrgId : credential.homeOrgId);
}

/**
 * Whether `orgId` has cut off the session of a user token signed in to another organization: its sessions were all
 * revoked there (or the user suspended) at or after the session began, and not with this session kept.
 * A session of `orgId` itself is revoked directly and needs no cutoff.
 */
export async function sessionCutOff(ctx: BaseCtx, credential: Credential, orgId: string): Promise<boolean> {
  if (credential.sessionCreatedAt === null || orgId === credential.homeOrgId) return false;
  const cutoff = await ctx.stores.sessions.cutoff(orgId, credential.userId);
  return (
    cutoff !== undefined && cutoff.cutAt >= credential.sessionCreatedAt && cutoff.keptSessionId !== credential.sessionId
  );
}

/**
 * Whether a user token signed in to another organization without a second factor wants to act in `orgId`, whose
 * policy requires one (docs/mfa.md): the policy applies at sign-in, and a session of another organization never
 * signed in there. Sessions of `orgId` itself keep working until they end.
 */
async function secondFactorMissing(ctx: BaseCtx, credential: Credential, orgId: string): Promise<boolean> {
  if (orgId === credential.homeOrgId || credential.amr?.includes('mfa')) return false;
  return (await ctx.stores.organizations.get(orgId))?.mfa === 'required';
}

/**
 * The credential acting in `orgId`, or undefined when it may not (another organization, or not an active member).
 * Throws `401` for a user token whose session that organization has revoked (see `sessionCutOff`).
 */
export function actIn(ctx: BaseCtx, credential: Credential, orgId: string): Awaitable<Principal | undefined> {
  if (orgId !== credential.homeOrgId && !credential.multiOrg) return undefined;
  const member =
    orgId === credential.homeOrgId && credential.homeStanding !== undefined
      ? credential.homeStanding
      : ctx.stores.users.standing(orgId, credential.userId);
  return andThen(member, (m) => {
    if (!m || m.status !== 'active') return undefined;
    // Only a user's token has a session an organization can cut off.
    if (credential.sessionCreatedAt === null) return principalOf(credential, orgId, m);
    return sessionCutOff(ctx, credential, orgId).then(async (cut) => {
      if (cut) throw unauthenticated(`the session of this access token has been revoked in organization ${orgId}`);
      if (await secondFactorMissing(ctx, credential, orgId)) {
        throw forbidden(
          `organization ${orgId} requires a second factor, and this session was signed in without one: ` +
            'sign in to that organization (plat login --org)',
        );
      }
      return principalOf(credential, orgId, m);
    });
  });
}

/**
 * The credential acting in `orgId` with `role`, written out field by field: a spread of the credential would cost a
 * request more than reading the member's standing.
 */
function principalOf(c: Credential, orgId: string, standing: Standing): Principal {
  const principal: Required<Omit<Principal, 'homeStanding'>> = {
    type: c.type,
    userId: c.userId,
    homeOrgId: c.homeOrgId,
    multiOrg: c.multiOrg,
    grants: c.grants,
    projectIds: c.projectIds,
    keyId: c.keyId,
    sessionId: c.sessionId,
    sessionCreatedAt: c.sessionCreatedAt,
    expiresAt: c.expiresAt,
    amr: c.amr ?? [],
    orgId,
    role: standing.role,
    plan: standing.plan,
  };
  return principal;
}
