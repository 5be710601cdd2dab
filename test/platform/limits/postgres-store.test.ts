import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANONYMOUS_LIMIT, AUTH_ENDPOINT_LIMITS, PLAN_LIMITS } from '../../../src/contract/limits.js';
import { type LimitState, peek } from '../../../src/platform/limits/bucket.js';
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
      op: fc.constantFrom('take', 'charge', 'peek'),
      key: fc.constantFrom('a', 'b'),
      // A plan may change between two requests; the bucket keeps what it holds.
      rule: fc.constantFrom(...RULES),
      // Another server's clock may lag: time can seem to go back a little.
      gap: fc.integer({ min: -500, max: 4000 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const prefix = `run${++run}:`;
        const memory = memoryBucketStore();
        const apply = async (s: BucketStore, op: string, key: string, rule: (typeof RULES)[number], now: number) =>
          op === 'peek'
            ? peek(await s.get(key), rule, now)
            : op === 'take'
              ? s.take(key, rule, now)
              : s.charge(key, rule, now);
        let now = T0;
        for (const [i, { op, key, rule, gap }] of steps.entries()) {
          now += gap;
          const pg = stores[i % 2] as BucketStore;
          const expected = await apply(memory, op, prefix + key, rule, now);
          expect(await apply(pg, op, prefix + key, rule, now)).toEqual(expected);
        }
        for (const key of ['a', 'b'])
          expect(await stores[0]?.get(prefix + key)).toEqual(await memory.get(prefix + key));
      }),
      { numRuns: 40 },
    );
  });

  it('spends exactly a bucket’s budget when two servers hammer one key at once, never a token twice', async () => {
    const rule = PLAN_LIMITS.enterprise; // a burst of 1,000, and a clock that stands still
    const stores = [pgBucketStore(db(one)), pgBucketStore(db(two))];
    const attempts = Array.from({ length: 1_600 }, (_, i) => (stores[i % 2] as BucketStore).take('race', rule, T0));
    const states: LimitState[] = await Promise.all(attempts);
    const allowed = states.filter((s) => s.allowed);
    expect(allowed).toHaveLength(1_000);
    // Each allowed take left a different level behind: 999 down to 0, each once.
    expect(allowed.map((s) => s.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    expect(states.filter((s) => !s.allowed).every((s) => s.remaining === 0 && s.retryAfter === 1)).toBe(true);
    expect(await stores[0]?.get('race')).toEqual({ level: 0, at: T0 });
  });

  it('charges concurrently without losing a charge, down to empty and no further', async () => {
    const rule = PLAN_LIMITS.pro; // a burst of 100
    const stores = [pgBucketStore(db(one)), pgBucketStore(db(two))];
    const charges = Array.from({ length: 60 }, (_, i) => (stores[i % 2] as BucketStore).charge('ip:x', rule, T0));
    const remaining = (await Promise.all(charges)).map((s) => s.remaining).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 40 + i));
    await Promise.all(Array.from({ length: 60 }, () => stores[1]?.charge('ip:x', rule, T0)));
    expect(await stores[0]?.get('ip:x')).toEqual({ level: 0, at: T0 });
  });

  it('sweeps only the buckets idle long enough to be full anyway', async () => {
    const s = pgBucketStore(db(one));
    const rule = PLAN_LIMITS.free;
    await s.take('idle', rule, T0);
    await s.take('recent', rule, T0 + 1);
    const later = T0 + IDLE_MS;
    for (let i = 0; i < SWEEP_EVERY - 3; i++) await s.take(`key:${i}`, rule, later);
    await s.close();
    expect(await s.get('idle')).toBeDefined();
    await s.take('key:0', rule, later);
    // The sweep runs beside the request that started it; closing waits for it.
    await s.close();
    expect(await s.get('idle')).toBeUndefined();
    expect(await s.get('recent')).toEqual({ level: 9 * 60_000, at: T0 + 1 });
    expect(await s.get('key:0')).toEqual({ level: 8 * 60_000, at: later });
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM buckets`.execute(db(two));
    expect(rows[0]?.n).toBe(SWEEP_EVERY - 2);
  });
});
