// The limiter's leases (src/platform/limits/limiter.ts, docs/rate-limits.md "What a request pays"): a served request
// spends tokens this process already holds, and the next lease is claimed off the request's path — for many buckets
// in one write of the store.
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../src/contract/limits.js';
import { fixedClock } from '../../../src/platform/clock.js';
import { UNIT } from '../../../src/platform/limits/bucket.js';
import { createLimiter, LEASE_MS, type Limiter, leaseSize } from '../../../src/platform/limits/limiter.js';
import { memoryBucketStore } from '../../../src/platform/limits/memory-store.js';
import type { BucketStore, Claim, Return } from '../../../src/platform/limits/store.js';

const RULE = PLAN_LIMITS.enterprise;
const limiters: Limiter[] = [];
afterEach(async () => {
  for (const l of limiters.splice(0)) await l.close();
});

/** The real in-memory store, with every claim and every give-back it is asked for written down. */
function countedStore(): { store: BucketStore; claims: Claim[][]; gives: Return[][] } {
  const inner = memoryBucketStore();
  const claims: Claim[][] = [];
  const gives: Return[][] = [];
  const store: BucketStore = {
    ...inner,
    give: (returns, now) => {
      gives.push([...returns]);
      return inner.give(returns, now);
    },
    claim: (key, rule, now, want, back) => {
      claims.push([{ key, rule, want, back }]);
      return inner.claim(key, rule, now, want, back);
    },
    claimMany: (batch, now) => {
      claims.push([...batch]);
      return inner.claimMany(batch, now);
    },
  };
  return { store, claims, gives };
}

function limiterOver(store: BucketStore, clock: ReturnType<typeof fixedClock>): Limiter {
  const limiter = createLimiter({ store, clock });
  limiters.push(limiter);
  return limiter;
}

