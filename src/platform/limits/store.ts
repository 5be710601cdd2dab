import type { RateRule } from '../../contract/limits.js';
import { type Bucket, charge, type LimitState, type StepResult, take } from './bucket.js';

/**
 * Where buckets live. Each operation names what it does to a bucket (not how), so that a store can run it as one
 * atomic step of its own: a JS step in this process's memory or in a SQLite transaction, one SQL statement on
 * PostgreSQL. Atomic against every other user of the same store (other processes and servers included for the shared
 * ones), so two requests never spend the same token and none is lost.
 */
export interface BucketStore {
  /** Reads a bucket; undefined when never used (or pruned), which means full. */
  get(key: string): Promise<Bucket | undefined>;
  /** `take` of bucket.ts on the stored bucket at `now`: one token if there is one; a refusal takes nothing. */
  take(key: string, rule: RateRule, now: number): Promise<LimitState>;
  /** `charge` of bucket.ts on the stored bucket at `now`: one token whether or not there is one, down to empty. */
  charge(key: string, rule: RateRule, now: number): Promise<LimitState>;
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

/** A store that runs a JS step atomically and synchronously: this process's memory, or a SQLite file. */
export interface SteppedBuckets {
  get(key: string): Bucket | undefined;
  /** Runs `step` on the bucket and stores its `next`, atomically; `now` lets the store prune idle buckets. */
  update<T>(key: string, now: number, step: BucketStep<T>): T;
  close(): void;
}

/** The `BucketStore` over a stepped one: each operation is the step of bucket.ts of the same name. */
export function steppedBucketStore(buckets: SteppedBuckets): BucketStore {
  const run = (key: string, now: number, op: (prev: Bucket | undefined) => StepResult) =>
    buckets.update(key, now, (prev) => {
      const { next, state } = op(prev);
      return { next, result: state };
    });
  return {
    get: async (key) => buckets.get(key),
    take: async (key, rule, now) => run(key, now, (prev) => take(prev, rule, now)),
    charge: async (key, rule, now) => run(key, now, (prev) => charge(prev, rule, now)),
    close: async () => buckets.close(),
  };
}
