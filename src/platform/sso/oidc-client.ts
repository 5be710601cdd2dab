import type { ClientAuth, Configuration, ServerMetadata } from 'openid-client';
import type { BaseCtx } from '../context.js';
import type { StoredSso } from '../store/sso.js';
import { checkFetchable, FetchError, readBounded, sendBounded } from './fetch.js';

/** openid-client, imported when a sign-in through an OpenID provider needs it (never at the CLI's start). */
export type Oidc = typeof import('openid-client');

/** The organization's OpenID provider as openid-client drives it, with the module itself. */
export interface RelyingParty {
  oidc: Oidc;
  configuration: Configuration;
}

/** A configuration the relying party can sign in through: OIDC, with a client id and a discovery document. */
export type OidcSso = StoredSso & { protocol: 'oidc'; clientId: string; oidcMetadata: Record<string, unknown> };

/** Whether a stored configuration holds what an OpenID sign-in needs. */
export function isOidcSso(config: StoredSso | undefined): config is OidcSso {
  return config?.protocol === 'oidc' && config.clientId !== null && config.oidcMetadata !== null;
}

/** Answers that cannot carry a body (the Response constructor refuses one). */
const NO_BODY = new Set([204, 205, 304]);

/**
 * openid-client's `customFetch`: every request to the provider (token endpoint, JWKS) within the bounds of
 * docs/sso.md — 5 s, 1 MiB, https or loopback http, no redirect — failing with a `FetchError` that names the endpoint.
 */
function boundedFetch(metadata: Record<string, unknown>) {
  const names: Record<string, string> = { token_endpoint: 'token endpoint', jwks_uri: 'JWKS' };
  const nameOf = (url: string) => {
    const path = url.split('?')[0];
    const key = Object.keys(names).find((k) => metadata[k] === path);
    return key ? (names[key] as string) : 'endpoint';
  };
  return async (
    url: string,
    options: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
  ): Promise<Response> => {
    try {
      const response = await sendBounded(checkFetchable(url), {
        method: options.method,
        headers: options.headers,
        body: options.body as RequestInit['body'],
        signal: options.signal,
      });
      const text = await readBounded(response);
      // The body was read here, to bound it: openid-client gets it again in a Response of its own.
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      headers.delete('content-encoding');
      const body = NO_BODY.has(response.status) ? null : text;
      return new Response(body, { status: response.status, statusText: response.statusText, headers });
    } catch (err) {
      if (err instanceof FetchError) throw new FetchError(`the identity provider's ${nameOf(url)} ${err.message}`);
      throw err;
    }
  };
}

/**
 * How the client authenticates at the token endpoint: `client_secret_basic` unless the provider lists only
 * `client_secret_post` (basic is the default when it lists nothing, OpenID Connect Discovery §3).
 */
function clientAuthentication(oidc: Oidc, metadata: Record<string, unknown>, secret: string | null): ClientAuth {
  if (secret === null) return oidc.None();
  const listed = metadata.token_endpoint_auth_methods_supported;
  const methods = Array.isArray(listed) ? listed : ['client_secret_basic'];
  return !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
    ? oidc.ClientSecretPost(secret)
    : oidc.ClientSecretBasic(secret);
}

/**
 * The relying party of the organization's OpenID provider, from the discovery document stored when the
 * configuration was saved (no discovery per sign-in). The ID token's signature is checked against the provider's
 * JWKS (`enableNonRepudiationChecks`: openid-client skips it otherwise, trusting the token endpoint's TLS, which
 * docs/sso.md does not); plain http only where the configuration allowed it (loopback, see fetch.ts); timestamps are
 * judged by the platform's clock, so that a platform on a test clock judges as it would at that time. `clientSecret`
 * is null to build an authorization URL, which needs none.
 */
export async function relyingParty(ctx: BaseCtx, config: OidcSso, clientSecret: string | null): Promise<RelyingParty> {
  const oidc = await import('openid-client');
  const metadata = config.oidcMetadata;
  const skew = Math.round((ctx.clock().getTime() - Date.now()) / 1000);
  const configuration = new oidc.Configuration(
    metadata as ServerMetadata,
    config.clientId,
    { [oidc.clockSkew]: skew },
    clientAuthentication(oidc, metadata, clientSecret),
  );
  configuration[oidc.customFetch] = boundedFetch(metadata);
  const endpoints = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'].map((k) => metadata[k]);
  if (endpoints.some((e) => typeof e === 'string' && e.startsWith('http:'))) oidc.allowInsecureRequests(configuration);
  oidc.enableNonRepudiationChecks(configuration);
  return { oidc, configuration };
}
