import type { Clock } from '../clock.js';
import { bucketsFilePath, sqliteBucketStore } from '../store/limits.js';
import { createLimiter, type Limiter } from './limiter.js';
import { memoryBucketStore } from './memory-store.js';
import type { BucketStore } from './store.js';

export type { LimitState } from './bucket.js';
export type { Limiter } from './limiter.js';
export { chargeFailedSignIn, rateLimitedError, signInBudget } from './sign-in.js';
export type { BucketStore } from './store.js';

/** The rate-limit switches of `createPlatform`. */
export interface LimitsOptions {
  /** Off for local development and for the embedded platform's own commands; on by default. */
  enabled?: boolean;
  /**
   * Where buckets are shared. `sqlite` (the default) shares them with every process using the database: for a
   * database file, in a file beside it, `<db>.limits`; for a database that brings its own bucket store (PostgreSQL),
   * in that store. `memory`: this process only (the default, and the only choice, for `:memory:`).
   */
  store?: 'memory' | 'sqlite';
}

/**
 * Where a limiter's buckets are shared: the path of the platform's SQLite database (`:memory:` for none), or the
 * bucket store of a database that keeps them itself (`{ buckets: pgBucketStore(q) }` on PostgreSQL).
 */
export type LimiterSource = string | { buckets: BucketStore };

/** The limiter a platform over `source` uses, or undefined when limits are off. It closes its store when closed. */
export function openLimiter(source: LimiterSource, opts: LimitsOptions, deps: { clock: Clock }): Limiter | undefined {
  if (opts.enabled === false) return undefined;
  return createLimiter({ store: bucketStore(source, opts.store ?? 'sqlite'), clock: deps.clock });
}

function bucketStore(source: LimiterSource, choice: 'memory' | 'sqlite'): BucketStore {
  if (choice === 'memory') return memoryBucketStore();
  if (typeof source !== 'string') return source.buckets;
  const inMemory = source === ':memory:' || source === '';
  return inMemory ? memoryBucketStore() : sqliteBucketStore(bucketsFilePath(source));
}
