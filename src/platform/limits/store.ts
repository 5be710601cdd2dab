import type { RateRule } from '../../contract/limits.js';
import { type Bucket, claim, giveBack } from './bucket.js';

/** A claim of up to `want` tokens of one bucket (a lease of limiter.ts). */
export interface Claim {
  key: string;
  rule: RateRule;
  want: number;
  /** Tokens of the bucket's expired lease, given back in the same step before the claim (`claim` of bucket.ts). */
  back?: number;
}

/** Tokens of one bucket to give back: claimed by a lease (limiter.ts) and not spent. */
export interface Return {
  key: string;
  rule: RateRule;
  n: number;
}

/**
 * Where buckets live, shared by every process that uses one database. Each operation names what it does to a bucket
 * (not how), so that a store can run it as one atomic step of its own: a JS step in this process's memory or in a
 * SQLite transaction, one SQL statement on PostgreSQL. Atomic against every other user of the same store (other
 * processes and servers included for the shared ones), so two claims never take the same token and none is lost.
 */
export interface BucketStore {
  /** Reads a bucket; undefined when never used (or pruned), which means full. */
  get(key: string): Promise<Bucket | undefined>;
  /**
   * `claim` of bucket.ts on the stored bucket at `now`: up to `want` tokens, after giving back `back` (an expired
   * lease's) in the same step; the number granted and the level after.
   */
  claim(
    key: string,
    rule: RateRule,
    now: number,
    want: number,
    back?: number,
  ): Promise<{ granted: number; level: number }>;
  /** `claim` for several buckets, in one step where the store can; the results in order. */
  claimMany(claims: readonly Claim[], now: number): Promise<{ granted: number; level: number }[]>;
  /** `giveBack` of bucket.ts for each bucket at `now`, all in one step where the store can. */
  give(returns: readonly Return[], now: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A bucket left alone this long is full under every rule (the slowest fill from empty in 30 s),
 * and a full bucket is the same as none: stores drop such rows without changing any answer.
 */
export const IDLE_MS = 60 * 60_000;

/** Stores sweep idle buckets once every this many writes, so the sweep's cost vanishes in the average. */
export const SWEEP_EVERY = 1_000;

/** One atomic step on a bucket: given what is stored, what to store instead (undefined: leave it) and a result. */
export type BucketStep<T> = (prev: Bucket | undefined) => { next: Bucket | undefined; result: T };

/** A store that runs JS steps atomically and synchronously: this process's memory, or a SQLite file. */
export interface SteppedBuckets {
  get(key: string): Bucket | undefined;
  /**
   * Runs each step on its bucket and stores its `next`, all atomically (one transaction); `now` lets the store prune
   * idle buckets. Returns the steps' results in order.
   */
  update<T>(steps: readonly { key: string; step: BucketStep<T> }[], now: number): T[];
  close(): void;
}

/** The `BucketStore` over a stepped one: each operation is the step of bucket.ts of the same name. */
export function steppedBucketStore(buckets: SteppedBuckets): BucketStore {
  const claimMany = (claims: readonly Claim[], now: number) =>
    buckets.update(
      claims.map(({ key, rule, want, back }) => ({
        key,
        step: (prev: Bucket | undefined) => {
          const { next, granted, level } = claim(prev, rule, now, want, back);
          return { next, result: { granted, level } };
        },
      })),
      now,
    );
  return {
    get: async (key) => buckets.get(key),
    claim: async (key, rule, now, want, back) =>
      claimMany([{ key, rule, want, back }], now)[0] as { granted: number; level: number },
    claimMany: async (claims, now) => claimMany(claims, now),
    give: async (returns, now) => {
      if (returns.length === 0) return;
      buckets.update(
        returns.map(({ key, rule, n }) => ({
          key,
          // A bucket never stored (or pruned) is full: nothing to give back to.
          step: (prev) => ({ next: prev && giveBack(prev, rule, now, n), result: undefined }),
        })),
        now,
      );
    },
    close: async () => buckets.close(),
  };
}
