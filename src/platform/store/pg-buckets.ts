import { sql } from 'kysely';
import type { RateRule } from '../../contract/limits.js';
import { type Bucket, levelAt, stateOf, UNIT } from '../limits/bucket.js';
import { type BucketStore, IDLE_MS, SWEEP_EVERY } from '../limits/store.js';
import type { Q } from './sql.js';

/** A bucket as read back: `at` is a bigint, which a pool without plat's type parsers reads as a string. */
interface Row {
  level: number;
  at: number | string;
}

/**
 * The stored bucket `b` refilled to `now`: `levelAt` of bucket.ts in SQL (the rule's rate since its last update,
 * never backwards, capped at the burst). Every figure is an integer number of units, exact in a double.
 */
function refilled(rule: RateRule, now: number) {
  const elapsed = sql`greatest(0, ${now}::bigint - b.at)`;
  return sql<number>`least(${rule.burst * UNIT}::float8, b.level + ${elapsed} * ${rule.perMinute}::bigint)`;
}

/**
 * Buckets in the platform's PostgreSQL database (table `buckets`), shared by every server on it. Each take and charge
 * is one `INSERT … ON CONFLICT DO UPDATE`: PostgreSQL locks the bucket's row and computes the new level from its
 * latest version, so concurrent servers never spend the same token and never lose one. `q` is the database itself,
 * not a transaction: each operation commits at once. A rule's burst is at least one token.
 */
export function pgBucketStore(q: Q): BucketStore {
  let writes = 0;
  let sweeping: Promise<void> | undefined;
  /** Counts a write; every `SWEEP_EVERY`th starts a sweep of idle buckets, off the request's path. */
  const wrote = (now: number) => {
    if (++writes % SWEEP_EVERY !== 0 || sweeping) return;
    sweeping = sql`DELETE FROM buckets WHERE at <= ${now - IDLE_MS}::bigint`
      .execute(q)
      .then(
        () => undefined,
        // A sweep that fails loses nothing: idle buckets are full anyway, and the next sweep removes them.
        () => undefined,
      )
      .finally(() => {
        sweeping = undefined;
      });
  };
  const get = async (key: string): Promise<Bucket | undefined> => {
    const { rows } = await sql<Row>`SELECT level, at FROM buckets WHERE key = ${key}`.execute(q);
    const row = rows[0];
    return row && { level: Number(row.level), at: Number(row.at) };
  };
  return {
    get,
    async take(key, rule, now) {
      const level = refilled(rule, now);
      // A bucket never stored is full: it is stored with one token taken. A stored one is updated only when it holds
      // a token; otherwise PostgreSQL leaves it as it is and returns no row.
      const { rows } = await sql<Row>`
        INSERT INTO buckets AS b (key, level, at) VALUES (${key}, ${rule.burst * UNIT - UNIT}, ${now})
        ON CONFLICT (key) DO UPDATE SET level = ${level} - ${UNIT}, at = greatest(b.at, ${now}::bigint)
        WHERE ${level} >= ${UNIT}
        RETURNING level`.execute(q);
      const row = rows[0];
      if (row) {
        wrote(now);
        return stateOf(Number(row.level), rule, now, true);
      }
      // Refused, having taken nothing (decided by the statement above, on the locked row): the headers' figures are
      // read from the bucket as it is now, since before PostgreSQL 18 `RETURNING` shows only a row that was written.
      return stateOf(levelAt(await get(key), rule, now), rule, now, false);
    },
    async charge(key, rule, now) {
      const { rows } = await sql<Row>`
        INSERT INTO buckets AS b (key, level, at) VALUES (${key}, ${Math.max(0, rule.burst * UNIT - UNIT)}, ${now})
        ON CONFLICT (key) DO UPDATE
        SET level = greatest(0, ${refilled(rule, now)} - ${UNIT}), at = greatest(b.at, ${now}::bigint)
        RETURNING level`.execute(q);
      wrote(now);
      return stateOf(Number(rows[0]?.level), rule, now, true);
    },
    // The database is the platform's to close; only a sweep under way is waited for.
    close: async () => {
      await sweeping;
    },
  };
}
