import type { Context } from 'hono';
import { PlatformError } from '../errors.js';
import { type LimitState, limitHeaders } from './bucket.js';
import type { RequestLimits } from './middleware.js';

/** The middleware's handle, when limits are on. */
function handleOf(c: Context): RequestLimits | undefined {
  return c.get('rateLimits') as RequestLimits | undefined;
}

/**
 * For the sign-in handlers: charges one failed sign-in (a wrong password, a bad code) to the client IP's bucket for
 * failed authentication, the one that also counts bad keys and tokens. Returns the bucket's state after the charge
 * (undefined when limits are off). Call it after the failure, whatever the route answers.
 */
export async function chargeFailedSignIn(c: Context): Promise<LimitState | undefined> {
  const handle = handleOf(c);
  if (!handle) return undefined;
  const state = await handle.limiter.chargeAddress(handle.ip);
  if (handle.byAddress) handle.state = state;
  return state;
}

/**
 * For the sign-in handlers: the client IP's budget for failures, without spending it. When `allowed` is false, refuse
 * the attempt before checking anything (`rateLimitedError(state)`), so a guess cannot be told right from wrong.
 * Undefined when limits are off.
 */
export async function signInBudget(c: Context): Promise<LimitState | undefined> {
  const handle = handleOf(c);
  return handle && (await handle.limiter.peekAddress(handle.ip));
}

/** The `429 rate_limit_exceeded` of a refused attempt, with `Retry-After` and the `X-RateLimit-*` headers. */
export function rateLimitedError(state: LimitState, message = 'too many failed attempts'): PlatformError {
  return new PlatformError('rate_limit_exceeded', `${message}; retry in ${state.retryAfter ?? 1} s`, {
    headers: limitHeaders({ ...state, retryAfter: state.retryAfter ?? 1 }),
  });
}
