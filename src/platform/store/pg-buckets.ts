import { sql } from 'kysely';
import type { RateRule } from '../../contract/limits.js';
import { type Bucket, levelAt, UNIT } from '../limits/bucket.js';
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
 * Buckets in the platform's PostgreSQL database (table `buckets`), shared by every server on it. Each claim
 * is one `INSERT … ON CONFLICT DO UPDATE`: PostgreSQL locks the bucket's row and computes the new level from its
 * latest version, so concurrent servers never claim the same token and never lose one. `q` is the database itself,
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
  /**
   * Takes exactly `n` tokens in one statement, or none: a bucket never stored is full, and is stored with the tokens
   * taken; a stored one is updated only when it holds `n` (with the `back` tokens of an expired lease given back
   * first, never above the burst), else PostgreSQL leaves it and returns no row. The level after, or undefined when
   * refused.
   */
  const takeExactly = async (key: string, rule: RateRule, now: number, n: number, back: number) => {
    const level =
      back > 0
        ? sql<number>`least(${rule.burst * UNIT}::float8, ${refilled(rule, now)} + ${back * UNIT})`
        : refilled(rule, now);
    const { rows } = await sql<Row>`
      INSERT INTO buckets AS b (key, level, at) VALUES (${key}, ${rule.burst * UNIT - n * UNIT}, ${now})
      ON CONFLICT (key) DO UPDATE SET level = ${level} - ${n * UNIT}, at = greatest(b.at, ${now}::bigint)
      WHERE ${level} >= ${n * UNIT}
      RETURNING level`.execute(q);
    const row = rows[0];
    if (!row) return undefined;
    wrote(now);
    return Number(row.level);
  };
  const store: BucketStore = {
    get,
    // One statement a bucket (a step holds the leases running low and the renewals of the last 50 ms), at once:
    // PostgreSQL keeps each atomic.
    claimMany: (claims, now) => Promise.all(claims.map((c) => store.claim(c.key, c.rule, now, c.want, c.back))),
    async claim(key, rule, now, want, back = 0) {
      // The whole lease when the bucket holds it (nearly always); else one token; else none. (Before PostgreSQL 18,
      // `RETURNING` cannot show what a row held before, so "as many as it holds" would take a read first.) Tokens given
      // back make it hold at least one: a claim with `back` is never refused, so its give-back is never left undone.
      const wanted = Math.min(want, rule.burst);
      for (const n of wanted > 1 ? [wanted, 1] : [1]) {
        const level = await takeExactly(key, rule, now, n, back);
        if (level !== undefined) return { granted: n, level };
      }
      // Refused, having taken nothing (decided by the statements above, on the locked row): the level is read from
      // the bucket as it is now, for the headers and the time of the next try.
      return { granted: 0, level: levelAt(await get(key), rule, now) };
    },
    async give(returns, now) {
      if (returns.length === 0) return;
      // One statement for them all: each bucket refilled to now, given its tokens, capped at its burst.
      const keys = returns.map((r) => r.key);
      const units = returns.map((r) => r.n * UNIT);
      const rates = returns.map((r) => r.rule.perMinute);
      const caps = returns.map((r) => r.rule.burst * UNIT);
      await sql`
        UPDATE buckets AS b SET
          level = least(g.cap::float8, b.level + greatest(0, ${now}::bigint - b.at) * g.rate + g.units),
          at = greatest(b.at, ${now}::bigint)
        FROM unnest(${keys}::text[], ${units}::bigint[], ${rates}::bigint[], ${caps}::bigint[])
          AS g(key, units, rate, cap)
        WHERE b.key = g.key`.execute(q);
    },
    // The database is the platform's to close; only a sweep under way is waited for.
    close: async () => {
      await sweeping;
    },
  };
  return store;
}
