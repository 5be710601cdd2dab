import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANONYMOUS_LIMIT, AUTH_ENDPOINT_LIMITS, PLAN_LIMITS, type RateRule } from '../../../src/contract/limits.js';
import { levelAt, peek, UNIT } from '../../../src/platform/limits/bucket.js';
import { memoryBucketStore } from '../../../src/platform/limits/memory-store.js';
import { type BucketStore, IDLE_MS, SWEEP_EVERY } from '../../../src/platform/limits/store.js';
import { pgBucketStore } from '../../../src/platform/store/pg-buckets.js';
import { type OpenPostgres, openPostgres } from '../../../src/platform/store/postgres.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const RULES = [...Object.values(PLAN_LIMITS), ...Object.values(AUTH_ENDPOINT_LIMITS), ANONYMOUS_LIMIT];

// Two pools on one database: stand-ins for two `plat serve` processes.
let server: TestPostgres | undefined;
let one: OpenPostgres | undefined;
let two: OpenPostgres | undefined;
beforeAll(async () => {
  server = await startPostgres();
  one = await openPostgres(server.url, { kind: 'memory' });
  two = await openPostgres(server.url, { kind: 'memory' });
}, 60_000);
afterAll(async () => {
  await one?.sql.close();
  await two?.sql.close();
  server?.stop();
});
beforeEach(async () => {
  await sql`DELETE FROM buckets`.execute(db(one));
});

function db(o: OpenPostgres | undefined) {
  if (!o) throw new Error('PostgreSQL did not start');
  return o.sql.q;
}

describe('the PostgreSQL bucket store', () => {
  it('answers as the memory store does, whichever server runs each step', async () => {
    const stores = [pgBucketStore(db(one)), pgBucketStore(db(two))];
    const step = fc.record({
      op: fc.constantFrom('claim', 'give', 'peek'),
      // A claim may carry an expired lease's tokens back in its own step.
      back: fc.constantFrom(0, 0, 1, 9, 99),
      key: fc.constantFrom('a', 'b'),
      // A plan may change between two requests; the bucket keeps what it holds.
      rule: fc.constantFrom(...RULES),
      // A lease of one token, or of a tenth of the burst (limiter.ts), or more than the bucket holds.
      n: fc.constantFrom(1, 2, 10, 100, 1_000),
      // Another server's clock may lag: time can seem to go back a little.
      gap: fc.integer({ min: -500, max: 4000 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const prefix = `run${++run}:`;
        const memory = memoryBucketStore();
        const apply = async (s: BucketStore, op: string, key: string, rule: RateRule, n: number, now: number) => {
          if (op === 'peek') return peek(await s.get(key), rule, now);
          if (op === 'give') return s.give([{ key, rule, n }], now);
          return s.claim(key, rule, now, n, back);
        };
        let back = 0;
        let now = T0;
        for (const [i, { op, key, rule, n, gap, back: returned }] of steps.entries()) {
          now += gap;
          back = returned;
          const pg = stores[i % 2] as BucketStore;
          // PostgreSQL grants the whole lease, or one token, or none; the memory store as many as there are, at most
          // `n`. Where the bucket holds two or more but fewer than `n`, the two differ by design: such a step is
          // left out (of both, so that they stay the same).
          const before = Math.min(rule.burst * UNIT, levelAt(await memory.get(prefix + key), rule, now) + back * UNIT);
          if (op === 'claim' && n > 1 && before < n * UNIT && before >= 2 * UNIT) continue;
          expect(await apply(pg, op, prefix + key, rule, n, now)).toEqual(
            await apply(memory, op, prefix + key, rule, n, now),
          );
        }
        for (const key of ['a', 'b'])
          expect(await stores[0]?.get(prefix + key)).toEqual(await memory.get(prefix + key));
      }),
      { numRuns: 40 },
    );
  });

  it('grants exactly a bucket’s budget when two servers claim one key at once, never a token twice', async () => {
    const rule = PLAN_LIMITS.enterprise; // a burst of 1,000, and a clock that stands still
    const stores = [pgBucketStore(db(one)), pgBucketStore(db(two))];
    const claims = Array.from({ length: 300 }, (_, i) => (stores[i % 2] as BucketStore).claim('race', rule, T0, 7));
    const granted = (await Promise.all(claims)).map((c) => c.granted);
    expect(granted.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(await stores[0]?.get('race')).toEqual({ level: 0, at: T0 });
  });

  it('takes back given tokens concurrently without losing any, up to the burst and no further', async () => {
    const rule = PLAN_LIMITS.pro; // a burst of 100
    const stores = [pgBucketStore(db(one)), pgBucketStore(db(two))];
    expect((await stores[0]?.claim('ip:x', rule, T0, 100))?.granted).toBe(100);
    await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 2]?.give([{ key: 'ip:x', rule, n: 1 }], T0)));
    expect(await stores[0]?.get('ip:x')).toEqual({ level: 60 * UNIT, at: T0 });
    await Promise.all(Array.from({ length: 60 }, () => stores[1]?.give([{ key: 'ip:x', rule, n: 1 }], T0)));
    expect(await stores[0]?.get('ip:x')).toEqual({ level: 100 * UNIT, at: T0 });
  });

  it('sweeps only the buckets idle long enough to be full anyway', async () => {
    const s = pgBucketStore(db(one));
    const rule = PLAN_LIMITS.free;
    await s.claim('idle', rule, T0, 1);
    await s.claim('recent', rule, T0 + 1, 1);
    const later = T0 + IDLE_MS;
    for (let i = 0; i < SWEEP_EVERY - 3; i++) await s.claim(`key:${i}`, rule, later, 1);
    await s.close();
    expect(await s.get('idle')).toBeDefined();
    await s.claim('key:0', rule, later, 1);
    // The sweep runs beside the request that started it; closing waits for it.
    await s.close();
    expect(await s.get('idle')).toBeUndefined();
    expect(await s.get('recent')).toEqual({ level: 9 * 60_000, at: T0 + 1 });
    expect(await s.get('key:0')).toEqual({ level: 8 * 60_000, at: later });
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM buckets`.execute(db(two));
    expect(rows[0]?.n).toBe(SWEEP_EVERY - 2);
  });
});
