import type { Context } from 'hono';
import { type RefreshResponse, refreshRequestSchema } from '../../contract/auth.js';
import type { BaseCtx } from '../context.js';
import { PlatformError } from '../errors.js';
import { parseBody } from '../http/validate.js';
import { refreshGrant } from '../operations/auth-refresh.js';
import { NO_STORE, OAuthError } from './oauth-error.js';

/**
 * `POST /auth/refresh`: the refresh-token grant in the API's JSON style, errors in the API's envelope — an invalid,
 * reused or revoked refresh token or an unknown client is `401 authentication_failed`.
 */
export async function refreshEndpoint(ctx: BaseCtx, c: Context): Promise<Response> {
  // Through Hono's cached body (a middleware may have read it), then the API's usual JSON validation.
  const raw = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: await c.req.text() });
  const body = await parseBody(raw, refreshRequestSchema);
  try {
    const t = await refreshGrant(ctx, { clientId: body.clientId, refreshToken: body.refreshToken });
    const reply: RefreshResponse = {
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      tokenType: 'Bearer',
      expiresIn: t.expiresIn,
      scope: t.scopes.join(' '),
    };
    return c.json(reply, 200, NO_STORE);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    if (err.error === 'invalid_request') throw new PlatformError('invalid_request', err.message);
    throw new PlatformError('authentication_failed', err.error === 'invalid_client' ? 'unknown clientId' : err.message);
  }
}
