/** The error codes of RFC 6749 §4.1.2.1 / §5.2, RFC 7009 and RFC 8628 §3.5 this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

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
  return new Response(JSON.stringify({ error: err.error, error_description: err.message }), {
    status: err.status,
    headers,
  });
}
