import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../secret-box.js';
import type { Db } from '../sqlite.js';
import { sql as initial } from './0001_initial.js';
import { sql as eventProjects } from './0002_event_projects.js';
import { sealSecrets } from './0003_seal_secrets.js';

/** What a migration's code may use besides the database. */
export interface MigrationEnv {
  /** Seals secrets with the key kept apart from the database. */
  secrets: SecretBox;
}

/** One step of the schema's history: SQL run in one transaction, then an optional step of code in the same one. */
export interface Migration {
  /** What `PRAGMA user_version` reads once it has run. */
  version: number;
  name: string;
  sql: string;
  /** What the SQL cannot do (generate a secret, seal one), in the migration's transaction. Frozen like the SQL. */
  after?: (db: Db, env: MigrationEnv) => void;
}

/**
 * The schema's history, oldest first: migration N takes `PRAGMA user_version` from N-1 to N. A released migration is
 * frozen — its text is what every database of that release holds (test/platform/migrations.test.ts pins each one's
 * hash) — so a schema change is always a new migration appended here, in a file of its own.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: initial,
    after: (db) => {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('cursor_secret', randomBytes(32).toString('hex'));
    },
  },
  { version: 2, name: 'event_projects', sql: eventProjects },
  { version: 3, name: 'seal_secrets', sql: '', after: sealSecrets },
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
