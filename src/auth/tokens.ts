import type { StoredCredential } from './credential-types.js';

/** The parts of a token endpoint response (RFC 6749 §5.1) the CLI keeps. */
export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/**
 * The credential to store for a token response: the access token, the refresh token (the previous one when the
 * server did not rotate it), the absolute expiry by the local clock, the granted scopes, the client and the issuer.
 */
export function storedTokens(
  tokens: TokenResponse,
  o: { clientId: string; issuer: string; now: Date; previous?: StoredCredential },
): StoredCredential {
  const refreshToken = tokens.refresh_token ?? o.previous?.refreshToken;
  const scopes = tokens.scope !== undefined ? tokens.scope.split(' ').filter(Boolean) : o.previous?.scopes;
  return {
    accessToken: tokens.access_token,
    ...(refreshToken && { refreshToken }),
    ...(tokens.expires_in !== undefined && {
      expiresAt: new Date(o.now.getTime() + tokens.expires_in * 1000).toISOString(),
    }),
    ...(scopes && { scopes }),
    clientId: o.clientId,
    issuer: o.issuer,
  };
}

/** Refresh this long before expiry, so that a token never runs out in the middle of a command. */
export const REFRESH_MARGIN_MS = 60_000;

/** Whether a stored token should be refreshed before use: it expires within the margin (or is past it). */
export function expiresSoon(c: StoredCredential, now: Date, marginMs = REFRESH_MARGIN_MS): boolean {
  if (!c.expiresAt) return false;
  const at = Date.parse(c.expiresAt);
  return Number.isNaN(at) || at - now.getTime() < marginMs;
}
