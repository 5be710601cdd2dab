import type { Whoami } from '../../contract/auth.js';
import type { Amr } from '../../contract/mfa.js';
import type { Permission } from '../../contract/permissions.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { OAuthError } from '../auth/oauth-error.js';
import { grantScopes, heldScopes } from '../auth/scopes.js';
import { newOpaqueSecret } from '../auth/secrets.js';
import type { OAuthClient } from '../auth/settings.js';
import { issueAccessToken } from '../auth/tokens.js';
import type { BaseCtx, Ctx } from '../context.js';
import { effectivePermissions } from './access.js';

/** What a successful grant answers. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

/**
 * What a transaction found: a grant to finish after it (its token is signed without holding the write lock), or an
 * error to throw after commit (thrown inside, it would undo what the transaction wrote, such as a revocation).
 */
export type Outcome<T> = { ok: T } | { error: OAuthError };

/** A grant decided inside a transaction, before its access token is signed. */
export interface Grant {
  userId: string;
  orgId: string;
  sessionId: string;
  clientId: string;
  scopes: string[];
  /** How the session was signed in (RFC 8176), carried into each access token. */
  amr: Amr[];
  refreshToken: string;
}

/** The registered client `clientId`, or `invalid_client`. */
export function requireClient(ctx: BaseCtx, clientId: string | undefined): OAuthClient {
  const client = clientId ? ctx.auth.clients.get(clientId) : undefined;
  if (!client) throw new OAuthError('invalid_client', clientId ? 'unknown client_id' : 'client_id is required');
  return client;
}

/** Records an audit event of the organization outside an authenticated request. */
export async function audit(
  ctx: BaseCtx,
  orgId: string,
  actor: { type: 'user' | 'system'; id: string },
  type: string,
  target: { type: string; id: string },
  data: Record<string, unknown> = {},
): Promise<void> {
  await ctx.stores.events.insert({
    id: ctx.ids('event'),
    type,
    organizationId: orgId,
    actor,
    target,
    requestId: ctx.requestId,
    createdAt: ctx.now(),
    data,
  });
}

/** Whether the user is an active member of the organization. */
export async function isActiveMember(ctx: BaseCtx, orgId: string, userId: string): Promise<boolean> {
  return (await ctx.stores.users.get(orgId, userId))?.status === 'active';
}

/** Revokes a session because a code or refresh token was used twice (RFC 9700 §4.14.2). In the caller's transaction. */
export async function revokeForReuse(ctx: BaseCtx, sessionId: string | null, what: string): Promise<void> {
  if (!sessionId) return;
  const session = await ctx.stores.sessions.byId(sessionId);
  if (!session || !(await ctx.stores.sessions.revoke(sessionId, ctx.now()))) return;
  await audit(
    ctx,
    session.organizationId,
    { type: 'system', id: 'auth' },
    'session.revoked',
    {
      type: 'session',
      id: sessionId,
    },
    { userId: session.userId, reason: `${what} reused` },
  );
}

/**
 * What a sign-in grants, in one transaction: the scopes (those asked for that the user holds; `invalid_scope` when
 * none), `lastLoginAt`, an audit event. Returns the scopes; the caller stores the code or device approval.
 */
export async function recordSignIn(
  ctx: BaseCtx,
  s: {
    userId: string;
    orgId: string;
    clientId: string;
    requested: Permission[] | null;
    method: SignInMethod;
    amr: Amr[];
  },
): Promise<Permission[]> {
  const scopes = grantScopes(s.requested, await heldScopes(ctx, s.userId));
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'the user holds none of the requested scopes');
  await ctx.stores.users.recordLogin(s.orgId, s.userId, ctx.now());
  await audit(
    ctx,
    s.orgId,
    { type: 'user', id: s.userId },
    'user.signed_in',
    { type: 'user', id: s.userId },
    {
      clientId: s.clientId,
      method: s.method,
      amr: s.amr,
    },
  );
  return scopes;
}

/** Opens the session of a sign-in and its first refresh token. In the caller's transaction. */
export async function startSession(
  ctx: BaseCtx,
  s: {
    userId: string;
    orgId: string;
    clientId: string;
    scopes: string[];
    ipAddress: string | null;
    userAgent: string | null;
    method: SignInMethod;
    amr: Amr[];
  },
): Promise<Grant> {
  const sessionId = ctx.ids('session');
  const now = ctx.clock().getTime();
  await ctx.stores.sessions.insert({
    id: sessionId,
    userId: s.userId,
    organizationId: s.orgId,
    clientId: s.clientId,
    method: s.method,
    amr: s.amr,
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ctx.auth.sessionTtl * 1000).toISOString(),
  });
  const refreshToken = await newRefreshToken(ctx, sessionId, s.clientId, s.scopes);
  return {
    userId: s.userId,
    orgId: s.orgId,
    sessionId,
    clientId: s.clientId,
    scopes: s.scopes,
    amr: s.amr,
    refreshToken,
  };
}

/** A new refresh token of the session (stored hashed). In the caller's transaction. */
export async function newRefreshToken(
  ctx: BaseCtx,
  sessionId: string,
  clientId: string,
  scopes: string[],
): Promise<string> {
  const { secret, hash } = newOpaqueSecret();
  await ctx.stores.auth.insertRefreshToken({ tokenHash: hash, sessionId, clientId, scopes, now: ctx.now() });
  return secret;
}

/** Signs the access token of a decided grant. */
export async function finishGrant(ctx: BaseCtx, g: Grant, accessScopes = g.scopes): Promise<TokenSet> {
  const { token, expiresIn } = await issueAccessToken(ctx, { ...g, scopes: accessScopes });
  return { accessToken: token, refreshToken: g.refreshToken, expiresIn, scopes: accessScopes };
}

/** `GET /auth/whoami`: who the credential acts as, in which organization, with which scopes. */
export async function whoami(ctx: Ctx): Promise<Whoami> {
  const p = ctx.principal;
  const user = await ctx.stores.users.get(p.orgId, p.userId);
  const organization = await ctx.stores.organizations.get(p.orgId);
  // The pipeline checked the membership; a SCIM token never reaches this endpoint.
  if (!user || !organization || p.type === 'scim_token') throw new Error('the principal has no membership');
  return {
    type: p.type,
    user,
    apiKey: p.keyId ? ((await ctx.stores.apiKeys.get(p.homeOrgId, p.keyId)) ?? null) : null,
    organization,
    scopes: effectivePermissions(p),
    sessionId: p.sessionId,
    amr: p.type === 'user' ? [...(p.amr ?? [])] : null,
    expiresAt: p.expiresAt,
  };
}

/** An `invalid_grant` outcome. */
export function invalidGrant(message: string): { error: OAuthError } {
  return { error: new OAuthError('invalid_grant', message) };
}
