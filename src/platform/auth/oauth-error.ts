import type { OAuthErrorBody, OAuthErrorCode } from '../../contract/oauth.js';
import { jsonReply, type Reply } from '../http/reply.js';

/** An OAuth protocol error; the OAuth endpoints render it as `{ error, error_description }`. */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  readonly error: OAuthErrorCode;
  readonly status: number;

  constructor(error: OAuthErrorCode, description: string, status = error === 'invalid_client' ? 401 : 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
}

/** The headers every OAuth JSON answer carries: tokens and errors are never cached (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** The RFC 6749 §5.2 answer for `err`. */
export function oauthErrorResponse(err: OAuthError): Reply {
  const headers: Record<string, string> = { ...NO_STORE };
  if (err.status === 401) headers['WWW-Authenticate'] = 'Basic realm="plat", error="invalid_client"';
  const body: OAuthErrorBody = { error: err.error, error_description: err.message };
  return jsonReply(err.status, body, headers);
}
