import type { Migration } from './migration.js';

/**
 * Migration 11: directory sync over SCIM 2.0 (docs/scim.md).
 * - `scim_tokens`: the bearer tokens identity providers provision an organization with, stored as the SHA-256 of
 *   their secret (256 random bits: a fast hash is enough), with when each was last used.
 */
export const migration: Migration = {
  version: 11,
  name: 'scim',
  sql: `
CREATE TABLE scim_tokens (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX scim_tokens_org ON scim_tokens (org_id, created_at, id);
`,
};
