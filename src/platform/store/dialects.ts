import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './sql.js';

/**
 * The few things the stores write differently on SQLite and PostgreSQL, in one place; everything else is one SQL text
 * both accept. Text is compared as SQLite compares it on both: by its bytes (PostgreSQL's columns are all
 * `COLLATE "C"`, see migrations/0007_member_counts.postgres.ts).
 */

/**
 * SQLite's `NOCASE`: equal when two texts differ only in the case of ASCII letters, ordered by their bytes once those
 * are lower-cased (so `É` sorts after `z`, and is not `é`). SQLite spells it as a collation; on PostgreSQL it is
 * `lower(…)` under "C", which folds ASCII letters alone, and which the PostgreSQL schema's indexes are built on.
 */
export interface NoCase {
  /** SQL text: the key `column` compares and sorts by. */
  key(column: string): string;
  /** SQL text with one `?`: the same key of a bound value, to compare with `key(column)`. */
  param: string;
}

export const NOCASE: Record<Dialect, NoCase> = {
  sqlite: { key: (column) => `${column} COLLATE NOCASE`, param: '?' },
  postgres: { key: (column) => `lower(${column})`, param: `lower(CAST(? AS text) COLLATE "C")` },
};

/** `column` equals `value` as SQLite's `NOCASE` compares (read by an index on the column's key on either backend). */
export function nocaseEquals(dialect: Dialect, column: string, value: string): RawBuilder<boolean> {
  return dialect === 'sqlite'
    ? sql<boolean>`${sql.ref(column)} = ${value} COLLATE NOCASE`
    : sql<boolean>`lower(${sql.ref(column)}) = lower(CAST(${value} AS text) COLLATE "C")`;
}

/**
 * SQL text: the strings of the JSON array `json` (SQL text: a column, or `?` for one bound parameter) as a table of
 * one column, `value`.
 */
export function jsonStrings(dialect: Dialect, json: string): string {
  return dialect === 'sqlite' ? `json_each(${json})` : `jsonb_array_elements_text(CAST(${json} AS jsonb))`;
}

/**
 * SQL text with one `?`: the JSON array of strings in `column` without the string bound to `?`, in order, written as
 * `JSON.stringify` writes it (`["a","b"]`, `[]` when none is left) on both backends.
 */
export function jsonArrayWithout(dialect: Dialect, column: string): string {
  return dialect === 'sqlite'
    ? `(SELECT json_group_array(value) FROM json_each(${column}) WHERE value != ?)`
    : `(SELECT coalesce('[' || string_agg(to_json(e.value)::text, ',' ORDER BY e.n) || ']', '[]')
        FROM jsonb_array_elements_text(CAST(${column} AS jsonb)) WITH ORDINALITY AS e(value, n) WHERE e.value <> ?)`;
}

/**
 * SQL text with one `?`: `expr` contains the substring bound to `?`, in any case (both lower-cased by Unicode's rules:
 * `plat_lower`, a function of the platform's own on either backend). Bind it with `containsPattern`. On PostgreSQL the
 * trigram indexes on `plat_lower(…)` answer it; on SQLite it is a scan.
 */
export const containsText = (expr: string): string => `plat_lower(${expr}) LIKE ? ESCAPE '\\'`;

/** The parameter of `containsText`: the substring lower-cased, its LIKE wildcards escaped, between `%`s. */
export const containsPattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
