import type { Amr } from '../../contract/mfa.js';
import type { Permission } from '../../contract/permissions.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { methodAmr } from '../auth/amr.js';
import { OAuthError } from '../auth/oauth-error.js';
import { isCodeVerifier, s256 } from '../auth/pkce.js';
import { hashOpaque, newOpaqueSecret } from '../auth/secrets.js';
import type { BaseCtx } from '../context.js';
import {
  finishGrant,
  type Grant,
  invalidGrant,
  isActiveMember,
  type Outcome,
  recordSignIn,
  requireClient,
  revokeForReuse,
  startSession,
  type TokenSet,
} from './auth.js';

const CODE_TTL_MS = 60_000;
/** Used or expired codes are kept a day, so that a late second use is still recognised and revokes. */
const KEEP_EXPIRED_MS = 24 * 3600_000;

/**
 * After a sign-in (by password, or through the organization's identity provider): a single-use authorization code
 * (60 s) bound to client, redirect URI and challenge, carrying how the user signed in to the session it opens.
 */
export async function issueAuthorizationCode(
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
    method?: SignInMethod;
    /** With what (RFC 8176); by default, what `method` says alone. */
    amr?: Amr[];
  },
): Promise<string> {
  const method = r.method ?? 'password';
  const amr = r.amr ?? methodAmr(method);
  return ctx.tx(async (ctx) => {
    const scopes = await recordSignIn(ctx, { ...r, method, amr });
    const now = ctx.clock().getTime();
    await ctx.stores.auth.purgeExpired(new Date(now - KEEP_EXPIRED_MS).toISOString());
    const { secret, hash } = newOpaqueSecret();
    await ctx.stores.auth.insertCode({
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
      method,
      amr,
    });
    return secret;
  });
}

/** Why `redeemCode` found nothing to redeem; a second use revokes what the first issued. */
async function codeFailure(
  ctx: BaseCtx,
  hash: string,
  clientId: string,
  redirectUri: string,
): Promise<{ error: OAuthError }> {
  const code = await ctx.stores.auth.codeByHash(hash);
  if (!code) return invalidGrant('invalid authorization code');
  if (code.usedAt) {
    await revokeForReuse(ctx, code.sessionId, 'authorization code');
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
  const outcome = await ctx.tx(async (ctx): Promise<Outcome<Grant>> => {
    const bind = { clientId: client.id, redirectUri, challenge: s256(codeVerifier) };
    const grant = await ctx.stores.auth.redeemCode(hash, bind, ctx.now());
    if (!grant) return codeFailure(ctx, hash, client.id, redirectUri);
    if (!(await isActiveMember(ctx, grant.orgId, grant.userId))) return invalidGrant('the user is no longer active');
    const started = await startSession(ctx, { ...grant, clientId: client.id });
    await ctx.stores.auth.setCodeSession(hash, started.sessionId);
    return { ok: started };
  });
  if ('error' in outcome) throw outcome.error;
  return finishGrant(ctx, outcome.ok);
}
