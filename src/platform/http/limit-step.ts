// The pipeline's rate-limit step (docs/rate-limits.md): which bucket a request spends, by the policy its endpoint
// declares, and the answers and headers that follow.
import type { LimitPolicy } from '../../contract/endpoint.js';
import { ANONYMOUS_LIMIT, AUTH_ENDPOINT_LIMITS, PLAN_LIMITS, type RateLimitInfo } from '../../contract/limits.js';
import type { OAuthErrorBody } from '../../contract/oauth.js';
import type { Plan } from '../../contract/organizations.js';
import { hashSecret } from '../auth/api-keys.js';
import type { Credential } from '../context.js';
import { PlatformError } from '../errors.js';
import { type LimitState, limitHeaders } from '../limits/bucket.js';
import { clientIdOf } from '../limits/client-id.js';
import { addressKey, credentialKey } from '../limits/keys.js';
import type { Limiter } from '../limits/limiter.js';
import type { Incoming } from './incoming.js';
import { errorBody, errorReply, type Failure, jsonReply, type Reply, setHeader } from './reply.js';

/** Says when to come back, in the message as in `Retry-After`. */
function retryIn(state: LimitState): string {
  return `retry in ${state.retryAfter ?? 1} s`;
}

/**
 * The `429` of a refused request, with its `Retry-After` and `X-RateLimit-*` headers: a plain failure, not an
 * exception (no stack is taken for what is answered thousands of times a second).
 */
export function refused(state: LimitState, message: string): Failure {
  const headers = limitHeaders(state);
  return {
    code: 'rate_limit_exceeded',
    status: 429,
    message: `${message}; ${retryIn(state)}`,
    details: undefined,
    headers,
  };
}

/**
 * The `429` of a credential's bucket, in words that say which bucket: the error envelope (`errorBody`) with the request
 * id, its `X-RateLimit-*` and `Retry-After` headers. The headers are listed at once, in the order `errorReply` and
 * `showLimits` would give, rather than made as a record, listed and then replaced: this is what a flood is answered,
 * thousands of times a second.
 */
export function credentialRefusal(
  state: LimitState,
  policy: LimitPolicy | undefined,
  path: string,
  requestId: string,
): Reply {
  const which =
    policy === 'whoami'
      ? `too many ${path} requests for this credential: ${state.limit} a minute`
      : `rate limit exceeded: ${state.limit} requests a minute for this credential`;
  const failure: Failure = {
    code: 'rate_limit_exceeded',
    status: 429,
    message: `${which}; ${retryIn(state)}`,
    details: undefined,
    headers: undefined,
  };
  const headers = ['content-type', 'application/json', 'x-request-id', requestId];
  headers.push('x-ratelimit-limit', String(state.limit), 'x-ratelimit-remaining', String(state.remaining));
  headers.push('x-ratelimit-reset', String(state.reset));
  if (state.retryAfter !== undefined) headers.push('retry-after', String(state.retryAfter));
  return { status: 429, headers, body: JSON.stringify(errorBody(failure, requestId)) };
}

/** A credential's spend: the bucket it spent (or was refused by) and that bucket's state. */
export interface CredentialSpend {
  key: string;
  state: LimitState;
}

/** Spends a credential's bucket in `orgId`: by the plan, or `whoami`'s own. */
export function spendCredential(
  limiter: Limiter,
  policy: LimitPolicy | undefined,
  credential: Credential,
  orgId: string,
  plan: Plan,
): CredentialSpend | Promise<CredentialSpend> {
  const own = credentialKey(credential, orgId);
  const key = policy === 'whoami' ? `whoami:${own}` : own;
  const spent = limiter.spend(key, policy === 'whoami' ? AUTH_ENDPOINT_LIMITS.whoami : PLAN_LIMITS[plan]);
  return spent instanceof Promise ? spent.then((state) => ({ key, state })) : { key, state: spent };
}

/** What an address refused for its failures is told (the `429` of `chargeAddress`). */
const ADDRESS_REFUSAL = 'too many requests with missing or invalid credentials from this address';

/** The hash of the credential a request sent (`''` when none): what it is remembered by (`Limiter.remember`). */
function sentHash(req: Incoming): string {
  return hashSecret(req.header('x-api-key') ?? req.header('authorization') ?? '');
}

/**
 * What a request's credential is remembered by while its bucket refuses it (`Limiter.remember`): a hash of the
 * credential it sent, with where it means to act and the endpoint's policy — everything its bucket follows from.
 */
