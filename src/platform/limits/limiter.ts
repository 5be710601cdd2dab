import type { RateRule } from '../../contract/limits.js';
import type { Clock } from '../clock.js';
import { type LimitState, levelAt, stateOf, UNIT } from './bucket.js';
import type { BucketStore, Claim, Return } from './store.js';

/**
 * Spends and reads rate-limit buckets (docs/rate-limits.md) so that a request pays almost nothing for its limit: this
 * process holds a *lease* of each bucket it uses — tokens claimed from the shared bucket store in one step — and spends
 * them in memory. A refusal reads and writes nothing until the bucket may hold a token again. A served request claims
 * on its path (one write for many requests) only when its bucket is new to the process (or its plan changed), when its
 * lease's second ran out with no request in its last quarter (its unspent tokens given back in that same write), when
 * its last claim found the bucket empty, or always for a rule whose lease is one token (a burst under 20: a token
 * claimed ahead would be held back from the other processes sharing such a small bucket, see docs/rate-limits.md);
 * otherwise the next lease is claimed after the answer, before it is needed, together with every other bucket's in one
 * step.
 */
export interface Limiter {
  /** Spends one token of the bucket `key` under `rule`; refused (`allowed: false`) when there is none. */
  spend(key: string, rule: RateRule): LimitState | Promise<LimitState>;
  /** The bucket's state without spending: `allowed` says whether a token is there. */
  peek(key: string, rule: RateRule): LimitState | Promise<LimitState>;
  /**
   * Remembers that the requests known by `alias` (a credential's hash, with where it acts) spend the bucket `key`,
   * which just refused one: while it goes on refusing, `refusing(alias)` answers for them before they are even
   * authenticated.
   */
  remember(alias: string, key: string): void;
  /**
   * The refusal of the bucket the alias was remembered with, while it still refuses (no I/O); else undefined. The
   * alias is asked for only when some bucket is remembered (most of the time none is, and this costs nothing).
   */
  refusing(alias: () => string): LimitState | undefined;
  /** Gives back the tokens of every lease, then closes the bucket store. */
  close(): Promise<void>;
}

/** This process's part of one bucket. */
interface Lease {
  rule: RateRule;
  /** Tokens claimed from the shared bucket and not yet spent. */
  tokens: number;
  /** Until when they may be spent: the time the shared bucket takes to refill a lease (see `LEASE_MS`). */
  until: number;
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

/**
 * How long a lease's tokens may be spent after their claim: the time every plan's bucket takes to refill a lease (a
 * tenth of its burst is a second of its rate). While tokens sit in a lease the shared bucket refills behind them, so a
 * lease spent later would let a burst exceed the bucket; spent within this time, it exceeds it by one lease at most.
 */
export const LEASE_MS = 1_000;

/** A lease not used for this long gives its tokens back (so another server, or a later start, may spend them). */
export const LEASE_IDLE_MS = 2_000;

/**
 * Renewals of leases whose time runs out (a quarter of `LEASE_MS` ahead) wait this long for each other, so that one
 * write renews them all.
 */
const RENEW_BATCH_MS = 50;

/** The most refusing aliases remembered at once (limiter.remember). */
const MAX_REMEMBERED = 10_000;

export interface LimiterDeps {
  store: BucketStore;
  clock: Clock;
}

/** Builds the limiter over a shared bucket store. */
export function createLimiter({ store, clock }: LimiterDeps): Limiter {
  const leases = new Map<string, Lease>();
  /** Aliases of refusing buckets (see `remember`): few, each dropped once its bucket serves again. */
  const refused = new Map<string, string>();
  /** Work off the requests' path (returns, claims in advance), waited for by `close`. */
  const background = new Set<Promise<void>>();
  /** Leases to claim in advance, all in the next step (`claimAhead`). */
  const ahead = new Map<string, Lease>();
  /** The step that claims them: after the current answers, or with the renewals of the next moments. */
  let soon: ReturnType<typeof setImmediate> | undefined;
  let renewal: ReturnType<typeof setTimeout> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const track = (work: Promise<void>) => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };

  /** The shared bucket's level now, as this process last saw it, refilled since. */
  const sharedNow = (l: Lease, now: number) => levelAt({ level: l.shared, at: l.at }, l.rule, now);

  /** The tokens of a lease that may still be spent. */
  const usable = (l: Lease, now: number) => (now < l.until ? l.tokens : 0);

  /** A bucket's state as this process sees it: its lease and the shared bucket, never above the burst. */
  const state = (l: Lease, now: number, allowed: boolean) =>
    stateOf(Math.min(l.rule.burst * UNIT, usable(l, now) * UNIT + sharedNow(l, now)), l.rule, now, allowed);

