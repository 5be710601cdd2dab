import { randomBytes } from 'node:crypto';
import { AMR_VALUES, type Amr } from '../../contract/mfa.js';
import type { BaseCtx } from '../context.js';
import { apiAudience, authUrl } from './settings.js';
import { currentSigningKey, signingKeyById, TOKEN_ALG } from './signing-keys.js';

/** jose is loaded on first use: requests with API keys never pay for it at start-up. */
const jose = () => import('jose');

/** The `typ` header of access tokens (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** What an access token says about its grant. */
export interface AccessGrant {
  userId: string;
  orgId: string;
  sessionId: string;
  clientId: string;
  scopes: readonly string[];
  /** How the session was signed in (RFC 8176). */
  amr: readonly Amr[];
}

/** The verified claims of an access token. */
export interface AccessClaims extends AccessGrant {
  expiresAt: Date;
}

/** Why a token was refused (the message is safe to show: it never repeats the token). */
export class InvalidAccessToken extends Error {
  override readonly name = 'InvalidAccessToken';
}

/** Signs an RFC 9068 access token: ES256, `kid`, `typ: at+jwt`, lifetime `ctx.auth.accessTokenTtl`. */
export async function issueAccessToken(
  ctx: BaseCtx,
  grant: AccessGrant,
): Promise<{ token: string; expiresIn: number }> {
  const key = await currentSigningKey(ctx);
  const iat = Math.floor(ctx.clock().getTime() / 1000);
  const expiresIn = ctx.auth.accessTokenTtl;
  const { SignJWT } = await jose();
  const token = await new SignJWT({
    org: grant.orgId,
    scopes: [...grant.scopes],
    scope: grant.scopes.join(' '),
    sid: grant.sessionId,
    client_id: grant.clientId,
    amr: [...grant.amr],
  })
    .setProtectedHeader({ alg: TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: key.kid })
    .setIssuer(authUrl(ctx))
    .setAudience(apiAudience(ctx))
    .setSubject(grant.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresIn)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(key.privateKey);
  return { token, expiresIn };
}

function claimString(payload: Record<string, unknown>, name: string): string {
  const v = payload[name];
  if (typeof v !== 'string' || v === '') throw new InvalidAccessToken(`the access token has no ${name} claim`);
  return v;
}

/**
 * Verifies signature (ES256 only, key by `kid`), `typ`, `iss`, `aud` and `exp` against the platform's clock, and
 * returns the grant. Whether the session is still active is the caller's check. Throws `InvalidAccessToken`.
 */
export async function verifyAccessToken(ctx: BaseCtx, token: string): Promise<AccessClaims> {
  const { errors, jwtVerify } = await jose();
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid === undefined ? undefined : await signingKeyById(ctx, header.kid);
        if (!key) throw new InvalidAccessToken('the access token was not signed by this instance');
        return key.publicKey;
      },
      {
        algorithms: [TOKEN_ALG],
        typ: ACCESS_TOKEN_TYP,
        issuer: authUrl(ctx),
        audience: apiAudience(ctx),
        currentDate: ctx.clock(),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      },
    );
    const scopes = payload.scopes;
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
      throw new InvalidAccessToken('the access token has no scopes claim');
    }
    return {
      userId: claimString(payload, 'sub'),
      orgId: claimString(payload, 'org'),
      sessionId: claimString(payload, 'sid'),
      clientId: claimString(payload, 'client_id'),
      scopes,
      amr: Array.isArray(payload.amr) ? payload.amr.filter((v): v is Amr => AMR_VALUES.includes(v)) : [],
      expiresAt: new Date((payload.exp as number) * 1000),
    };
  } catch (err) {
    if (err instanceof InvalidAccessToken) throw err;
    if (err instanceof errors.JWTExpired) throw new InvalidAccessToken('the access token has expired');
    if (err instanceof errors.JOSEError) throw new InvalidAccessToken('invalid access token');
    throw err;
  }
}
