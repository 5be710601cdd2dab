import * as z from 'zod';
import { PAGE_MAX, PER_PAGE_MAX } from './limits.js';

/**
 * A schema built when first used, not when its module loads: every object schema of the contract (a record, a body,
 * a query, path parameters) is made with it; the small pieces many of them share (enums, timestamps, names, paging)
 * are built at once. A command validates a few schemas of some 640, and each costs its start (~23 heap objects):
 * building them all when the modules load makes `plat users list` start about 4 % slower (`npm run bench`). The
 * OpenAPI document is the same either way: it builds them all.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}

/** ISO 8601 UTC timestamp with milliseconds and `Z`. */
export const timestampSchema = z.string().meta({ format: 'date-time', example: '2026-01-02T03:04:05.678Z' });
export const nullableTimestampSchema = timestampSchema.nullable();

/** The offset pagination object (docs/api.md, "Pagination"). */
export const offsetPaginationSchema = lazySchema(() =>
  z.object({
    total: z.number().int(),
    page: z.number().int(),
    perPage: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  }),
).meta({ id: 'Pagination' });
export type OffsetPagination = z.infer<typeof offsetPaginationSchema>;

/** The cursor pagination object (docs/api.md, "Pagination"). */
export const cursorPaginationSchema = lazySchema(() =>
  z.object({ limit: z.number().int(), nextCursor: z.string().nullable(), hasMore: z.boolean() }),
).meta({ id: 'CursorPagination' });
export type CursorPagination = z.infer<typeof cursorPaginationSchema>;

/** The response schemas of paginated lists, which the client walks page by page (`listAll`). */
const PAGED = new WeakSet<z.ZodType>();
/** Whether a response schema is a paginated list's. */
export const isPagedList = (schema: z.ZodType | undefined): boolean => schema !== undefined && PAGED.has(schema);

function paged<S extends z.ZodType>(schema: S): S {
  PAGED.add(schema);
  return schema;
}

/** A paginated list of `item`: offset pagination by default, cursor pagination when `cursor` or `limit` was sent. */
export function listSchema<T extends z.ZodType>(item: T) {
  return paged(
    lazySchema(() =>
      z.object({ data: z.array(item), pagination: z.union([offsetPaginationSchema, cursorPaginationSchema]) }),
    ),
  );
}
/** A list paginated by cursor only (the audit log). */
export function cursorListSchema<T extends z.ZodType>(item: T) {
  return paged(lazySchema(() => z.object({ data: z.array(item), pagination: cursorPaginationSchema })));
}
/** A list that is not paginated (small, bounded collections such as a project's environments). */
export function plainListSchema<T extends z.ZodType>(item: T) {
  return lazySchema(() => z.object({ data: z.array(item) }));
}
export type List<T> = { data: T[]; pagination: OffsetPagination | CursorPagination };

/** The bounds of each query-string integer (`intParam`): what the OpenAPI document says it is. */
const intParams = new WeakMap<z.ZodType, { minimum: number; maximum: number }>();

/** A query-string integer's bounds, or undefined for any other schema. */
export function intParamBounds(schema: z.ZodType): { minimum: number; maximum: number } | undefined {
  return intParams.get(schema);
}

/** A query-string integer: digits only, within bounds. */
export function intParam(min: number, max: number) {
  const schema = z
    .string()
    .regex(/^\d{1,9}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
  intParams.set(schema, { minimum: min, maximum: max });
  return schema;
}

export { PER_PAGE_DEFAULT, PER_PAGE_MAX } from './limits.js';

/** Paging parameters shared by every paginated list (docs/api.md, "Pagination"). */
export const pagingQueryShape = {
  page: intParam(1, PAGE_MAX).optional(),
  per_page: intParam(1, PER_PAGE_MAX).optional(),
  cursor: z.string().min(1).max(2000).optional(),
  limit: intParam(1, PER_PAGE_MAX).optional(),
};
export type PagingQuery = { page?: number; per_page?: number; cursor?: string; limit?: number };

export const orderSchema = z.enum(['asc', 'desc']);
/** A search term: up to 200 characters, no control characters (SQLite's full-text MATCH stops at a NUL). */
export const searchParam = z
  .string()
  .max(200)
  .refine((s) => ![...s].some((c) => c < ' ' || c === '\u007f'), 'must not contain control characters');

/** Free-form key/value metadata as stored: at most 50 keys, keys ≤ 40 characters, string values ≤ 500. */
export const metadataValueSchema = z.union([z.string().max(500), z.number(), z.boolean()]);
export const metadataSchema = z.record(z.string(), metadataValueSchema);
export const metadataPatchSchema = z
  .record(z.string().min(1).max(40), metadataValueSchema.nullable())
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

/** An identifier of the given kind (`user_…`). */
export function idParam(prefix: string) {
  return z
    .string()
    .max(100)
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9]+$`), `must be a ${prefix}_ identifier`);
}

/**
 * Characters that show nothing: controls, format characters (zero-width spaces and joiners, bidi overrides and
 * isolates, the BOM), separators, combining marks on their own, and the blank fillers of Hangul and Braille.
 */
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Z}\p{M}\s\u115F\u1160\u3164\uFFA0\u2800]*$/u;

/** A display name as accepted on writes: something a person can see (not only invisible characters), ≤ 100. */
export const nameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  // An empty name is min(1)'s to report, once.
  .refine((s) => s === '' || !INVISIBLE.test(s), 'must contain a visible character');

export const healthSchema = lazySchema(() =>
  z.object({ status: z.literal('ok'), version: z.string(), mode: z.enum(['live', 'sandbox']) }),
).meta({ id: 'Health' });