/** Lets the limiter's work off the request path run (its next step, and the renewals' short wait). */
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('leases', () => {
  it('serve a bucket from memory after one claim, and renew the leases of many buckets in one write', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { store, claims } = countedStore();
    const limiter = limiterOver(store, clock);
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    for (const key of keys) expect((await limiter.spend(key, RULE)).allowed).toBe(true);
    // One claim a bucket, each on its first request's path.
    expect(claims).toHaveLength(keys.length);
    claims.length = 0;
    // More requests within the lease: no claim at all.
    for (let i = 0; i < 5; i++)
      for (const key of keys) expect(limiter.spend(key, RULE)).toMatchObject({ allowed: true });
    await settle(100);
    expect(claims).toHaveLength(0);
    // The leases' time runs out soon: the next request of each asks for a renewal — requests arriving one by one, as
    // they do — and all are claimed together.
    clock.advance(LEASE_MS - LEASE_MS / 8);
    for (const key of keys) {
      expect(limiter.spend(key, RULE)).toMatchObject({ allowed: true });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await settle(200);
    expect(claims).toHaveLength(1);
    expect(claims[0]?.map((c) => c.key).sort()).toEqual([...keys].sort());
    // Each asks only for what tops its lease up: the seven tokens spent.
    expect(claims[0]?.every((c) => c.want === 7)).toBe(true);
    // Renewed: past the old lease's end, its tokens are still spent from memory.
    clock.advance(LEASE_MS / 4);
    for (const key of keys) expect(limiter.spend(key, RULE)).toMatchObject({ allowed: true });
    expect(claims).toHaveLength(1);
  });

  it('claim the next lease of a bucket running low right after the answers, before it runs dry', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { store, claims } = countedStore();
    const limiter = limiterOver(store, clock);
    const size = leaseSize(RULE);
    expect((await limiter.spend('busy', RULE)).allowed).toBe(true);
    claims.length = 0;
    // Half the lease spent at once: the claim is asked for at the next step, not after the renewals' wait.
    for (let i = 1; i <= size / 2; i++) expect(limiter.spend('busy', RULE)).toMatchObject({ allowed: true });
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.resolve();
    expect(claims).toHaveLength(1);
    expect(claims[0]?.[0]).toMatchObject({ key: 'busy', want: size / 2 + 1 });
    // Spent on at that pace, the bucket is served from memory throughout: no request waits for a claim.
    for (let i = 0; i < 3 * size; i++) {
      const spent = limiter.spend('busy', RULE);
      expect(spent).not.toBeInstanceOf(Promise);
      expect(spent).toMatchObject({ allowed: true });
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it('serve the request whose claim was granted, whatever spends its bucket before the request resumes', async () => {
    // Free's leases are one token, claimed on each request's path. Another request of the same bucket whose turn comes
    // a few microtasks after the grant (its authentication just done) must not take the token the claim was for.
    const free = PLAN_LIMITS.free;
    expect(leaseSize(free)).toBe(1);
    for (let depth = 0; depth < 6; depth++) {
      const clock = fixedClock('2026-01-01T00:00:00.000Z');
      const inner = memoryBucketStore();
      let asked = false;
      let other: (spent: ReturnType<Limiter['spend']>) => void = () => {};
      const otherSpent = new Promise<ReturnType<Limiter['spend']>>((resolve) => {
        other = resolve;
      });
      const later = (n: number, fn: () => void): void => {
        if (n === 0) fn();
        else queueMicrotask(() => later(n - 1, fn));
      };
      const store: BucketStore = {
        ...inner,
        claim: (key, rule, now, want) =>
          inner.claim(key, rule, now, want).then((result) => {
            // The first claim's grant, then — `depth` microtasks later — a second request of the bucket.
            if (!asked) later(depth, () => other(limiter.spend(key, rule)));
            asked = true;
            return result;
          }),
      };
      const limiter = limiterOver(store, clock);
      const first = await limiter.spend('org:free', free);
      expect({ depth, allowed: first.allowed }).toEqual({ depth, allowed: true });
      // The bucket held ten tokens: the other request claims its own, and is served too.
      expect({ depth, allowed: (await otherSpent).allowed }).toEqual({ depth, allowed: true });
    }
  });

  it('fail the requests that waited for a claim that failed with its error, then claim anew', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const inner = memoryBucketStore();
    let failures = 1;
    let claimed = 0;
    const store: BucketStore = {
      ...inner,
      claim: (key, rule, now, want, back) => {
        claimed++;
        if (failures-- > 0) return Promise.reject(new Error('the bucket file is locked'));
        return inner.claim(key, rule, now, want, back);
      },
    };
    const limiter = limiterOver(store, clock);
    // Three requests of one bucket at once: one claim, whose failure each is answered with (no claim again in turn
    // while the store is down).
    const spent = Array.from({ length: 3 }, () => limiter.spend('org:free', PLAN_LIMITS.free));
    for (const s of spent) await expect(s).rejects.toThrow('the bucket file is locked');
    expect(claimed).toBe(1);
    // The store back, the next request claims anew and is served.
    expect((await limiter.spend('org:free', PLAN_LIMITS.free)).allowed).toBe(true);
    expect(claimed).toBe(2);
  });

  it('give back an expired lease in the same write as the claim that replaces it', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { store, claims, gives } = countedStore();
    const limiter = limiterOver(store, clock);
    const size = leaseSize(RULE);
    const start = clock().getTime();
    expect((await limiter.spend('sparse', RULE)).allowed).toBe(true);
    // Another process spends half the bucket meanwhile (so that what comes back shows in its level).
    await store.claim('sparse', RULE, start, RULE.burst / 2);
    // The lease's second runs out with no request in its last quarter: its other tokens are never spent.
    clock.advance(LEASE_MS + 1);
    claims.length = 0;
    expect((await limiter.spend('sparse', RULE)).allowed).toBe(true);
    // One step of the store: the claim, carrying what the old lease gives back; no give of its own.
    expect(claims).toEqual([[{ key: 'sparse', rule: RULE, want: size, back: size - 1 }]]);
    expect(gives).toEqual([]);
    // The bucket as give-then-claim leaves it: the two claims out, the old lease's unspent tokens back, a second's
    // refill, the new lease out.
    const refill = (LEASE_MS + 1) * RULE.perMinute;
    const tokens = RULE.burst - size - RULE.burst / 2 + (size - 1) - size;
    expect((await store.get('sparse'))?.level).toBe(tokens * UNIT + refill);
  });

  it('give back the lease of the plan before in the step that claims the bucket under the new one', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { store, claims, gives } = countedStore();
    const limiter = limiterOver(store, clock);
    const pro = PLAN_LIMITS.pro;
    // All but 50 tokens spent elsewhere; then a lease under Enterprise takes those 50, and one is spent.
    await store.claim('org:moved', RULE, clock().getTime(), RULE.burst - 50);
    expect((await limiter.spend('org:moved', RULE)).allowed).toBe(true);
    expect((await store.get('org:moved'))?.level).toBe(0);
    claims.length = 0;
    // Now on Pro: one claim under Pro carries the old lease's 49 tokens back; no give of its own.
    expect((await limiter.spend('org:moved', pro)).allowed).toBe(true);
    expect(claims).toEqual([[{ key: 'org:moved', rule: pro, want: leaseSize(pro), back: 49 }]]);
    expect(gives).toEqual([]);
    // What came back, less Pro's lease.
    expect((await store.get('org:moved'))?.level).toBe((49 - leaseSize(pro)) * UNIT);
  });

  it("claim a lease of one token on the request's path, holding nothing back from other processes", async () => {
    const free = PLAN_LIMITS.free; // a burst of 10, a token a second: leases of one token
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { store, claims } = countedStore();
    const limiter = limiterOver(store, clock);
    const next = () => new Promise((resolve) => setImmediate(resolve));
    // A burst, 100 ms apart: each request claims its token on its path, and nothing is claimed ahead, so the shared
    // bucket holds every token this process is not spending (three servers sharing a bucket of 10 would otherwise hold
    // back a token each).
    const start = clock().getTime();
    for (let i = 1; i <= 6; i++) {
      const spent = limiter.spend('burst', free);
      expect(spent).toBeInstanceOf(Promise);
      expect((await spent).allowed).toBe(true);
      await next();
      await settle(60);
      expect(claims).toHaveLength(i);
      const refilled = (clock().getTime() - start) * free.perMinute;
      expect((await store.get('burst'))?.level).toBe((free.burst - i) * UNIT + refilled);
      clock.advance(100);
    }
    // Never more than the bucket: 10 of 15 requests within 140 ms, the rest refused.
    const allowed: boolean[] = [];
    for (let i = 0; i < 15; i++) {
      allowed.push((await limiter.spend('flood', free)).allowed);
      await next();
      clock.advance(10);
    }
    expect(allowed.filter(Boolean)).toHaveLength(10);
    expect(allowed.slice(10)).toEqual([false, false, false, false, false]);
  });
});
