import { createHmac, timingSafeEqual } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import {
  type CursorPagination,
  type OffsetPagination,
  type PagingQuery,
  PER_PAGE_DEFAULT,
} from '../../contract/common.js';
import { PlatformError } from '../errors.js';
import { NOCASE } from './dialects.js';
import type { Dialect, Q } from './sql.js';

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
 * Decides how a list request pages (docs/api.md, "Pagination"). `provided` holds the filter and sort parameters the request sent
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

/**
 * What a list query selects and how it orders. Expressions are trusted SQL written by the store; each `?` in `where`
 * stands for the next of `params`, which are bound, never written into the SQL.
 */
export interface ListSpec {
  /** `FROM … JOIN …` */
  from: string;
  /**
   * A condition whose own index finds its rows better than the sort's index does (a search, on PostgreSQL's trigram
   * indexes), kept apart from `where`: its SQL (with `?`s), their parameters, and the alias of `from`, then one table.
   * Tested on each row of the sort's index walked in order, it would cost the whole table when its matches are rare, or
   * all lie far down; read from its own index, all its matches must be sorted even when a few rows of the walk would
   * have made the page. So a page walks a bounded stretch of the sort first (`WALK_FACTOR`) and, when that holds less
   * than a page, reads the matches in a subquery the planner keeps apart from the sort (`OFFSET 0`), then sorts them:
   * about what counting them costs. PostgreSQL only (SQLite takes no `OFFSET` without a `LIMIT`).
   */
  matches?: { sql: string; params: unknown[]; alias: string };
  /**
   * How many rows the whole listing holds (offset mode's `total`), when the store knows without counting them (a
   * count kept beside the table); otherwise the rows are counted.
   */
  total?: () => Promise<number>;
  /** The columns to select. */
  columns: string;
  /** Conditions joined with AND, with their parameters in order. */
  where: string[];
  params: unknown[];
  /**
   * The sort expression, the row property holding its value, and whether it can be null; for a sort by a key of a
   * column (`nocaseSort`), the column tested for null and the key of a bound value (SQL text with one `?`).
   */
  sort: { expr: string; key: string; nullable: boolean; column?: string; param?: string };
  order: 'asc' | 'desc';
  /** The unique tie-breaker expression and its row property. */
  id: { expr: string; key: string };
}

