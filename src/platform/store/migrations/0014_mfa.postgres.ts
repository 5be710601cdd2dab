import type { PgMigration } from './migration.js';

/** Migration 14 on PostgreSQL: a second factor, as SQLite's migration 14. */
export const migration: PgMigration = {
  version: 14,
  name: 'mfa',
  sql: `
CREATE TABLE mfa_factors (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  secret text COLLATE "C",
  last_step bigint,
  credential_id text COLLATE "C",
  public_key text COLLATE "C",
  sign_count bigint,
  transports text COLLATE "C",
  backed_up integer,
  confirmed_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  last_used_at text COLLATE "C"
);
CREATE INDEX mfa_factors_account ON mfa_factors (account_id, created_at, id);
CREATE UNIQUE INDEX mfa_factors_credential ON mfa_factors (credential_id) WHERE credential_id IS NOT NULL;

CREATE TABLE mfa_recovery_codes (
  factor_id text COLLATE "C" NOT NULL REFERENCES mfa_factors(id) ON DELETE CASCADE,
  code_hash text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  PRIMARY KEY (factor_id, code_hash)
);

CREATE TABLE webauthn_challenges (
  challenge_hash text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C",
  purpose text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);

ALTER TABLE organizations ADD COLUMN mfa text COLLATE "C" NOT NULL DEFAULT 'optional';
ALTER TABLE sessions ADD COLUMN amr text COLLATE "C";
ALTER TABLE authorization_codes ADD COLUMN amr text COLLATE "C";
ALTER TABLE device_codes ADD COLUMN amr text COLLATE "C";
ALTER TABLE login_tickets ADD COLUMN stage text COLLATE "C" NOT NULL DEFAULT 'signed_in';
ALTER TABLE login_tickets ADD COLUMN amr text COLLATE "C";
ALTER TABLE login_tickets ADD COLUMN org_id text COLLATE "C";
`,
};
