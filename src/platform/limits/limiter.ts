import type { RateRule } from '../../contract/limits.js';
import type { Clock } from '../clock.js';
import { type LimitState, levelAt, stateOf, UNIT } from './bucket.js';
import type { BucketStore, Return } from './store.js';

/**
 * Spends and reads rate-limit buckets (docs/rate-limits.md) so that a request pays almost nothing for its limit: this
 * process holds a *lease* of each bucket it uses — tokens claimed from the shared bucket store in one step — and spends
 * them in memory. A refusal reads and writes nothing; a served request claims a new lease (one write for many
 * requests) only when its lease is spent, and the next lease is claimed after the answer, before it is needed.
 */
export interface Limiter {
  /** Spends one token of the bucket `key` under `rule`; refused (`allowed: false`) when there is none. */
  spend(key: string, rule: RateRule): LimitState | Promise<LimitState>;
  /** The bucket's state without spending: `allowed` says whether a token is there. */
  peek(key: string, rule: RateRule): LimitState | Promise<LimitState>;
  /** Gives back the tokens of every lease, then closes the bucket store. */
  close(): Promise<void>;
}

/** This process's part of one bucket. */
interface Lease {
  rule: RateRule;
  /** Tokens claimed from the shared bucket and not yet spent. */
  tokens: number;
  /** The shared bucket's level (units) right after this process's last claim, at `at`. */
  shared: number;
  at: number;
  /** While no token is held: the shared bucket held less than one at `at`, so no claim is tried before this time. */
  retryAt: number;
  /** When a token was last spent or refused (for giving idle leases back). */
  usedAt: number;
  /** A claim under way. */
  claiming: Promise<void> | undefined;
}

/**
 * How many tokens one claim asks for: a tenth of the burst (so many requests share one write, and a lease left unspent
 * by one server holds back little from the others), at least one.
 */
export function leaseSize(rule: RateRule): number {
  return Math.max(1, Math.floor(rule.burst / 10));
}

/** A lease not used for this long gives its tokens back (so another server, or a later start, may spend them). */
export const LEASE_IDLE_MS = 2_000;

export interface LimiterDeps {
  store: BucketStore;
  clock: Clock;
}

/** Builds the limiter over a shared bucket store. */
export function createLimiter({ store, clock }: LimiterDeps): Limiter {
  const leases = new Map<string, Lease>();
  const returning = new Set<Promise<void>>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  /** The shared bucket's level now, as this process last saw it, refilled since. */
  const sharedNow = (l: Lease, now: number) => levelAt({ level: l.shared, at: l.at }, l.rule, now);

  /**
   * Drops the tokens a strict bucket could not hold: the shared bucket refills while tokens sit in the lease, and the
   * two together never exceed the burst. Alone on its store, this process's lease plus the shared bucket is then
   * exactly the bucket a single step-by-step store would keep.
   */
  const trim = (l: Lease, now: number) => {
    const room = Math.floor((l.rule.burst * UNIT - sharedNow(l, now)) / UNIT);
    if (l.tokens > room) l.tokens = Math.max(0, room);
  };

  const state = (l: Lease, now: number, allowed: boolean) =>
    stateOf(l.tokens * UNIT + sharedNow(l, now), l.rule, now, allowed);

  /** Gives back the tokens of leases (already trimmed), off the request's path; a failure loses only early refills. */
  const giveBack = (returns: Return[], now: number) => {
    if (returns.length === 0) return;
    const done = store.give(returns, now).then(
      () => undefined,
      () => undefined,
    );
    returning.add(done);
    void done.finally(() => returning.delete(done));
  };

  /** Gives back the leases idle for `LEASE_IDLE_MS`, and forgets them. */
  const sweep = () => {
    const now = clock().getTime();
    const returns: Return[] = [];
    for (const [key, l] of leases) {
      if (l.claiming || now - l.usedAt < LEASE_IDLE_MS) continue;
      trim(l, now);
      if (l.tokens > 0) returns.push({ key, rule: l.rule, n: l.tokens });
      leases.delete(key);
    }
    giveBack(returns, now);
    if (leases.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  /** Claims a lease's worth of tokens into `l` (at most one claim at a time per bucket). */
  const claimInto = (key: string, l: Lease, now: number): Promise<void> => {
    const claiming = store.claim(key, l.rule, now, leaseSize(l.rule)).then(({ granted, level }) => {
      l.tokens += granted;
      l.shared = level;
      l.at = now;
      l.retryAt = granted > 0 ? 0 : now + Math.ceil((UNIT - level) / l.rule.perMinute);
    });
    l.claiming = claiming.finally(() => {
      l.claiming = undefined;
    });
    return l.claiming;
  };

  /** The next lease, claimed after the current request is answered, before this one runs out. */
  const prefetch = (key: string, l: Lease) => {
    setImmediate(() => {
      if (closed || l.claiming || leases.get(key) !== l) return;
      claimInto(key, l, clock().getTime()).catch(() => {
        // Claimed again on the request's path when needed; that request reports the store's failure.
      });
    });
  };

  const spend = (key: string, rule: RateRule): LimitState | Promise<LimitState> => {
    const now = clock().getTime();
    let l = leases.get(key);
    if (l && l.rule !== rule) {
      // The organization's plan changed: the lease goes back, and the bucket is claimed anew under the new rule.
      trim(l, now);
      if (l.tokens > 0 && !l.claiming) giveBack([{ key, rule: l.rule, n: l.tokens }], now);
      leases.delete(key);
      l = undefined;
    }
    if (l) {
      trim(l, now);
      l.usedAt = now;
      if (l.tokens >= 1) {
        l.tokens--;
        if (l.tokens <= leaseSize(rule) / 2 && leaseSize(rule) > 1 && !l.claiming) prefetch(key, l);
        return state(l, now, true);
      }
      if (l.claiming) return l.claiming.then(() => spend(key, rule));
      if (now < l.retryAt) return state(l, now, false);
    } else {
      l = { rule, tokens: 0, shared: 0, at: now, retryAt: 0, usedAt: now, claiming: undefined };
      leases.set(key, l);
      sweeper ??= setInterval(sweep, LEASE_IDLE_MS).unref();
    }
    const lease = l;
    return claimInto(key, lease, now).then(() => {
      if (lease.tokens < 1) return state(lease, now, false);
      lease.tokens--;
      return state(lease, now, true);
    });
  };

  const peek = (key: string, rule: RateRule): LimitState | Promise<LimitState> => {
    const now = clock().getTime();
    const l = leases.get(key);
    if (l && l.rule === rule && !l.claiming) {
      trim(l, now);
      if (l.tokens >= 1) return state(l, now, true);
      if (now < l.retryAt) return state(l, now, false);
    }
    return store.get(key).then((b) => {
      const level = levelAt(b, rule, now) + (l && l.rule === rule ? l.tokens * UNIT : 0);
      const capped = Math.min(rule.burst * UNIT, level);
      return stateOf(capped, rule, now, capped >= UNIT);
    });
  };

  return {
    spend,
    peek,
    async close() {
      closed = true;
      if (sweeper) clearInterval(sweeper);
      await Promise.allSettled([...leases.values()].map((l) => l.claiming));
      const now = clock().getTime();
      const returns: Return[] = [];
      for (const [key, l] of leases) {
        trim(l, now);
        if (l.tokens > 0) returns.push({ key, rule: l.rule, n: l.tokens });
      }
      leases.clear();
      giveBack(returns, now);
      await Promise.all(returning);
      await store.close();
    },
  };
}
