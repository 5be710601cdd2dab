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
  last_used_at text COLLATE "C",
  requests integer NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0,
  last_failure text COLLATE "C"
);
CREATE INDEX scim_tokens_org ON scim_tokens (org_id, created_at, id);
CREATE TABLE scim_resources (
  org_id text COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  kind text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  external_id text COLLATE "C",
  attributes text COLLATE "C" NOT NULL DEFAULT '{}',
  PRIMARY KEY (org_id, kind, id)
);
CREATE INDEX scim_resources_external ON scim_resources (org_id, kind, external_id);
`,
};
