import type { PgMigration } from './migration.js';

/**
 * Migration 10 on PostgreSQL: domains an organization proves it owns, as SQLite's migration 10 — the `domains` table,
 * and a `legacy` claim for each single sign-on domain saved before (`gen_random_uuid()`, built in since PostgreSQL
 * 13, gives the new ids and tokens their randomness).
 */
export const migration: PgMigration = {
  version: 10,
  name: 'domains',
  sql: `
CREATE TABLE domains (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  domain text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  token text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  verified_at text COLLATE "C",
  UNIQUE (org_id, domain)
);
CREATE UNIQUE INDEX domains_holder ON domains (domain) WHERE status IN ('verified', 'legacy');
CREATE INDEX domains_org ON domains (org_id, domain);
INSERT INTO domains (id, org_id, domain, status, token, created_at, verified_at)
  SELECT 'dom_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), d.org_id, d.domain, 'legacy',
    replace(gen_random_uuid()::text, '-', ''), c.created_at, NULL
  FROM sso_domains d JOIN sso_configs c ON c.org_id = d.org_id
  ORDER BY d.org_id, d.domain;
`,
};
