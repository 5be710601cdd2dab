import type { Transaction } from 'kysely';
import type { Tables } from '../schema.js';
import type { SecretBox } from '../secret-box.js';
import type { Db } from '../sqlite.js';

/** What a migration's code may use besides the database. */
export interface MigrationEnv {
  /** Seals secrets with the key kept apart from the database (and records which key in `meta`). */
  secrets: SecretBox;
}

/**
 * One step of the SQLite schema's history, in a file of its own (`NNNN_name.sqlite.ts`): SQL run in one transaction,
 * then an optional step of code in the same one. Frozen once released, the code as much as the SQL. (Its name is
 * unqualified because the released files import it under this one.)
 */
export interface Migration {
  /** What `PRAGMA user_version` reads once it has run. */
  version: number;
  name: string;
  sql: string;
  /** What the SQL cannot do (generate a secret, seal one), in the migration's transaction. */
  after?: (db: Db, env: MigrationEnv) => void;
}

/**
 * One step of the PostgreSQL schema's history, in a file of its own (`NNNN_name.postgres.ts`, beside SQLite's of the
 * same id): SQL run in the migrations' transaction, then an optional step of code in the same one. Frozen once
 * released, the code as much as the SQL.
 */
export interface PgMigration {
  /** The id of the change, SQLite's too: what `schema_version.version` reads once it and those before have run. */
  version: number;
  name: string;
  sql: string;
  /** What the SQL cannot do (generate a secret, seal one), in the migrations' transaction `q`. */
  after?: (q: Transaction<Tables>, env: MigrationEnv) => Promise<void>;
}
