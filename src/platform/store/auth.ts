import type { Db } from './db.js';

/** Sign-in: signing keys, authorization codes, refresh tokens, device codes, failed-attempt counters. */
export const SCHEMA = '';

/** Sign-in state: its SQL in one place. */
export function authStore(_db: Db) {
  return {};
}
