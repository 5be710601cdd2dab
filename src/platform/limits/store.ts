import type { Bucket } from './bucket.js';

/** One atomic step on a bucket: given what is stored, what to store instead (undefined: leave it) and a result. */
export type BucketStep<T> = (prev: Bucket | undefined) => { next: Bucket | undefined; result: T };

/**
 * Where buckets live. `update` is atomic against every other user of the same store (other processes included
 * for the SQLite one), so two requests never spend the same token.
 */
export interface BucketStore {
  /** Reads a bucket; undefined when never used (or pruned), which means full. */
  get(key: string): Bucket | undefined;
  /** Runs `step` on the bucket and stores its `next`, atomically; `now` lets the store prune idle buckets. */
  update<T>(key: string, now: number, step: BucketStep<T>): T;
  close(): void;
}

/**
 * A bucket left alone this long is full under every rule (the slowest fill from empty in 30 s),
 * and a full bucket is the same as none: stores drop such rows without changing any answer.
 */
export const IDLE_MS = 60 * 60_000;

/** Stores sweep idle buckets once every this many writes, so the sweep's cost vanishes in the average. */
export const SWEEP_EVERY = 1_000;
