import { CompiledQuery } from 'kysely';
import type { SqlDb } from '../../src/platform/store/sql.js';
import { sqlOf } from './internals.js';

/** Whatever holds a platform's database: a `Platform` (its inside's), or a `BaseCtx`. */
type HasSql = { sql: SqlDb } | object;

/** The database `p` holds. */
function dbOf(p: HasSql): SqlDb {
  return 'sql' in p ? (p as { sql: SqlDb }).sql : sqlOf(p);
}

/** `?` placeholders as the backend writes them (`$1`, `$2`… on PostgreSQL). */
function placeholders(sql: SqlDb, text: string): string {
  if (sql.dialect === 'sqlite') return text;
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * Rows of raw SQL run on a platform's database, for tests that look beneath the API (what is stored, what is not).
 * `?` placeholders on either backend.
 */
export async function dbRows<R = Record<string, unknown>>(p: HasSql, text: string, ...params: unknown[]): Promise<R[]> {
  const sql = dbOf(p);
  const result = await sql.q.executeQuery<R>(CompiledQuery.raw(placeholders(sql, text), params));
  return result.rows;
}

/** The first row of raw SQL, or undefined. */
export async function dbRow<R = Record<string, unknown>>(
  p: HasSql,
  text: string,
  ...params: unknown[]
): Promise<R | undefined> {
  return (await dbRows<R>(p, text, ...params))[0];
}

/** The first column of each row of raw SQL. */
export async function dbColumn<T = unknown>(p: HasSql, text: string, ...params: unknown[]): Promise<T[]> {
  return (await dbRows(p, text, ...params)).map((r) => Object.values(r)[0] as T);
}

/** Runs raw SQL that returns nothing (a test's own change beneath the API). */
export async function dbRun(p: HasSql, text: string, ...params: unknown[]): Promise<void> {
  const sql = dbOf(p);
  await sql.q.executeQuery(CompiledQuery.raw(placeholders(sql, text), params));
}

/** How many rows `table` holds (optionally `WHERE …` with `?` parameters). */
export async function dbCount(p: HasSql, table: string, where = '', ...params: unknown[]): Promise<number> {
  const r = await dbRow<{ n: number | string }>(p, `SELECT count(*) AS n FROM ${table} ${where}`, ...params);
  return Number(r?.n ?? 0);
}
