import type { Whoami } from '../../contract/auth.js';
import type { Permission } from '../../contract/permissions.js';
import { OAuthError } from '../auth/oauth-error.js';
import { isCodeVerifier, s256 } from '../auth/pkce.js';
import { grantScopes, heldScopes, parseScope } from '../auth/scopes.js';
import { hashOpaque, newOpaqueSecret } from '../auth/secrets.js';
import type { OAuthClient } from '../auth/settings.js';
import { InvalidAccessToken, issueAccessToken, verifyAccessToken } from '../auth/tokens.js';
import type { BaseCtx, Ctx } from '../context.js';
import { isActive } from '../store/sessions.js';
import { effectivePermissions } from './access.js';

/** What a successful grant answers. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

/** What a transaction found: a grant to finish outside it (signing is async), or an error to throw after commit. */
type Outcome<T> = { ok: T } | { error: OAuthError };

/** A grant decided inside a transaction, before its access token is signed. */
export interface Grant {
  userId: string;
  orgId: string;
  sessionId: string;
  clientId: string;
  scopes: string[];
  refreshToken: string;
}

const CODE_TTL_MS = 60_000;
/** Used or expired codes are kept a day, so that a late second use is still recognised and revokes. */
const KEEP_EXPIRED_MS = 24 * 3600_000;

/** The registered client `clientId`, or `invalid_client`. */
export function requireClient(ctx: BaseCtx, clientId: string | undefined): OAuthClient {
  const client = clientId ? ctx.auth.clients.get(clientId) : undefined;
  if (!client) throw new OAuthError('invalid_client', clientId ? 'unknown client_id' : 'client_id is required');
  return client;
}

