import { createHmac, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  type CursorPagination,
  type OffsetPagination,
  type PagingQuery,
  PER_PAGE_DEFAULT,
} from '../../contract/common.js';
import { PlatformError } from '../errors.js';
import type { Db } from './db.js';

/** Filter and sort values of a listing, as carried inside its cursor. */
export type Filters = Record<string, string | number | boolean | null>;

/** How one request pages: by page number, or after a keyset position. */
export type Listing =
  | { mode: 'offset'; page: number; perPage: number; filters: Filters }
  | { mode: 'cursor'; limit: number; after: SortPosition | null; filters: Filters };

/** The sort value and id of the last record a cursor page returned. */
export type SortPosition = [value: string | number | null, id: string];

function badParam(field: string, message: string): PlatformError {
  return new PlatformError('invalid_request', `${field}: ${message}`, { details: [{ field, message }] });
}

/** Signs and checks cursors with the instance's secret, scoped to one listing (say `users:org_123`). */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  private sign(scope: string, payload: string): string {
    return createHmac('sha256', this.secret)
      .update(scope)
      .update('\0')
      .update(payload)
      .digest('base64url')
      .slice(0, 22);
  }

  encode(scope: string, filters: Filters, position: SortPosition): string {
    const payload = Buffer.from(JSON.stringify({ f: filters, k: position })).toString('base64url');
    return `${payload}.${this.sign(scope, payload)}`;
  }

  decode(scope: string, cursor: string): { filters: Filters; position: SortPosition } {
    const [payload, sig, extra] = cursor.split('.');
    const expected = payload ? Buffer.from(this.sign(scope, payload)) : undefined;
    if (
      !payload ||
      !sig ||
      extra !== undefined ||
      !expected ||
      expected.length !== sig.length ||
      !timingSafeEqual(expected, Buffer.from(sig))
    ) {
      throw badParam('cursor', 'is not a cursor of this listing');
    }
    const { f, k } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { f: Filters; k: SortPosition };
    return { filters: f, position: k };
  }
}

/**
 * Decides how a list request pages (contract §3). `provided` holds the filter and sort parameters the request sent
 * (undefined when absent), `defaults` their values when absent. A cursor carries its own filters: a request that
 * sends a different one is refused, one that omits it continues the same listing.
 */
export function resolveListing(
  codec: CursorCodec,
  scope: string,
  query: PagingQuery,
  provided: Record<string, string | number | boolean | undefined>,
  defaults: Filters,
): Listing {
  const { page, per_page, cursor, limit } = query;
  if ((cursor !== undefined || limit !== undefined) && (page !== undefined || per_page !== undefined)) {
    throw badParam(page !== undefined ? 'page' : 'per_page', 'cannot be combined with cursor or limit');
  }
  if (cursor !== undefined) {
    const { filters, position } = codec.decode(scope, cursor);
    for (const [key, value] of Object.entries(provided)) {
      if (value !== undefined && filters[key] !== value) {
        throw badParam(key, 'differs from the listing the cursor belongs to');
      }
    }
    return { mode: 'cursor', limit: limit ?? PER_PAGE_DEFAULT, after: position, filters };
  }
  const filters: Filters = { ...defaults };
  for (const [key, value] of Object.entries(provided)) if (value !== undefined) filters[key] = value;
  if (limit !== undefined) return { mode: 'cursor', limit, after: null, filters };
  return { mode: 'offset', page: page ?? 1, perPage: per_page ?? PER_PAGE_DEFAULT, filters };
}

/** What a list query selects and how it orders. Expressions are trusted SQL written by the store. */
export interface ListSpec {
  /** `FROM … JOIN …` */
  from: string;
  /** A cheaper `FROM` for counting, when the joins of `from` cannot change the count (1:1 joins). */
  countFrom?: string;
  /** The columns to select. */
  columns: string;
  /** Conditions joined with AND, with their parameters in order. */
  where: string[];
  params: unknown[];
  /** The sort expression (with `COLLATE NOCASE` where wanted), the row property holding its value, and whether it can be null. */
  sort: { expr: string; key: string; nullable: boolean };
  order: 'asc' | 'desc';
  /** The unique tie-breaker expression and its row property. */
  id: { expr: string; key: string };
}

