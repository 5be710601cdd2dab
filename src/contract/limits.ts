/** The plans an organization can be on (docs/rate-limits.md), each with its rate limit below. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** A page's size when none is asked for, and the most one may hold (docs/api.md, "Pagination"): in either paging mode. */
export const PER_PAGE_DEFAULT = 20;
/** The highest page number of offset paging (nine digits). */
export const PAGE_MAX = 999_999_999;
export const PER_PAGE_MAX = 100;

/** One rate limit: a token bucket of `burst` tokens refilled at `perMinute` tokens a minute (docs/rate-limits.md). */
export interface RateRule {
  /** Requests per minute: the refill rate, and the figure sent as `X-RateLimit-Limit`. */
  perMinute: number;
  /** The bucket's capacity: how many requests may come back to back after a quiet spell. */
  burst: number;
}

/** The plans' rate limits (docs/rate-limits.md): requests per minute and burst. */
export const PLAN_LIMITS: Readonly<Record<Plan, RateRule>> = {
  free: { perMinute: 60, burst: 10 },
  pro: { perMinute: 600, burst: 100 },
  enterprise: { perMinute: 6_000, burst: 1_000 },
};

/** The four authentication endpoints whose own limits replace the plan's. */
export type AuthEndpoint = 'token' | 'refresh' | 'revoke' | 'whoami';

/**
 * The per-minute limits of the authentication endpoints (per `client_id`; whoami per credential: docs/rate-limits.md).
 * Their burst is half a minute's worth: a sign-in or a refresh needs one request, and a script
 * that checks `whoami` in a loop still gets a short run before it is paced.
 */
export const AUTH_ENDPOINT_LIMITS: Readonly<Record<AuthEndpoint, RateRule>> = {
  token: { perMinute: 20, burst: 10 },
  refresh: { perMinute: 30, burst: 15 },
  revoke: { perMinute: 10, burst: 5 },
  whoami: { perMinute: 60, burst: 30 },
};

/**
 * Requests with missing or invalid credentials (and failed sign-ins), per client IP: slow enough that guessing
 * keys, tokens or passwords gets nowhere, loose enough that a mistyped key costs a person nothing.
 */
export const ANONYMOUS_LIMIT: Readonly<RateRule> = { perMinute: 30, burst: 10 };

/**
 * The SCIM bucket of an organization, shared by its SCIM tokens and apart from its plan's (docs/rate-limits.md): an
 * identity provider's first sync of a large directory runs at 50 requests a second, after a burst of 500.
 */
export const SCIM_LIMIT: Readonly<RateRule> = { perMinute: 3_000, burst: 500 };

/** The names of the rate-limit response headers. */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;

/** What a response says about the caller's budget. */
export interface RateLimitInfo {
  /** Requests per minute. */
  limit: number;
  /** Whole requests left right now. */
  remaining: number;
  /** Unix second at which the bucket is full again. */
  reset: number;
  /** Seconds to wait before retrying (on a `429` only). */
  retryAfter?: number;
}

/** The plan's figures, for `plat auth status` and the like. */
export function planLimits(plan: Plan): RateRule {
  return PLAN_LIMITS[plan];
}

/** Reads the rate-limit headers of a response (for `--verbose`); undefined when the instance sent none. */
export function readRateLimit(headers: Headers): RateLimitInfo | undefined {
  const int = (name: string) => {
    const v = headers.get(name);
    return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const limit = int(RATE_LIMIT_HEADERS.limit);
  const remaining = int(RATE_LIMIT_HEADERS.remaining);
  const reset = int(RATE_LIMIT_HEADERS.reset);
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  const retryAfter = int(RATE_LIMIT_HEADERS.retryAfter);
  return { limit, remaining, reset, ...(retryAfter !== undefined && { retryAfter }) };
}
