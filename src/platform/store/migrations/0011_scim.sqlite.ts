import type { Migration } from './migration.js';

/**
 * Migration 11: directory sync over SCIM 2.0 (docs/scim.md).
 * - `scim_tokens`: the bearer tokens identity providers provision an organization with, stored as the SHA-256 of
 *   their secret (256 random bits: a fast hash is enough), with when each was last used, how many requests it made
 *   and how many failed, and the last failure (what `plat scim status` shows).
 * - `scim_resources`: what SCIM says of a member (`User`) or team (`Group`) that the platform's own records do not
 *   hold: the identity provider's `externalId`, and the attributes it sent (name parts, e-mails…) as JSON, so that
 *   it reads back what it wrote.
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
  last_used_at TEXT,
  requests INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  last_failure TEXT
);
CREATE INDEX scim_tokens_org ON scim_tokens (org_id, created_at, id);
CREATE TABLE scim_resources (
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  external_id TEXT,
  attributes TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (org_id, kind, id)
);
CREATE INDEX scim_resources_external ON scim_resources (org_id, kind, external_id);
`,
};
