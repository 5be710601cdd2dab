import type { Context, MiddlewareHandler } from 'hono';
import type { AuthEndpoint } from '../../contract/limits.js';
import type { OAuthErrorBody } from '../../contract/oauth.js';
import { actIn, actingOrgId, authenticate, type BearerVerifier } from '../auth/credentials.js';
import { clientAddress } from '../auth/request.js';
import type { BaseCtx, Credential, FetchBindings } from '../context.js';
import { PlatformError } from '../errors.js';
import { type LimitState, limitHeaders } from './bucket.js';
import { clientIdOf } from './client-id.js';
import type { Limiter } from './limiter.js';

/** What the middleware leaves on the Hono context (`c.get('rateLimits')`) for routes that charge failures. */
export interface RequestLimits {
  limiter: Limiter;
  /** The client IP that failed authentication is charged to. */
  ip: string;
  /** Whether the response's headers describe the IP's bucket (so a charge to it must update them). */
  byAddress: boolean;
  /** The state the response's headers will carry. */
  state: LimitState;
}

/** The Hono variables the middleware sets. */
export type LimitsEnv = { Variables: { requestId: string; credential?: Credential; rateLimits?: RequestLimits } };

/** What the middleware needs from the app. */
export interface RateLimitDeps {
  /** Whether a method and path name an authenticated route (one that refuses a request without credentials). */
  needsCredentials(method: string, path: string): boolean;
  /** The `{orgId}` of the route a method and path name, if it has one. */
  pathOrgId(method: string, path: string): string | undefined;
}

/**
 * What a request brings in Hono's `env`: its platform's limiter (none: limits are off), base context and bearer
 * verifier, and the listener's bindings.
 */
export type LimitsBindings = FetchBindings & {
  platform: { limiter?: Limiter; makeBase(requestId: string): BaseCtx; bearer?: BearerVerifier };
};

const AUTH_PATH = /^\/v2\/auth\/(token|refresh|revoke|whoami)\/?$/;

/** The auth endpoint a request calls, if any: POST token/refresh/revoke, GET whoami. */
function authEndpoint(method: string, path: string): AuthEndpoint | undefined {
  const name = AUTH_PATH.exec(path)?.[1] as AuthEndpoint | undefined;
  if (!name) return undefined;
  return (name === 'whoami' ? method === 'GET' : method === 'POST') ? name : undefined;
}

/** The OAuth endpoints answer errors in the RFC 6749 form (contract §2), a rate limit included. */
const OAUTH_FORM = new Set<AuthEndpoint>(['token', 'revoke']);

/** The `429` of a refused request: the envelope, or the OAuth form on the OAuth endpoints. */
function refuse(c: Context, state: LimitState, message: string, endpoint: AuthEndpoint | undefined): Response {
  const headers = limitHeaders(state);
  if (endpoint && OAUTH_FORM.has(endpoint)) {
    const body: OAuthErrorBody = { error: 'rate_limit_exceeded', error_description: message };
    return c.json(body, 429, headers);
  }
  throw new PlatformError('rate_limit_exceeded', message, { headers });
}

/** Says when to come back, in the message as in `Retry-After`. */
function retryIn(state: LimitState): string {
  return `retry in ${state.retryAfter ?? 1} s`;
}

/**
 * The organization whose bucket and plan a credential spends (contract §7: per user within the organization, plan
 * from the organization): the one the request acts in, chosen as the route will choose it. An organization the
 * credential may not act in spends its own organization's bucket, so naming strangers' organizations opens no
 * fresh buckets.
 */
async function bucketOrgId(
  base: BaseCtx,
  credential: Credential,
  header: string | undefined,
  pathOrgId: unknown,
): Promise<string> {
  const orgId = actingOrgId(credential, header, pathOrgId);
  if (orgId === credential.homeOrgId) return orgId;
  try {
    return (await actIn(base, credential, orgId)) ? orgId : credential.homeOrgId;
  } catch {
    // Refused with 401 by the route (a session that organization revoked).
    return credential.homeOrgId;
  }
}

/** Whether a response's headers can be changed in place. */
function headersWritable(res: Response): boolean {
  try {
    res.headers.set('X-RateLimit-Limit', '0');
    return true;
  } catch {
    return false;
  }
}

/** Where identity providers send their answers: the SAML ACS and the OIDC callback (routes/sso-*.ts). */
const SSO_ANSWER = /^\/v2\/sso\/(saml\/[^/]+\/acs|oidc\/[^/]+\/callback)\/?$/;

/** The bucket a request spends: its state, whether it is the address's, and the refusal's wording. */
interface Choice {
  state: LimitState;
  byAddress: boolean;
  /** Set when the request is refused. */
  refusal?: string;
  /** Whether the address is charged when the route's answer is a refusal (status 400 or more). */
  chargeRefused?: boolean;
}

