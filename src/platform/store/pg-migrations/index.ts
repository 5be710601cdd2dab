import { migration as initial } from './0001_initial.js';
import type { PgMigration } from './migration.js';

export type { MigrationEnv, PgMigration } from './migration.js';

/**
 * The PostgreSQL schema's history, oldest first: migration N takes `schema_version` from N-1 to N. Its own history,
 * apart from SQLite's (migration 1 is SQLite's 1 to 7 at once): a change to the schema is a new migration in each
 * folder, each bringing its backend to the same tables and columns. A released migration is frozen.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [initial];

/** The PostgreSQL schema version this code reads and writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
