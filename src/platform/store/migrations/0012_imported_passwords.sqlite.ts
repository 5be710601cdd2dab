import type { Migration } from './migration.js';

/**
 * Migration 12: whose password an account holds (docs/migrate.md). `accounts.password_imported_by` names the
 * organization whose import set the account's password (a hash brought from another system): a password the person has
 * not shown to be theirs to any other organization. Another organization that takes the account in (its SCIM, or an
 * invitation the person accepts, proving the e-mail) discards it. NULL: the person chose the password here (an
 * invitation, `plat local init`), or there is none.
 */
export const migration: Migration = {
  version: 12,
  name: 'imported_passwords',
  sql: `
ALTER TABLE accounts ADD COLUMN password_imported_by TEXT;
`,
};
