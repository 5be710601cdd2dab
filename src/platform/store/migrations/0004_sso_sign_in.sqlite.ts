import type { Migration } from './migration.js';

/**
 * Migration 4: single sign-on that signs people in (docs/sso.md).
 * - `sso_configs` gains what the platform read from the identity provider when the configuration was saved (entity id,
 *   sign-in URL, signing certificates; the OIDC discovery document) and the settable `allow_idp_initiated` and
 *   `default_role`.
 * - `sso_domains`: each e-mail domain belongs to one organization at most (the sign-in page routes by it). Domains
 *   already configured twice keep their first organization (the older configuration); the other's list loses them.
 * - Configurations saved before now were never read from their identity provider, so none can sign anyone in yet:
 *   those enabled are disabled (an `sso.updated` event says so) until an owner saves or refreshes them.
 * - `sso_requests`: every sign-in sent to an identity provider, single-use and short-lived — a SAML AuthnRequest's ID
 *   (its response's `InResponseTo`) or an OIDC `state` — with what the sign-in continues (an authorization request, a
 *   device approval, a test) and, sealed, what must stay secret (the OIDC PKCE verifier and nonce).
 * - `sso_assertions`: the ids of the SAML assertions already used, until they expire (no replay).
 * - `sso_identities`: who an identity provider's subject (SAML NameID, OIDC `sub`) is in an organization.
 * - `sso_tests`: the outcome of `plat sso test` sign-ins (what the identity provider sent, or the check that failed),
 *   kept an hour for the CLI to read.
 * - `method` of a session, of the authorization code that opens it, and of a device approval: `password`, `device`,
 *   `saml` or `oidc`. Sessions of earlier sign-ins were opened by a password, or by a device approval (which the
 *   device codes still tell).
 */
export const migration: Migration = {
  version: 4,
  name: 'sso_sign_in',
  sql: `
ALTER TABLE sso_configs ADD COLUMN allow_idp_initiated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sso_configs ADD COLUMN default_role TEXT NOT NULL DEFAULT 'member';
ALTER TABLE sso_configs ADD COLUMN idp_entity_id TEXT;
ALTER TABLE sso_configs ADD COLUMN idp_sso_url TEXT;
ALTER TABLE sso_configs ADD COLUMN idp_certificates TEXT NOT NULL DEFAULT '[]';
ALTER TABLE sso_configs ADD COLUMN oidc_metadata TEXT;
ALTER TABLE sso_configs ADD COLUMN fetched_at TEXT;

CREATE TABLE sso_domains (
  domain TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX sso_domains_org ON sso_domains (org_id);
INSERT OR IGNORE INTO sso_domains (domain, org_id)
  SELECT lower(d.value), c.org_id FROM sso_configs c, json_each(c.domains) d ORDER BY c.created_at, c.org_id;
UPDATE sso_configs SET domains = (
  SELECT json_group_array(domain) FROM (SELECT domain FROM sso_domains d WHERE d.org_id = sso_configs.org_id ORDER BY domain)
);
INSERT INTO events (id, org_id, type, actor_type, actor_id, target_type, target_id, request_id, data, created_at)
  SELECT 'evt_' || lower(hex(randomblob(10))), org_id, 'sso.updated', 'system', 'upgrade', 'organization', org_id, NULL,
    '{"enabled":false,"reason":"saved before single sign-on read the identity provider: save or refresh it, then enable it"}',
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  FROM sso_configs WHERE enabled = 1;
UPDATE sso_configs SET enabled = 0 WHERE enabled = 1;

CREATE TABLE sso_requests (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  protocol TEXT NOT NULL,
  continuation TEXT NOT NULL,
  sealed TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX sso_requests_expiry ON sso_requests (expires_at);

CREATE TABLE sso_assertions (
  org_id TEXT NOT NULL,
  assertion_id TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (org_id, assertion_id)
) WITHOUT ROWID;
CREATE INDEX sso_assertions_expiry ON sso_assertions (expires_at);

CREATE TABLE sso_identities (
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  PRIMARY KEY (org_id, subject)
) WITHOUT ROWID;
CREATE INDEX sso_identities_user ON sso_identities (org_id, user_id);

CREATE TABLE sso_tests (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  result TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sso_tests_expiry ON sso_tests (expires_at);

ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'password';
UPDATE sessions SET method = 'device'
  WHERE id IN (SELECT session_id FROM device_codes WHERE session_id IS NOT NULL);
ALTER TABLE authorization_codes ADD COLUMN method TEXT NOT NULL DEFAULT 'password';
ALTER TABLE device_codes ADD COLUMN method TEXT;
`,
};
