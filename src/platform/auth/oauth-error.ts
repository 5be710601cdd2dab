import type { OAuthErrorBody, OAuthErrorCode } from '../../contract/oauth.js';

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

/** The RFC 6749 §5.2 response for `err`. */
export function oauthErrorResponse(err: OAuthError): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NO_STORE };
  if (err.status === 401) headers['WWW-Authenticate'] = 'Basic realm="plat", error="invalid_client"';
  const body: OAuthErrorBody = { error: err.error, error_description: err.message };
  return new Response(JSON.stringify(body), {
    status: err.status,
    headers,
  });
}
