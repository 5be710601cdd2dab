import { type RefreshResponse, refreshRequestSchema } from '../../contract/auth.js';
import type { BaseCtx } from '../context.js';
import { PlatformError } from '../errors.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import { parseBody } from '../http/validate.js';
import { refreshGrant } from '../operations/auth-refresh.js';
import { NO_STORE, OAuthError } from './oauth-error.js';

/**
 * `POST /auth/refresh`: the refresh-token grant in the API's JSON style, errors in the API's envelope — an invalid,
 * reused or revoked refresh token or an unknown client is `401 authentication_failed`.
 */
export async function refreshEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  // The API's usual JSON validation (the body was read once; the rate limit read the client from the same bytes).
  const body = parseBody(await c.req.text(), c.req.header('content-type') ?? null, refreshRequestSchema);
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
