import type { PgMigration } from './migration.js';

/** Migration 12 on PostgreSQL: whose password an account holds, as SQLite's migration 12. */
export const migration: PgMigration = {
  version: 12,
  name: 'imported_passwords',
  sql: `
ALTER TABLE accounts ADD COLUMN password_imported_by text COLLATE "C";
`,
};
