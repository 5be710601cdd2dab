import { checkFetchable, FetchError, fetchDocument } from './fetch.js';

/** The fields of a discovery document the relying party uses, and keeps (the rest is not stored). */
const KEPT = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'userinfo_endpoint',
  'end_session_endpoint',
  'response_types_supported',
  'code_challenge_methods_supported',
  'id_token_signing_alg_values_supported',
  'token_endpoint_auth_methods_supported',
  'scopes_supported',
  'claims_supported',
  // RFC 9207: a provider that promises `iss` in its answers must send it, so a mix-up cannot drop it.
  'authorization_response_iss_parameter_supported',
] as const;

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;

/**
 * Fetches and checks an OpenID provider's discovery document (OpenID Connect Discovery 1.0 §4): `issuer` exactly the
 * configured one, the authorization, token and JWKS endpoints present and fetchable, `code` among its response types
 * and S256 among its PKCE methods when it lists them. Throws `FetchError` saying what is wrong.
 */
export async function discoverProvider(issuer: string): Promise<Record<string, unknown>> {
  checkFetchable(issuer);
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let doc: unknown;
  try {
    doc = JSON.parse(await fetchDocument(url, 'application/json'));
  } catch (err) {
    if (err instanceof FetchError) throw new FetchError(`discovery at ${url} ${err.message}`);
    throw new FetchError(`discovery at ${url} is not JSON`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new FetchError(`discovery at ${url} is not a JSON object`);
  }
  const d = doc as Record<string, unknown>;
  if (d.issuer !== issuer) {
    throw new FetchError(`the provider names its issuer ${JSON.stringify(d.issuer)}, not ${issuer}: give its own`);
  }
  for (const name of ENDPOINTS) {
    const value = d[name];
    if (typeof value !== 'string') throw new FetchError(`discovery at ${url} gives no ${name}`);
    try {
      checkFetchable(value);
    } catch (err) {
      throw new FetchError(`the provider's ${name} ${value} ${(err as Error).message}`);
    }
  }
  const listed = (name: string) => (Array.isArray(d[name]) ? (d[name] as unknown[]) : undefined);
  if (listed('response_types_supported') && !listed('response_types_supported')?.includes('code')) {
    throw new FetchError('the provider does not support the authorization code flow (response type code)');
  }
  if (listed('code_challenge_methods_supported') && !listed('code_challenge_methods_supported')?.includes('S256')) {
    throw new FetchError('the provider does not support PKCE with S256');
  }
  return Object.fromEntries(KEPT.filter((k) => d[k] !== undefined).map((k) => [k, d[k]]));
}