/**
 * Rate limits (contract §7): picks the bucket a request spends, refuses it with `429` when the bucket is empty, and
 * puts the `X-RateLimit-*` headers on whatever response the request ends with (errors included). It authenticates
 * the credential itself, leaving it in `c.get('credential')` so the route does not do it twice.
 */
export function rateLimits(deps: RateLimitDeps): MiddlewareHandler<LimitsEnv & { Bindings: LimitsBindings }> {
  const choose = async (
    c: Context<LimitsEnv & { Bindings: LimitsBindings }>,
    limiter: Limiter,
    ip: string,
  ): Promise<Choice> => {
    const { platform } = c.env;
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const path = c.req.path;
    const endpoint = authEndpoint(method, path);
    if (endpoint && endpoint !== 'whoami') {
      const state = await limiter.takeClient(endpoint, await clientIdOf(c.req.raw), ip);
      const refusal = `too many ${path} requests for this client: ${state.limit} a minute; ${retryIn(state)}`;
      return { state, byAddress: false, ...(!state.allowed && { refusal }) };
    }
    if (SSO_ANSWER.test(path)) {
      // An identity provider's answer costs the platform signature checks (SAML) or a token request (OIDC), and
      // anyone can send one, whatever credentials ride along: each refused one spends from the address's budget, as
      // a failed credential does (charged once answered, see below); a person signing in spends nothing.
      const gate = await limiter.peekAddress(ip);
      const refusal = `too many refused sign-ins through an identity provider from this address; ${retryIn(gate)}`;
      return { state: gate, byAddress: true, chargeRefused: true, ...(!gate.allowed && { refusal }) };
    }
    const needs = deps.needsCredentials(method, path);
    const headers = c.req.raw.headers;
    const authorization = headers.get('authorization');
    // On a public page only the platform's own credentials count (an OAuth client may send `Basic`).
    const presented =
      headers.has('x-api-key') || (needs ? authorization !== null : /^Bearer /i.test(authorization ?? ''));
    if (!presented && !needs) {
      // A public page without credentials spends nothing; its headers show the address's budget.
      return { state: { ...(await limiter.peekAddress(ip)), allowed: true }, byAddress: true };
    }
    // Checked before the credential: once an address has used up its failures, whether a guess is right must not
    // show (a 429 for wrong guesses and a 200 for the right one would leave guessing as fast as ever).
    const gate = await limiter.peekAddress(ip);
    if (!gate.allowed) {
      return {
        state: gate,
        byAddress: true,
        refusal: `too many requests with missing or invalid credentials from this address; ${retryIn(gate)}`,
      };
    }
    const base = platform.makeBase(c.get('requestId'));
    const credential = await authenticate(base, headers, platform.bearer).catch(() => undefined);
    if (!credential) {
      // The route authenticates again and answers the 401 (or 400) itself; here the failure is only counted.
      return { state: await limiter.chargeAddress(ip), byAddress: true };
    }
    c.set('credential', credential);
    const whoami = endpoint === 'whoami';
    const orgId = await bucketOrgId(
      base,
      credential,
      headers.get('x-org-id') ?? undefined,
      deps.pathOrgId(method, path),
    );
    const state = await limiter.takeCredential(credential, orgId, whoami ? 'whoami' : undefined);
    const refusal = whoami
      ? `too many ${path} requests for this credential: ${state.limit} a minute; ${retryIn(state)}`
      : `rate limit exceeded: ${state.limit} requests a minute for this credential; ${retryIn(state)}`;
    return { state, byAddress: false, ...(!state.allowed && { refusal }) };
  };

  return async (c, next) => {
    const { limiter } = c.env.platform;
    if (!limiter) return next();
    // The connection's peer; proxies' X-Forwarded-For is not trusted.
    const ip = clientAddress(c) ?? 'local';
    const { state, byAddress, refusal, chargeRefused } = await choose(c, limiter, ip);
    if (refusal !== undefined) return refuse(c, state, refusal, authEndpoint(c.req.method, c.req.path));
    const handle: RequestLimits = { limiter, ip, byAddress, state };
    c.set('rateLimits', handle);
    await next();
    if (chargeRefused && c.res.status >= 400) handle.state = await limiter.chargeAddress(ip);
    // The handle's state, not `state`: a route may have charged a failed sign-in meanwhile.
    const { retryAfter: _, ...info } = handle.state;
    // `Response.redirect()` and fetched responses have immutable headers: copy those once (Hono's setter may copy
    // again, so read the response back).
    if (!headersWritable(c.res)) c.res = new Response(c.res.body, c.res);
    for (const [name, value] of Object.entries(limitHeaders(info))) c.res.headers.set(name, value);
  };
}
