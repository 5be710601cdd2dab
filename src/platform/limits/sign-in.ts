import { ANONYMOUS_LIMIT } from '../../contract/limits.js';
import { PlatformError } from '../errors.js';
import type { PageCall } from '../http/page.js';
import { type LimitState, limitHeaders } from './bucket.js';
import { addressKey } from './keys.js';

/**
 * For the sign-in handlers: charges one failed sign-in (a wrong password, a bad code) to the client address's bucket
 * for failed authentication, the one that also counts bad keys and tokens. Returns the bucket's state after the
 * charge (undefined when limits are off), which the answer's headers then show. Call it after the failure, whatever
 * the route answers.
 */
export async function chargeFailedSignIn(c: PageCall): Promise<LimitState | undefined> {
  const limits = c.limits;
  if (!limits) return undefined;
  limits.state = await limits.limiter.spend(addressKey(limits.ip), ANONYMOUS_LIMIT);
  return limits.state;
}

/**
 * For the sign-in handlers: the client address's budget for failures, without spending it. When `allowed` is false,
 * refuse the attempt before checking anything (`rateLimitedError(state)`), so a guess cannot be told right from
 * wrong. Undefined when limits are off.
 */
export async function signInBudget(c: PageCall): Promise<LimitState | undefined> {
  const limits = c.limits;
  if (!limits) return undefined;
  limits.state = await limits.limiter.peek(addressKey(limits.ip), ANONYMOUS_LIMIT);
  return limits.state;
}

/** The `429 rate_limit_exceeded` of a refused attempt, with `Retry-After` and the `X-RateLimit-*` headers. */
export function rateLimitedError(state: LimitState, message = 'too many failed attempts'): PlatformError {
  return new PlatformError('rate_limit_exceeded', `${message}; retry in ${state.retryAfter ?? 1} s`, {
    headers: limitHeaders({ ...state, retryAfter: state.retryAfter ?? 1 }),
  });
}
