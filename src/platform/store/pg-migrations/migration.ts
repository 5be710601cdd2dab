import type { Transaction } from 'kysely';
import type { MigrationEnv } from '../migrations/migration.js';
import type { Tables } from '../schema.js';

export type { MigrationEnv } from '../migrations/migration.js';

/**
 * One step of the PostgreSQL schema's history, in a file of its own (`NNNN_name.ts`): SQL run in the migrations'
 * transaction, then an optional step of code in the same one. Frozen once released, the code as much as the SQL.
 */
export interface PgMigration {
  /** What `schema_version.version` reads once it has run. */
  version: number;
  name: string;
  sql: string;
  /** What the SQL cannot do (generate a secret, seal one), in the migrations' transaction `q`. */
  after?: (q: Transaction<Tables>, env: MigrationEnv) => Promise<void>;
}
