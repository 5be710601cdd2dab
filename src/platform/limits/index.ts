import type { Plan } from '../../contract/organizations.js';
import type { Clock } from '../clock.js';
import { bucketsFilePath, sqliteBucketStore } from '../store/limits.js';
import { createLimiter, type Limiter } from './limiter.js';
import { memoryBucketStore } from './memory-store.js';

export type { Limiter } from './limiter.js';
export { type RequestLimits, rateLimits } from './middleware.js';
export { chargeFailedSignIn, rateLimitedError, signInBudget } from './sign-in.js';

/** The rate-limit switches of `createPlatform`. */
export interface LimitsOptions {
  /** Off for local development; on by default. */
  enabled?: boolean;
  /**
   * Where buckets live. `sqlite` (the default for a database file): a file beside it, `<db>.limits`, so that every
   * process using the database shares one budget. `memory`: this process only (the default, and the only choice, for
   * `:memory:`).
   */
  store?: 'memory' | 'sqlite';
}

/** The limiter a platform over `dbPath` uses, or undefined when limits are off. */
export function openLimiter(
  dbPath: string,
  opts: LimitsOptions,
  deps: { clock: Clock; planOf(orgId: string): Promise<Plan | undefined> },
): Limiter | undefined {
  if (opts.enabled === false) return undefined;
  const inMemory = dbPath === ':memory:' || dbPath === '';
  const store =
    (opts.store ?? 'sqlite') === 'sqlite' && !inMemory
      ? sqliteBucketStore(bucketsFilePath(dbPath))
      : memoryBucketStore();
  return createLimiter({ store, ...deps });
}