export function credentialAlias(
  req: Incoming,
  pathOrgId: string | undefined,
  policy: LimitPolicy | undefined,
  sent = sentHash(req),
): string {
  return `${sent} ${req.header('x-org-id') ?? ''} ${pathOrgId ?? ''} ${policy ?? 'plan'}`;
}

/**
 * What a missing or invalid credential is remembered by while its address's failure budget refuses it: its hash and
 * the address. Only that credential from that address is refused from memory; a valid one from the same address is
 * read and served, and another invalid one is read (and refused for its address).
 */
function failureAlias(req: Incoming, sent = sentHash(req)): string {
  return `${sent} @${req.peer ?? 'local'}`;
}

/**
 * The refusal of an API request whose credential a bucket refused a moment ago, answered from memory before anything
 * is read for it (docs/rate-limits.md, "What a request pays"): the credential's own bucket, or — for a missing or
 * invalid credential sent again from an address out of failures — the address's. Undefined when neither refuses.
 */
export function rememberedRefusal(
  limiter: Limiter,
  req: Incoming,
  pathOrgId: string | undefined,
  policy: LimitPolicy | undefined,
  requestId: string,
): Reply | undefined {
  let sent: string | undefined;
  const hash = () => {
    sent ??= sentHash(req);
    return sent;
  };
  const own = limiter.refusing(() => credentialAlias(req, pathOrgId, policy, hash()));
  if (own) return credentialRefusal(own, policy, req.path, requestId);
  const address = limiter.refusing(() => failureAlias(req, hash()));
  if (address) return errorReply(refused(address, ADDRESS_REFUSAL), requestId);
  return undefined;
}

/**
 * Charges a missing or invalid credential to the client's address; throws the `429` once the address has no failures
 * left (a valid credential is never refused for its address's failures). With `req` (an API request), the refused
 * credential is remembered, so that the same one sent again from there is refused without being read
 * (`rememberedRefusal`).
 */
export async function chargeAddress(limiter: Limiter, ip: string, req?: Incoming): Promise<LimitState> {
  const state = await limiter.spend(addressKey(ip), ANONYMOUS_LIMIT);
  if (!state.allowed) {
    if (req) limiter.remember(failureAlias(req), addressKey(ip));
    const { message, headers } = refused(state, ADDRESS_REFUSAL);
    throw new PlatformError('rate_limit_exceeded', message, { headers });
  }
  return state;
}

/** The OAuth endpoints answer errors in the RFC 6749 form, a rate limit included (docs/api.md, "Errors"). */
const OAUTH_FORM = new Set<LimitPolicy>(['token', 'revoke']);

/**
 * A public endpoint's bucket, spent before its handler runs: the OAuth client's (`token`, `refresh`, `revoke`: HTTP
 * Basic client id, else `client_id` in the body; a request naming none spends its address's bucket under the same
 * rule), or the address's failure budget for an identity provider's answer (checked here, charged for a refusal
 * once answered). A refusal is answered at once: `refusal` is set.
 */
export async function publicLimit(
  limiter: Limiter,
  policy: LimitPolicy,
  req: Incoming,
  ip: string,
  requestId: string,
): Promise<{ state: LimitState; refusal?: Reply } | undefined> {
  if (policy === 'token' || policy === 'refresh' || policy === 'revoke') {
    const clientId = await clientIdOf(req);
    const key = clientId === undefined ? `client:${policy}:ip=${ip}` : `client:${policy}:id=${clientId}`;
    const state = await limiter.spend(key, AUTH_ENDPOINT_LIMITS[policy]);
    if (state.allowed) return { state };
    const message = `too many ${req.path} requests for this client: ${state.limit} a minute`;
    if (!OAUTH_FORM.has(policy)) return { state, refusal: errorReply(refused(state, message), requestId) };
    const body: OAuthErrorBody = { error: 'rate_limit_exceeded', error_description: `${message}; ${retryIn(state)}` };
    return { state, refusal: jsonReply(429, body, limitHeaders(state)) };
  }
  if (policy === 'identity-provider') {
    const state = await limiter.peek(addressKey(ip), ANONYMOUS_LIMIT);
    if (!state.allowed) {
      const failure = refused(state, 'too many refused sign-ins through an identity provider from this address');
      return { state, refusal: errorReply(failure, requestId) };
    }
    return { state };
  }
  return undefined;
}

/** Puts a bucket's state on an answer: the three `X-RateLimit-*` headers (a `429` carries its `Retry-After` itself). */
export function showLimits(reply: Reply, state: RateLimitInfo): void {
  setHeader(reply, 'x-ratelimit-limit', String(state.limit));
  setHeader(reply, 'x-ratelimit-remaining', String(state.remaining));
  setHeader(reply, 'x-ratelimit-reset', String(state.reset));
}