/** A listing of one table, newest first: `created_at` then `id`, both descending. */
export function newestFirst(table: string, where: string[], params: unknown[]): ListSpec {
  return {
    from: `FROM ${table}`,
    columns: '*',
    where,
    params,
    sort: { expr: 'created_at', key: 'created_at', nullable: false },
    order: 'desc',
    id: { expr: 'id', key: 'id' },
  };
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();
function prepared(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

/** `ORDER BY` for a spec: nulls last in both directions, ties broken on id in the same direction. */
function orderBy(spec: ListSpec): string {
  const dir = spec.order === 'asc' ? 'ASC' : 'DESC';
  const nulls = spec.sort.nullable ? `(${spec.sort.expr.replace(/ COLLATE NOCASE$/, '')} IS NULL), ` : '';
  return `ORDER BY ${nulls}${spec.sort.expr} ${dir}, ${spec.id.expr} ${dir}`;
}

/**
 * The keyset condition "strictly after `position`" in the spec's order. A non-null sort value starts with a plain range
 * on the sort expression (`sort >= ?`), which SQLite answers with a range scan of the listing's index (row values and
 * OR alone make it read the organization from its start): a deep page then costs what the first one does.
 */
function after(spec: ListSpec, position: SortPosition): { sql: string; params: unknown[] } {
  const [value, id] = position;
  const cmp = spec.order === 'asc' ? '>' : '<';
  const bare = spec.sort.expr.replace(/ COLLATE NOCASE$/, '');
  if (value === null) return { sql: `(${bare} IS NULL AND ${spec.id.expr} ${cmp} ?)`, params: [id] };
  const sort = spec.sort.expr;
  const nonNull = `(${sort} ${cmp} ? OR (${sort} = ? AND ${spec.id.expr} ${cmp} ?))`;
  if (!spec.sort.nullable) {
    return { sql: `${sort} ${cmp}= ? AND ${nonNull}`, params: [value, value, value, id] };
  }
  // Nulls come last in both directions: after a value come the greater (or smaller) values, then every null.
  return { sql: `((${bare} IS NOT NULL AND ${nonNull}) OR ${bare} IS NULL)`, params: [value, value, id] };
}

/** Runs a listing: one page of rows plus the pagination object of the mode the request chose. */
export function runList<Row extends Record<string, unknown>>(
  db: Db,
  spec: ListSpec,
  listing: Listing,
  nextCursor: (position: SortPosition) => string,
): { rows: Row[]; pagination: OffsetPagination | CursorPagination } {
  const where = spec.where.length ? `WHERE ${spec.where.join(' AND ')}` : '';
  if (listing.mode === 'offset') {
    const { n: total } = prepared(db, `SELECT count(*) AS n ${spec.countFrom ?? spec.from} ${where}`).get(
      ...spec.params,
    ) as {
      n: number;
    };
    const offset = (listing.page - 1) * listing.perPage;
    const rows = prepared(db, `SELECT ${spec.columns} ${spec.from} ${where} ${orderBy(spec)} LIMIT ? OFFSET ?`).all(
      ...spec.params,
      listing.perPage,
      offset,
    ) as Row[];
    const totalPages = Math.ceil(total / listing.perPage);
    return {
      rows,
      pagination: {
        total,
        page: listing.page,
        perPage: listing.perPage,
        totalPages,
        hasMore: listing.page < totalPages,
      },
    };
  }
  const conditions = [...spec.where];
  const params = [...spec.params];
  if (listing.after) {
    const k = after(spec, listing.after);
    conditions.push(k.sql);
    params.push(...k.params);
  }
  const w = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows = prepared(db, `SELECT ${spec.columns} ${spec.from} ${w} ${orderBy(spec)} LIMIT ?`).all(
    ...params,
    listing.limit + 1,
  ) as Row[];
  const hasMore = rows.length > listing.limit;
  if (hasMore) rows.length = listing.limit;
  const last = rows[rows.length - 1];
  const position: SortPosition | null = last
    ? [(last[spec.sort.key] ?? null) as string | number | null, String(last[spec.id.key])]
    : null;
  return {
    rows,
    pagination: { limit: listing.limit, nextCursor: hasMore && position ? nextCursor(position) : null, hasMore },
  };
}