  /**
   * Gives back tokens not spent; a failure loses only early refills. Not waited for. (A lease that expired and is
   * claimed anew gives its tokens back in the claim's own step instead: `stale`.)
   */
  const giveBack = (returns: Return[], now: number) => {
    if (returns.length === 0) return;
    track(store.give(returns, now).catch(() => undefined));
  };

  /**
   * Takes out of a lease the tokens that can no longer be spent, to be given back by the next claim in the same step
   * (the bucket and the new lease together then never hold more than the burst); the lease is then empty. A claim that
   * fails loses them, as a failed give-back would: early refills only.
   */
  const stale = (l: Lease, now: number): number => {
    if (l.tokens === 0 || now < l.until) return 0;
    const n = l.tokens;
    l.tokens = 0;
    return n;
  };

  /** A lease's tokens that can no longer be spent, given back now; the lease is then empty. */
  const expire = (key: string, l: Lease, now: number) => {
    const n = stale(l, now);
    if (n > 0) giveBack([{ key, rule: l.rule, n }], now);
  };

  /** Gives back the leases idle for `LEASE_IDLE_MS`, and forgets them. */
  const sweep = () => {
    const now = clock().getTime();
    const returns: Return[] = [];
    for (const [key, l] of leases) {
      if (l.claiming || now - l.usedAt < LEASE_IDLE_MS) continue;
      if (l.tokens > 0) returns.push({ key, rule: l.rule, n: l.tokens });
      leases.delete(key);
    }
    giveBack(returns, now);
    if (leases.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  /**
   * Takes what a claim granted into its lease, beside what it still holds: a claim asks only for what tops the lease
   * up to one claim's worth (`claimAhead`), so a lease never holds more, however often it is renewed. A claim that
   * granted nothing leaves the lease as it is, and says when the shared bucket will hold a token again.
   */
  const granted = (key: string, l: Lease, now: number, result: { granted: number; level: number }) => {
    expire(key, l, now);
    l.shared = result.level;
    l.at = now;
    if (result.granted > 0) {
      l.tokens += result.granted;
      l.until = now + LEASE_MS;
      l.retryAt = 0;
    } else {
      l.retryAt = now + Math.ceil((UNIT - result.level) / l.rule.perMinute);
    }
  };

  /**
   * Claims a lease's worth of tokens into `l` now, on the request's path (at most one claim at a time per bucket), and
   * spends one of them for the request that claimed as soon as the grant is taken into the lease, before any other
   * request's turn: whether it got one. (Spent later, a request of the same bucket whose turn came in between could
   * take it, and the claimant be refused a token its own claim was granted.) The requests that wait for the claim
   * (`l.claiming`) fail with it when it fails, rather than each trying again in turn while the store is down. The
   * tokens of an expired lease, and `replaced` (those of the lease a plan change replaced), go back in the same step.
   */
  const claimNow = (key: string, l: Lease, now: number, replaced = 0): Promise<boolean> => {
    const back = stale(l, now) + replaced;
    const claiming = store.claim(key, l.rule, now, leaseSize(l.rule), back).then((r) => {
      granted(key, l, now, r);
      if (l.tokens < 1) return false;
      l.tokens--;
      return true;
    });
    // Cleared in the claim's first reaction, before the claimant's continuation and the waiters' turns.
    const waited = claiming.then(
      () => {
        l.claiming = undefined;
      },
      (err: unknown) => {
        l.claiming = undefined;
        throw err;
      },
    );
    // Reported by the claimant (and any request that waited): not an unhandled rejection when none waited.
    waited.catch(() => undefined);
    l.claiming = waited;
    return claiming;
  };

  /** Claims the next leases of every bucket that asked, in one step of the store, after the current answers. */
  const claimAhead = () => {
    if (soon) clearImmediate(soon);
    if (renewal) clearTimeout(renewal);
    soon = undefined;
    renewal = undefined;
    const now = clock().getTime();
    const batch: [key: string, lease: Lease, want: number, back: number][] = [];
    for (const [key, l] of ahead) {
      if (closed || l.claiming || leases.get(key) !== l) continue;
      const want = leaseSize(l.rule) - usable(l, now);
      // A lease still full but about to expire: its time is renewed (it holds no more than one claim's worth).
      if (want <= 0) l.until = now + LEASE_MS;
      else batch.push([key, l, want, stale(l, now)]);
    }
    ahead.clear();
    if (batch.length === 0) return;
    const claims: Claim[] = batch.map(([key, l, want, back]) => ({ key, rule: l.rule, want, back }));
    const claiming = store.claimMany(claims, now).then(
      (results) => {
        batch.forEach(([key, l], i) => {
          granted(key, l, now, results[i] as { granted: number; level: number });
        });
      },
      // Claimed again on a request's path when needed; that request reports the store's failure.
      () => undefined,
    );
    const done = claiming.finally(() => {
      for (const [, l] of batch) l.claiming = undefined;
    });
    for (const [, l] of batch) l.claiming = done;
    track(done);
  };

  /**
   * Asks for the bucket's next lease before this one runs out (or expires), claimed off the request's path: after the
   * current answers when its tokens run low, else (its time running out) with the other renewals of the next
   * `RENEW_BATCH_MS` — one write for the renewals of many buckets, however many buckets a server serves.
   */
  const claimSoon = (key: string, l: Lease, low: boolean) => {
    if (l.claiming) return;
    if (low && !soon) {
      soon = setImmediate(claimAhead);
    } else if (!low && !soon && !renewal) {
      renewal = setTimeout(claimAhead, RENEW_BATCH_MS);
      renewal.unref();
    }
    ahead.set(key, l);
  };

  const spend = (key: string, rule: RateRule): LimitState | Promise<LimitState> => {
    const now = clock().getTime();
    let l = leases.get(key);
    /** Tokens of a lease under another rule, given back in the step that claims the bucket anew. */
    let replaced = 0;
    if (l && l.rule !== rule) {
      // The organization's plan changed: once a claim under way has landed, the lease goes back, and the bucket is
      // claimed anew under the new rule, in one step (the new rule's refill and burst apply, as for any step).
      if (l.claiming) return l.claiming.then(() => spend(key, rule));
      replaced = l.tokens;
      leases.delete(key);
      l = undefined;
    }
    if (l) {
      l.usedAt = now;
      if (usable(l, now) >= 1) {
        l.tokens--;
        const size = leaseSize(rule);
        if (size > 1 && l.tokens <= size / 2) claimSoon(key, l, true);
        else if (size > 1 && l.until - now <= LEASE_MS / 4) claimSoon(key, l, false);
        return state(l, now, true);
      }
      if (l.claiming || now < l.retryAt) {
        expire(key, l, now);
        if (l.claiming) return l.claiming.then(() => spend(key, rule));
        return state(l, now, false);
      }
      // Claimed below, an expired lease's tokens given back in the same step.
    } else {
      l = { rule, tokens: 0, until: now, shared: 0, at: now, retryAt: 0, usedAt: now, claiming: undefined };
      leases.set(key, l);
      sweeper ??= setInterval(sweep, LEASE_IDLE_MS).unref();
    }
    const lease = l;
    return claimNow(key, lease, now, replaced).then((served) => state(lease, now, served));
  };

  const peek = (key: string, rule: RateRule): LimitState | Promise<LimitState> => {
    const now = clock().getTime();
    const l = leases.get(key);
    if (l && l.rule === rule && !l.claiming) {
      if (usable(l, now) >= 1) return state(l, now, true);
      if (now < l.retryAt) return state(l, now, false);
    }
    return store.get(key).then((b) => {
      const held = l && l.rule === rule ? usable(l, now) : 0;
      const level = Math.min(rule.burst * UNIT, levelAt(b, rule, now) + held * UNIT);
      return stateOf(level, rule, now, level >= UNIT);
    });
  };

  return {
    spend,
    peek,
    remember(alias, key) {
      // Bounded whatever the traffic: each entry lives a few seconds at most, and a flood of aliases starts over.
      if (refused.size >= MAX_REMEMBERED) refused.clear();
      refused.set(alias, key);
    },
    refusing(aliasOf) {
      if (refused.size === 0) return undefined;
      const alias = aliasOf();
      const key = refused.get(alias);
      if (key === undefined) return undefined;
      const l = leases.get(key);
      const now = clock().getTime();
      if (l && !l.claiming && usable(l, now) < 1 && now < l.retryAt) return state(l, now, false);
      refused.delete(alias);
      return undefined;
    },
    async close() {
      closed = true;
      if (sweeper) clearInterval(sweeper);
      if (soon) clearImmediate(soon);
      if (renewal) clearTimeout(renewal);
      await Promise.allSettled([...leases.values()].map((l) => l.claiming));
      const now = clock().getTime();
      const returns: Return[] = [];
      for (const [key, l] of leases) if (l.tokens > 0) returns.push({ key, rule: l.rule, n: l.tokens });
      leases.clear();
      giveBack(returns, now);
      await Promise.all(background);
      await store.close();
    },
  };
}