/** A sort by `column` compared as SQLite's `NOCASE` does, on either backend (store/dialects.ts). */
export function nocaseSort(dialect: Dialect, column: string, key: string, nullable: boolean): ListSpec['sort'] {
  const nocase = NOCASE[dialect];
  return { expr: nocase.key(column), key, nullable, column, param: nocase.param };
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

/**
 * How far a listing with `matches` walks its sort before it reads the matches instead: a hundred rows for each one up
 * to the end of the page sought (2,000 for a first page of 20, which matches of one row in a hundred fill), at most
 * 10,000 (some 20 ms on PostgreSQL, testing a search on each).
 */
const WALK_FACTOR = 100;
const WALK_MAX = 10_000;

/** A statement's parts: the conditions (joined with AND) and their parameters, in order. */
type Where = { sql: string[]; params: unknown[] };

const and = (w: Where, condition: string, ...params: unknown[]): Where => ({
  sql: [...w.sql, condition],
  params: [...w.params, ...params],
});

/**
 * SQL text in which each `?` stands for the next of `params`, as a query with those parameters bound (written in each
 * dialect's own way when compiled).
 */
export function withParams<R>(text: string, params: readonly unknown[]): RawBuilder<R> {
  const pieces = text.split('?');
  if (pieces.length !== params.length + 1) {
    throw new Error(`${pieces.length - 1} placeholders for ${params.length} parameters in: ${text}`);
  }
  const parts = pieces.flatMap((piece, i) => (i === 0 ? [sql.raw(piece)] : [params[i - 1], sql.raw(piece)]));
  return sql.join<R>(parts, sql.raw(''));
}

/**
 * How a listing reads, in the order it returns rows: for a sort that is never null, one part (the sort, then the id);
 * for one that can be null, the rows with a value in that order, then the rows without one by id alone — nulls last in
 * both directions, as the contract says. Each part is then a plain range of one index (the sort's, partial on the
 * value being there, or the table's key), which SQLite reads from where the page starts, and none of them needs an
 * index of its own for each direction.
 */
function partsOf(
  spec: ListSpec,
  where: Where,
): { valued: { where: Where; order: string }; nulls?: { where: Where; order: string } } {
  const dir = spec.order === 'asc' ? 'ASC' : 'DESC';
  const order = `ORDER BY ${spec.sort.expr} ${dir}, ${spec.id.expr} ${dir}`;
  if (!spec.sort.nullable) return { valued: { where, order } };
  const bare = spec.sort.column ?? spec.sort.expr;
  return {
    valued: { where: and(where, `${bare} IS NOT NULL`), order },
    nulls: { where: and(where, `${bare} IS NULL`), order: `ORDER BY ${spec.id.expr} ${dir}` },
  };
}

/**
 * The keyset condition "strictly after (value, id)" among rows with a value, in the spec's order. It starts with a plain
 * range on the sort expression (`sort >= ?`), which SQLite answers with a range scan of the listing's index (row
 * values and OR alone make it read the organization from its start): a deep page then costs what the first one does.
 */
function afterValue(spec: ListSpec, value: string | number, id: string): [string, ...unknown[]] {
  const cmp = spec.order === 'asc' ? '>' : '<';
  const sort = spec.sort.expr;
  const v = spec.sort.param ?? '?';
  return [
    `${sort} ${cmp}= ${v} AND (${sort} ${cmp} ${v} OR (${sort} = ${v} AND ${spec.id.expr} ${cmp} ?))`,
    value,
    value,
    value,
    id,
  ];
}

/** Runs a listing on `q`: one page of rows plus the pagination object of the mode the request chose. */
export async function runList<Row extends Record<string, unknown>>(
  q: Q,
  spec: ListSpec,
  listing: Listing,
  nextCursor: (position: SortPosition) => string,
): Promise<{ rows: Row[]; pagination: OffsetPagination | CursorPagination }> {
  const all: Where = { sql: spec.where, params: spec.params };
  const { valued, nulls } = partsOf(spec, all);
  const whereOf = (w: Where) => (w.sql.length ? `WHERE ${w.sql.join(' AND ')}` : '');
  const matches = spec.matches;
  const withMatches = (w: Where) => (matches ? and(w, matches.sql, ...matches.params) : w);
  const count = async (w: Where) => {
    const counted = withParams<{ n: number | string | bigint }>(
      `SELECT count(*) AS n ${spec.from} ${whereOf(withMatches(w))}`,
      withMatches(w).params,
    );
    const { rows } = await counted.execute(q);
    return Number(rows[0]?.n ?? 0);
  };
  /** A page of the rows of `from` (SQL text from `FROM` on, with `params`) in `order`. */
  const page = async (from: string, params: unknown[], order: string, limit: number, offset: number) => {
    const text = `SELECT ${spec.columns} ${from} ${order} LIMIT ? OFFSET ?`;
    return (await withParams<Row>(text, [...params, limit, offset]).execute(q)).rows;
  };
  const select = async ({ where, order }: { where: Where; order: string }, limit: number, offset = 0) => {
    if (!matches) return page(`${spec.from} ${whereOf(where)}`, where.params, order, limit, offset);
    const { alias } = matches;
    const stretch = Math.min(WALK_MAX, WALK_FACTOR * (offset + limit));
    const walk = `FROM (SELECT * ${spec.from} ${whereOf(where)} ${order} LIMIT ?) ${alias} WHERE ${matches.sql}`;
    const walked = await page(walk, [...where.params, stretch, ...matches.params], order, limit, offset);
    // A whole page within the stretch walked is the page: every row beyond it sorts after.
    if (walked.length === limit) return walked;
    const matched = withMatches(where);
    const apart = `FROM (SELECT * ${spec.from} ${whereOf(matched)} OFFSET 0) ${alias}`;
    return page(apart, matched.params, order, limit, offset);
  };

  if (listing.mode === 'offset') {
    const total = spec.total ? await spec.total() : await count(all);
    const offset = (listing.page - 1) * listing.perPage;
    const rows = await select(valued, listing.perPage, offset);
    if (nulls && rows.length < listing.perPage) {
      // The rows with a value end on this page (the nulls start at their first), or before it: then count them.
      const nullsOffset = rows.length > 0 ? 0 : offset - (await count(valued.where));
      rows.push(...(await select(nulls, listing.perPage - rows.length, Math.max(0, nullsOffset))));
    }
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

  // One row more than the page, to know whether there is a next one.
  const wanted = listing.limit + 1;
  const cmp = spec.order === 'asc' ? '>' : '<';
  const [value, id] = listing.after ?? [undefined, undefined];
  let rows: Row[] = [];
  if (value !== null) {
    const where = value === undefined ? valued.where : and(valued.where, ...afterValue(spec, value, id as string));
    rows = await select({ where, order: valued.order }, wanted);
  }
  if (nulls && rows.length < wanted) {
    const where = value === null ? and(nulls.where, `${spec.id.expr} ${cmp} ?`, id) : nulls.where;
    rows.push(...(await select({ where, order: nulls.order }, wanted - rows.length)));
  }
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
