import type { Bucket } from './bucket.js';
import { type BucketStep, type BucketStore, IDLE_MS, SWEEP_EVERY, steppedBucketStore } from './store.js';

/** Buckets in this process's memory: for one `plat serve` process, or a `:memory:` database. */
export function memoryBucketStore(): BucketStore {
  const buckets = new Map<string, Bucket>();
  let writes = 0;
  const sweep = (now: number) => {
    for (const [key, b] of buckets) if (now - b.at >= IDLE_MS) buckets.delete(key);
  };
  return steppedBucketStore({
    get: (key) => buckets.get(key),
    update<T>(key: string, now: number, step: BucketStep<T>): T {
      // One thread and no await between read and write: this is already atomic.
      const { next, result } = step(buckets.get(key));
      if (next) {
        buckets.set(key, next);
        if (++writes % SWEEP_EVERY === 0) sweep(now);
      }
      return result;
    },
    close: () => buckets.clear(),
  });
}
