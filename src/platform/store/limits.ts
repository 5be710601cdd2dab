import type { Db } from './db.js';

/** Rate-limit buckets shared by every process that opens the database. */
export const SCHEMA = '';

/** Rate-limit buckets: their SQL in one place. */
export function limitsStore(_db: Db) {
  return {};
}
