import type { PgMigration } from './migration.js';

/** Migration 11 on PostgreSQL: directory sync's tables, as SQLite's migration 11. */
export const migration: PgMigration = {
  version: 11,
  name: 'scim',
  sql: `
CREATE TABLE scim_tokens (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text COLLATE "C" NOT NULL,
  token_hash text COLLATE "C" NOT NULL UNIQUE,
  created_at text COLLATE "C" NOT NULL,
  last_used_at text COLLATE "C"
);
CREATE INDEX scim_tokens_org ON scim_tokens (org_id, created_at, id);
`,
};