/** Records an audit event of the organization outside an authenticated request. */
export function audit(
  ctx: BaseCtx,
  orgId: string,
  actor: { type: 'user' | 'system'; id: string },
  type: string,
  target: { type: string; id: string },
  data: Record<string, unknown> = {},
): void {
  ctx.stores.events.insert({
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

function isActiveMember(ctx: BaseCtx, orgId: string, userId: string): boolean {
  return ctx.stores.users.get(orgId, userId)?.status === 'active';
}

/** Revokes a session because a code or refresh token was used twice (RFC 9700 §4.14.2). In the caller's transaction. */
export function revokeForReuse(ctx: BaseCtx, sessionId: string | null, what: string): void {
  if (!sessionId) return;
  const session = ctx.stores.sessions.byId(sessionId);
  if (!session || !ctx.stores.sessions.revoke(sessionId, ctx.now())) return;
  audit(
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
export function recordSignIn(
  ctx: BaseCtx,
  s: { userId: string; orgId: string; clientId: string; requested: Permission[] | null; method: string },
): Permission[] {
  const scopes = grantScopes(s.requested, heldScopes(ctx, s.userId));
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'the user holds none of the requested scopes');
  ctx.stores.users.recordLogin(s.orgId, s.userId, ctx.now());
  audit(
    ctx,
    s.orgId,
    { type: 'user', id: s.userId },
    'user.signed_in',
    { type: 'user', id: s.userId },
    {
      clientId: s.clientId,
      method: s.method,
    },
  );
  return scopes;
}

/** After a password sign-in: a single-use authorization code (60 s) bound to client, redirect URI and challenge. */
export function issueAuthorizationCode(
  ctx: BaseCtx,
  r: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    requested: Permission[] | null;
    userId: string;
    orgId: string;
    ipAddress: string | null;
    userAgent: string | null;
  },
): string {
  return ctx.tx(() => {
    const scopes = recordSignIn(ctx, { ...r, method: 'password' });
    const now = ctx.clock().getTime();
    ctx.stores.auth.purgeExpired(new Date(now - KEEP_EXPIRED_MS).toISOString());
    const { secret, hash } = newOpaqueSecret();
    ctx.stores.auth.insertCode({
      codeHash: hash,
      clientId: r.clientId,
      redirectUri: r.redirectUri,
      codeChallenge: r.codeChallenge,
      scopes,
      userId: r.userId,
      orgId: r.orgId,
      ipAddress: r.ipAddress,
      userAgent: r.userAgent,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + CODE_TTL_MS).toISOString(),
    });
    return secret;
  });
}

/** Opens the session of a sign-in and its first refresh token. In the caller's transaction. */
export function startSession(
  ctx: BaseCtx,
  s: {
    userId: string;
    orgId: string;
    clientId: string;
    scopes: string[];
    ipAddress: string | null;
    userAgent: string | null;
  },
): Grant {
  const sessionId = ctx.ids('session');
  const now = ctx.clock().getTime();
  ctx.stores.sessions.insert({
    id: sessionId,
    userId: s.userId,
    organizationId: s.orgId,
    clientId: s.clientId,
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ctx.auth.sessionTtl * 1000).toISOString(),
  });
  const refreshToken = newRefreshToken(ctx, sessionId, s.clientId, s.scopes);
  return { userId: s.userId, orgId: s.orgId, sessionId, clientId: s.clientId, scopes: s.scopes, refreshToken };
}

function newRefreshToken(ctx: BaseCtx, sessionId: string, clientId: string, scopes: string[]): string {
  const { secret, hash } = newOpaqueSecret();
  ctx.stores.auth.insertRefreshToken({ tokenHash: hash, sessionId, clientId, scopes, now: ctx.now() });
  return secret;
}

/** Signs the access token of a decided grant. */
export async function finishGrant(ctx: BaseCtx, g: Grant, accessScopes = g.scopes): Promise<TokenSet> {
  const { token, expiresIn } = await issueAccessToken(ctx, { ...g, scopes: accessScopes });
  return { accessToken: token, refreshToken: g.refreshToken, expiresIn, scopes: accessScopes };
}

function invalidGrant(message: string): { error: OAuthError } {
  return { error: new OAuthError('invalid_grant', message) };
}

/** Why `redeemCode` found nothing to redeem; a second use revokes what the first issued. */
function codeFailure(ctx: BaseCtx, hash: string, clientId: string, redirectUri: string): { error: OAuthError } {
  const code = ctx.stores.auth.codeByHash(hash);
  if (!code) return invalidGrant('invalid authorization code');
  if (code.usedAt) {
    revokeForReuse(ctx, code.sessionId, 'authorization code');
    return invalidGrant('the authorization code was already used; the tokens issued for it are revoked');
  }
  if (code.expiresAt <= ctx.now()) return invalidGrant('the authorization code has expired');
  if (code.clientId !== clientId) return invalidGrant('the authorization code was issued to another client');
  if (code.redirectUri !== redirectUri) return invalidGrant('redirect_uri does not match the authorization request');
  return invalidGrant('code_verifier does not match the code_challenge');
}

/** `grant_type=authorization_code`: PKCE S256 only; one compare-and-set redeems the code. */
export async function redeemAuthorizationCode(
  ctx: BaseCtx,
  r: { clientId?: string; code?: string; redirectUri?: string; codeVerifier?: string },
): Promise<TokenSet> {
  const client = requireClient(ctx, r.clientId);
  if (!r.code) throw new OAuthError('invalid_request', 'code is required');
  if (!r.redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required');
  if (!r.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE with S256)');
  if (!isCodeVerifier(r.codeVerifier)) {
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  }
  const { code, redirectUri, codeVerifier } = r;
  const hash = hashOpaque(code);
  const outcome = ctx.tx((): Outcome<Grant> => {
    const bind = { clientId: client.id, redirectUri, challenge: s256(codeVerifier) };
    const grant = ctx.stores.auth.redeemCode(hash, bind, ctx.now());
    if (!grant) return codeFailure(ctx, hash, client.id, redirectUri);
    if (!isActiveMember(ctx, grant.orgId, grant.userId)) return invalidGrant('the user is no longer active');
    const started = startSession(ctx, { ...grant, clientId: client.id });
    ctx.stores.auth.setCodeSession(hash, started.sessionId);
    return { ok: started };
  });
  if ('error' in outcome) throw outcome.error;
  return finishGrant(ctx, outcome.ok);
}

/**
 * `grant_type=refresh_token`: rotates the token (compare-and-set), never widening its scope; a rotated token used
 * again revokes its whole session (RFC 9700 §4.14.2). The session must still be active and the user a member.
 */
export async function refreshGrant(
  ctx: BaseCtx,
  r: { clientId?: string; refreshToken?: string; scope?: string },
): Promise<TokenSet> {
  const client = requireClient(ctx, r.clientId);
  if (!r.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
  const requested = parseScope(r.scope);
  if (!requested.ok) throw new OAuthError('invalid_scope', `unknown scope: ${requested.unknown.join(' ')}`);
  const hash = hashOpaque(r.refreshToken);
  const outcome = ctx.tx((): Outcome<{ grant: Grant; access: string[] }> => {
    const now = ctx.now();
    const stored = ctx.stores.auth.refreshTokenByHash(hash);
    if (!stored || stored.clientId !== client.id) return invalidGrant('invalid refresh token');
    if (stored.usedAt) {
      revokeForReuse(ctx, stored.sessionId, 'refresh token');
      return invalidGrant('the refresh token was already used; its session is revoked');
    }
    const access = requested.scopes ?? stored.scopes;
    const wider = access.filter((s) => !stored.scopes.includes(s));
    if (wider.length > 0) {
      return { error: new OAuthError('invalid_scope', `scope wider than granted: ${wider.join(' ')}`) };
    }
    const session = ctx.stores.sessions.byId(stored.sessionId);
    if (!session || !isActive(session, now)) return invalidGrant('the session of this refresh token has ended');
    if (!isActiveMember(ctx, session.organizationId, session.userId))
      return invalidGrant('the user is no longer active');
    if (!ctx.stores.auth.rotateRefreshToken(hash, client.id, now)) return invalidGrant('invalid refresh token');
    ctx.stores.sessions.touch(session.id, now);
    const grant: Grant = {
      userId: session.userId,
      orgId: session.organizationId,
      sessionId: session.id,
      clientId: client.id,
      scopes: stored.scopes,
      refreshToken: newRefreshToken(ctx, session.id, client.id, stored.scopes),
    };
    return { ok: { grant, access } };
  });
  if ('error' in outcome) throw outcome.error;
  return finishGrant(ctx, outcome.ok.grant, outcome.ok.access);
}

/**
 * RFC 7009: revokes the session behind a refresh token or an access token of this client (which ends every token of
 * that sign-in). An unknown, expired or malformed token is not an error.
 */
export async function revokeToken(ctx: BaseCtx, r: { clientId?: string; token?: string }): Promise<void> {
  const client = requireClient(ctx, r.clientId);
  if (!r.token) throw new OAuthError('invalid_request', 'token is required');
  let sessionId: string | undefined;
  let owner: string | undefined;
  const stored = ctx.stores.auth.refreshTokenByHash(hashOpaque(r.token));
  if (stored) {
    sessionId = stored.sessionId;
    owner = stored.clientId;
  } else if (r.token.split('.').length === 3) {
    try {
      const claims = await verifyAccessToken(ctx, r.token);
      sessionId = claims.sessionId;
      owner = claims.clientId;
    } catch (err) {
      if (!(err instanceof InvalidAccessToken)) throw err;
    }
  }
  if (!sessionId) return;
  if (owner !== client.id) throw new OAuthError('unauthorized_client', 'the token was issued to another client');
  const id = sessionId;
  ctx.tx(() => {
    const session = ctx.stores.sessions.byId(id);
    if (!session || !ctx.stores.sessions.revoke(id, ctx.now())) return;
    audit(
      ctx,
      session.organizationId,
      { type: 'user', id: session.userId },
      'session.revoked',
      {
        type: 'session',
        id,
      },
      { userId: session.userId, reason: 'token revoked' },
    );
  });
}

/** `GET /auth/whoami`: who the credential acts as, in which organization, with which scopes. */
export function whoami(ctx: Ctx): Whoami {
  const p = ctx.principal;
  const user = ctx.stores.users.get(p.orgId, p.userId);
  const organization = ctx.stores.organizations.get(p.orgId);
  if (!user || !organization) throw new Error('the principal has no membership'); // app.ts checked it
  return {
    type: p.type,
    user,
    apiKey: p.keyId ? (ctx.stores.apiKeys.get(p.homeOrgId, p.keyId) ?? null) : null,
    organization,
    scopes: effectivePermissions(p),
    sessionId: p.sessionId,
    expiresAt: p.expiresAt,
  };
}
