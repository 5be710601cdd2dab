import type { Migration } from './migration.js';

/**
 * Migration 10: domains an organization proves it owns (docs/domains.md).
 * - `domains`: each organization's claims, `pending` until a DNS TXT record proves them (`verified`). One
 *   organization at most holds a domain `verified` or `legacy` (a partial unique index): the first to verify owns it.
 *   `token` is the random part of the record's value: public once published, so not sealed.
 * - The single sign-on domains of earlier releases were never proven: each becomes a `legacy` claim of its
 *   organization (`sso_domains` already gives a domain to one organization at most), so that single sign-on keeps
 *   routing its people as before, until it is verified — or until another organization verifies it and takes it.
 */
export const migration: Migration = {
  version: 10,
  name: 'domains',
  sql: `
CREATE TABLE domains (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  domain TEXT NOT NULL,
  status TEXT NOT NULL,
  token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  verified_at TEXT,
  UNIQUE (org_id, domain)
);
CREATE UNIQUE INDEX domains_holder ON domains (domain) WHERE status IN ('verified', 'legacy');
CREATE INDEX domains_org ON domains (org_id, domain);
INSERT INTO domains (id, org_id, domain, status, token, created_at, verified_at)
  SELECT 'dom_' || lower(hex(randomblob(10))), d.org_id, d.domain, 'legacy', lower(hex(randomblob(16))), c.created_at, NULL
  FROM sso_domains d JOIN sso_configs c ON c.org_id = d.org_id
  ORDER BY d.org_id, d.domain;
`,
};
