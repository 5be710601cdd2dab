import type { Bucket } from './bucket.js';
import { type BucketStore, IDLE_MS, SWEEP_EVERY, steppedBucketStore } from './store.js';

/** Buckets in this process's memory: for a `:memory:` database, or limits asked to stay in one process. */
export function memoryBucketStore(): BucketStore {
  const buckets = new Map<string, Bucket>();
  let writes = 0;
  const sweep = (now: number) => {
    for (const [key, b] of buckets) if (now - b.at >= IDLE_MS) buckets.delete(key);
  };
  return steppedBucketStore({
    get: (key) => buckets.get(key),
    update(steps, now) {
      // One thread and no await between read and write: this is already atomic.
      return steps.map(({ key, step }) => {
        const { next, result } = step(buckets.get(key));
        if (next) {
          buckets.set(key, next);
          if (++writes % SWEEP_EVERY === 0) sweep(now);
        }
        return result;
      });
    },
    close: () => buckets.clear(),
  });
}
