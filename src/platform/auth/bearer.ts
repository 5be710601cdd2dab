import { PERMISSIONS, type Permission } from '../../contract/permissions.js';
import type { BaseCtx, Credential } from '../context.js';
import { PlatformError } from '../errors.js';
import { isActive } from '../store/sessions.js';
import type { BearerVerifier } from './credentials.js';
import { InvalidAccessToken, verifyAccessToken } from './tokens.js';

/** `lastActive` is written at most once a minute, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

function refuse(message: string): PlatformError {
  return new PlatformError('authentication_failed', message);
}

/**
 * The platform's access-token verifier: a valid token (see `verifyAccessToken`) of a session that is still active
 * acts as its user — in its `org`, or with `X-Org-Id` in the user's other organizations (not for a session signed in
 * through single sign-on) — with its scopes as grants.
 */
export const verifyBearer: BearerVerifier = async (ctx: BaseCtx, token: string): Promise<Credential> => {
  let claims: Awaited<ReturnType<typeof verifyAccessToken>>;
  try {
    claims = await verifyAccessToken(ctx, token);
  } catch (err) {
    if (err instanceof InvalidAccessToken) throw refuse(err.message);
    throw err;
  }
  const session = await ctx.stores.sessions.byId(claims.sessionId);
  const now = ctx.clock();
  if (!session || session.userId !== claims.userId || session.organizationId !== claims.orgId) {
    throw refuse('invalid access token');
  }
  if (!isActive(session, now.toISOString())) throw refuse('the session of this access token has ended');
  if (now.getTime() - Date.parse(session.lastActive) >= TOUCH_INTERVAL_MS) {
    await ctx.stores.sessions.touch(session.id, now.toISOString());
  }
  const known = new Set<string>(PERMISSIONS);
  return {
    type: 'user',
    userId: claims.userId,
    homeOrgId: claims.orgId,
    // A session an organization's identity provider signed in acts in that organization only: the provider vouches
    // for the person there, not in the other organizations their account belongs to.
    multiOrg: session.method !== 'saml' && session.method !== 'oidc',
    grants: new Set(claims.scopes.filter((s): s is Permission => known.has(s))),
    projectIds: null,
    keyId: null,
    sessionId: session.id,
    sessionCreatedAt: session.createdAt,
    expiresAt: claims.expiresAt.toISOString(),
    amr: session.amr,
  };
};
