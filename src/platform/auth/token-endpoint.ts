import { DEVICE_CODE_GRANT, type TokenResponse } from '../../contract/oauth.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import { chargeFailedSignIn } from '../limits/sign-in.js';
import type { TokenSet } from '../operations/auth.js';
import { redeemAuthorizationCode } from '../operations/auth-code.js';
import { redeemDeviceCode } from '../operations/auth-device.js';
import { refreshGrant, revokeToken } from '../operations/auth-refresh.js';
import { NO_STORE, OAuthError, oauthErrorResponse } from './oauth-error.js';
import { bodyParams, type Params } from './request.js';

async function oauthParams(c: PageCall): Promise<Params> {
  const p = await bodyParams(c, { json: true });
  if (!p)
    throw new OAuthError('invalid_request', 'send the parameters form-encoded (application/x-www-form-urlencoded)');
  if (p.repeated) throw new OAuthError('invalid_request', `${p.repeated} is given more than once`);
  return p;
}

/** Runs an OAuth endpoint, answering its errors in the RFC 6749 §5.2 form. */
async function oauthEndpoint(c: PageCall, run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof OAuthError) {
      // A wrong code, verifier or refresh token is a failed authentication of the address, as a wrong password is.
      if (err.error === 'invalid_grant') await chargeFailedSignIn(c);
      return oauthErrorResponse(err);
    }
    throw err;
  }
}

/** The RFC 6749 §5.1 body of a token set. */
export function tokenResponse(c: PageCall, t: TokenSet): Reply {
  const body: TokenResponse = {
    access_token: t.accessToken,
    token_type: 'Bearer',
    expires_in: t.expiresIn,
    refresh_token: t.refreshToken,
    scope: t.scopes.join(' '),
  };
  return c.json(body, 200, NO_STORE);
}

/** `POST {auth_url}/token`: the authorization-code, refresh-token and device-code grants. */
export function tokenEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  return oauthEndpoint(c, async () => {
    const p = await oauthParams(c);
    const clientId = p.get('client_id');
    const grantType = p.get('grant_type');
    let tokens: TokenSet;
    if (grantType === 'authorization_code') {
      tokens = await redeemAuthorizationCode(ctx, {
        clientId,
        code: p.get('code'),
        redirectUri: p.get('redirect_uri'),
        codeVerifier: p.get('code_verifier'),
      });
    } else if (grantType === 'refresh_token') {
      tokens = await refreshGrant(ctx, { clientId, refreshToken: p.get('refresh_token'), scope: p.get('scope') });
    } else if (grantType === DEVICE_CODE_GRANT) {
      tokens = await redeemDeviceCode(ctx, { clientId, deviceCode: p.get('device_code') });
    } else if (grantType === undefined) {
      throw new OAuthError('invalid_request', 'grant_type is required');
    } else {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    }
    return tokenResponse(c, tokens);
  });
}

/** `POST {auth_url}/revoke` (RFC 7009): `200` with no body, also for a token that is unknown or already dead. */
export function revokeEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  return oauthEndpoint(c, async () => {
    const p = await oauthParams(c);
    await revokeToken(ctx, { clientId: p.get('client_id'), token: p.get('token') });
    return c.body(null, 200, NO_STORE);
  });
}
