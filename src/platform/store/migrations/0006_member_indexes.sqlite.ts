import type { Migration } from './migration.js';

/**
 * Migration 6: what each new member costs the indexes of `org_users`, cut for bulk provisioning.
 * - The search index (`org_users_search`) is kept up to date by the users store (store/users.ts, `searchUpkeep`)
 *   rather than by triggers on insert and rename, so that a batch of a thousand users writes it once: FTS5 writes what
 *   it holds to disk at every savepoint. The delete trigger stays: memberships also go when their organization does.
 *   (A row written to `org_users` by hand is then not searchable until the index is rebuilt.)
 * - Listings sorted by a value that can be null (name, last sign-in) read the rows with a value, then those without
 *   (store/paging.ts), so one index partial on the value being there serves both directions, in place of one index per
 *   direction that held every member: a new member, who has never signed in, is in none of the sign-in ones.
 *   Members without a name have an index of their own (few have none); those who never signed in are read in the
 *   order of the table's key.
 */
export const migration: Migration = {
  version: 6,
  name: 'member_indexes',
  sql: `
DROP TRIGGER org_users_search_insert;
DROP TRIGGER org_users_search_update;
DROP INDEX org_users_name_asc;
DROP INDEX org_users_name_desc;
DROP INDEX org_users_login_asc;
DROP INDEX org_users_login_desc;
CREATE INDEX org_users_name ON org_users (org_id, name COLLATE NOCASE, user_id) WHERE name IS NOT NULL;
CREATE INDEX org_users_unnamed ON org_users (org_id, user_id) WHERE name IS NULL;
CREATE INDEX org_users_login ON org_users (org_id, last_login_at, user_id) WHERE last_login_at IS NOT NULL;
`,
};
