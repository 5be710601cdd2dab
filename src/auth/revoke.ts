import type { StoredCredential } from './credential-types.js';
import { CLI_CLIENT_ID, discover, type OAuthTransport, oauthFailure } from './oidc.js';

/**
 * Ends a signed-in session at its issuer (RFC 7009): revoking the refresh token ends the whole session, its access
 * tokens included. A credential without tokens or issuer (an API key) has nothing to revoke.
 */
export async function revokeCredential(c: StoredCredential, transport: OAuthTransport): Promise<boolean> {
  const token = c.refreshToken ?? c.accessToken;
  if (!token || !c.issuer) return false;
  const { oidc, config } = await discover(c.issuer, transport, c.clientId ?? CLI_CLIENT_ID);
  try {
    await oidc.tokenRevocation(config, token, {
      token_type_hint: c.refreshToken ? 'refresh_token' : 'access_token',
    });
    return true;
  } catch (err) {
    throw oauthFailure(oidc, err, 'revoking the session');
  }
}
