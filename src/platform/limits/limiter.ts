import {
  ANONYMOUS_LIMIT,
  AUTH_ENDPOINT_LIMITS,
  type AuthEndpoint,
  PLAN_LIMITS,
  type RateRule,
} from '../../contract/limits.js';
import type { Plan } from '../../contract/organizations.js';
import type { Clock } from '../clock.js';
import type { Credential } from '../context.js';
import { type LimitState, peek } from './bucket.js';
import type { BucketStore } from './store.js';

/** Which bucket a request spends, and by which rule: the policy of contract §7 over a bucket store. */
export interface Limiter {
  /**
   * Takes a token from the credential's bucket in the organization it acts in, by that organization's plan (or the
   * whoami rule).
   */
  takeCredential(credential: Credential, orgId: string, endpoint?: 'whoami'): Promise<LimitState>;
  /**
   * Takes a token from an OAuth client's bucket for one of the client-limited auth endpoints; a request that names
   * no client spends a bucket of its IP under the same rule.
   */
  takeClient(endpoint: Exclude<AuthEndpoint, 'whoami'>, clientId: string | undefined, ip: string): Promise<LimitState>;
  /** The client IP's budget for failed authentication, without spending it. */
  peekAddress(ip: string): Promise<LimitState>;
  /** Charges one failed authentication (bad credential, failed sign-in) to the client IP. */
  chargeAddress(ip: string): Promise<LimitState>;
  /** Closes the bucket store (waiting for a sweep under way). */
  close(): Promise<void>;
}

export interface LimiterDeps {
  store: BucketStore;
  clock: Clock;
  /** The organization's plan, read on every request so that a plan change is effective at once. */
  planOf(orgId: string): Promise<Plan | undefined>;
}

/**
 * The bucket of a credential acting in an organization: an API key's own, or for a user's token the user within the
 * organization (several tokens of one sign-in, or of several, share it). A multi-organization credential has one in
 * each organization it acts in, each on that organization's plan.
 */
function credentialKey(c: Credential, orgId: string): string {
  return c.type === 'api_key' && c.keyId ? `key:${c.keyId}@${orgId}` : `user:${c.userId}@${orgId}`;
}

/** Builds the limiter. */
export function createLimiter(deps: LimiterDeps): Limiter {
  const { store, clock } = deps;
  const takeBy = (key: string, rule: RateRule) => store.take(key, rule, clock().getTime());
  return {
    async takeCredential(credential, orgId, endpoint) {
      const key = credentialKey(credential, orgId);
      if (endpoint === 'whoami') return takeBy(`whoami:${key}`, AUTH_ENDPOINT_LIMITS.whoami);
      // An organization deleted under a live credential: the smallest plan until authentication refuses it.
      const plan = await deps.planOf(orgId);
      return takeBy(key, PLAN_LIMITS[plan ?? 'free']);
    },
    takeClient: (endpoint, clientId, ip) =>
      takeBy(
        clientId === undefined ? `client:${endpoint}:ip=${ip}` : `client:${endpoint}:id=${clientId}`,
        AUTH_ENDPOINT_LIMITS[endpoint],
      ),
    peekAddress: async (ip) => peek(await store.get(`ip:${ip}`), ANONYMOUS_LIMIT, clock().getTime()),
    chargeAddress: (ip) => store.charge(`ip:${ip}`, ANONYMOUS_LIMIT, clock().getTime()),
    close: () => store.close(),
  };
}
