import { OAuthError } from '../auth/oauth-error.js';
import { parseScope } from '../auth/scopes.js';
import { hashOpaque } from '../auth/secrets.js';
import { InvalidAccessToken, verifyAccessToken } from '../auth/tokens.js';
import type { BaseCtx } from '../context.js';
import { isActive } from '../store/sessions.js';
import {
  audit,
  finishGrant,
  type Grant,
  invalidGrant,
  isActiveMember,
  newRefreshToken,
  type Outcome,
  requireClient,
  revokeForReuse,
  type TokenSet,
} from './auth.js';

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
  const outcome = await ctx.tx(async (ctx): Promise<Outcome<{ grant: Grant; access: string[] }>> => {
    const now = ctx.now();
    const stored = await ctx.stores.auth.refreshTokenByHash(hash);
    if (!stored || stored.clientId !== client.id) return invalidGrant('invalid refresh token');
    if (stored.usedAt) {
      await revokeForReuse(ctx, stored.sessionId, 'refresh token');
      return invalidGrant('the refresh token was already used; its session is revoked');
    }
    const access = requested.scopes ?? stored.scopes;
    const wider = access.filter((s) => !stored.scopes.includes(s));
    if (wider.length > 0) {
      return { error: new OAuthError('invalid_scope', `scope wider than granted: ${wider.join(' ')}`) };
    }
    const session = await ctx.stores.sessions.byId(stored.sessionId);
    if (!session || !isActive(session, now)) return invalidGrant('the session of this refresh token has ended');
    if (!(await isActiveMember(ctx, session.organizationId, session.userId)))
      return invalidGrant('the user is no longer active');
    if (!(await ctx.stores.auth.rotateRefreshToken(hash, client.id, now))) return invalidGrant('invalid refresh token');
    await ctx.stores.sessions.touch(session.id, now);
    const grant: Grant = {
      userId: session.userId,
      orgId: session.organizationId,
      sessionId: session.id,
      clientId: client.id,
      scopes: stored.scopes,
      amr: session.amr,
      refreshToken: await newRefreshToken(ctx, session.id, client.id, stored.scopes),
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
  const stored = await ctx.stores.auth.refreshTokenByHash(hashOpaque(r.token));
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
  await ctx.tx(async (ctx) => {
    const session = await ctx.stores.sessions.byId(id);
    if (!session || !(await ctx.stores.sessions.revoke(id, ctx.now()))) return;
    await audit(
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
