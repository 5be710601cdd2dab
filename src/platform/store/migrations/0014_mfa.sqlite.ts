import type { Migration } from './migration.js';

/**
 * Migration 14: a second factor (docs/mfa.md).
 * - `mfa_factors`: an account's factors. TOTP: `secret` sealed (secret-box.ts: each code is checked against it) and
 *   `last_step`, the time step of the last code accepted (each code once); unconfirmed (`confirmed_at` NULL) until its
 *   first code. WebAuthn: the credential's id, COSE public key, signature counter, transports and backup state.
 *   Recovery codes: one row for the set, the codes in `mfa_recovery_codes`, hashed, each used once.
 * - `webauthn_challenges`: the challenges handed to browsers, hashed, single use, for a few minutes.
 * - `organizations.mfa`: the policy, `optional` or `required`.
 * - `amr` (RFC 8176, space-separated) on sessions, authorization codes and device approvals: how the person signed
 *   in, carried into every access token of the session; NULL on rows from before (read from `method`).
 * - `login_tickets.stage`, `amr`, `org_id`: the sign-in pages' steps after the password (the factor, enrolment, the
 *   organization), so that a ticket of an earlier step cannot skip a later one.
 */
export const migration: Migration = {
  version: 14,
  name: 'mfa',
  sql: `
CREATE TABLE mfa_factors (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  secret TEXT,
  last_step INTEGER,
  credential_id TEXT,
  public_key TEXT,
  sign_count INTEGER,
  transports TEXT,
  backed_up INTEGER,
  confirmed_at TEXT,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX mfa_factors_account ON mfa_factors (account_id, created_at, id);
CREATE UNIQUE INDEX mfa_factors_credential ON mfa_factors (credential_id) WHERE credential_id IS NOT NULL;

CREATE TABLE mfa_recovery_codes (
  factor_id TEXT NOT NULL REFERENCES mfa_factors(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at TEXT,
  PRIMARY KEY (factor_id, code_hash)
);

CREATE TABLE webauthn_challenges (
  challenge_hash TEXT PRIMARY KEY,
  account_id TEXT,
  purpose TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);

ALTER TABLE organizations ADD COLUMN mfa TEXT NOT NULL DEFAULT 'optional';
ALTER TABLE sessions ADD COLUMN amr TEXT;
ALTER TABLE authorization_codes ADD COLUMN amr TEXT;
ALTER TABLE device_codes ADD COLUMN amr TEXT;
ALTER TABLE login_tickets ADD COLUMN stage TEXT NOT NULL DEFAULT 'signed_in';
ALTER TABLE login_tickets ADD COLUMN amr TEXT;
ALTER TABLE login_tickets ADD COLUMN org_id TEXT;
`,
};
