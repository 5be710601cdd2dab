import { checkDatabaseFile, DatabaseFileError, databaseFileFailure } from './database-file.js';
import { type MigrationEnv, SCHEMA_VERSION, SQLITE_MIGRATIONS } from './migrations/index.js';
import { type KeyRecord, type SecretBox, type SecretKeySource, secretBox } from './secret-box.js';
import { type Db, openSqlite } from './sqlite.js';

export type { Db } from './sqlite.js';

/** The database and the box its secrets are sealed with. */
export interface OpenDatabase {
  db: Db;
  secrets: SecretBox;
}

/**
 * Opens (creating if needed) the platform database: WAL so readers never block the writer, `synchronous=FULL` so a
 * committed write survives a power cut (several processes may share it: see `openSqlite`), then brings the schema up
 * to date. A database of a newer schema is refused before anything is written to it. Its secrets are sealed with the
 * key of `keySource`, whose id the database records (`meta.secret_key_id`). A file that cannot be read or written,
 * or is not a plat database, is a `DatabaseFileError` naming it and why.
 */
export function openDatabase(path: string, keySource: SecretKeySource): OpenDatabase {
  let db: Db;
  try {
    if (path !== ':memory:') checkDatabaseFile(path);
    db = openSqlite(path);
  } catch (err) {
    throw databaseFileFailure(err, path, { errno: true });
  }
  try {
    const found = versionOf(db);
    if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(path, found);
    if (found === 0 && hasTables(db)) {
      throw new DatabaseFileError(path, 'it is not a plat database (a SQLite database of another application)');
    }
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Statement and savepoint journals (and the sorter's scratch) in memory rather than in temporary files: they hold
    // the pages one statement or savepoint changed, and on disk each of those pages cost a write (half of a large
    // import's system time).
    db.pragma('temp_store = MEMORY');
    // Checkpoints every 10,000 pages (40 MB of log) rather than SQLite's 1,000: a batch of a thousand users writes
    // some 8,000 pages, and a page the next batches write again is then copied into the database once, not each time
    // (a tenth off a large import, in `npm run bench -- bulk`). Closing the last connection still empties the log.
    db.pragma('wal_autocheckpoint = 10000');
    // SQLite's lower() and LIKE fold ASCII only; searches compare with JavaScript's Unicode lower case instead (under
    // the name of PostgreSQL's SQL function for the same, so that both run one SQL text: store/dialects.ts).
    db.function('plat_lower', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
    const secrets = secretBox(keySource, keyRecordOf(db));
    if (found < SCHEMA_VERSION) {
      // Mails an earlier release kept in clear, which migration 9 seals (see `scrubFreeSpace`).
      const clearMails =
        found > 0 && found < SEAL_OUTBOX && db.prepare('SELECT 1 FROM outbox LIMIT 1').get() !== undefined;
      migrate(db, { secrets }, path);
      if (clearMails) scrubFreeSpace(db);
    }
    return { db, secrets };
  } catch (err) {
    db.close();
    throw databaseFileFailure(err, path);
  }
}

/** Whether a database of schema version 0 holds anything: plat's first migration sets the version with its tables. */
const hasTables = (db: Db) => db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() !== undefined;

/** The migration that seals the outbox's mails (0009_seal_outbox). */
const SEAL_OUTBOX = 9;

/**
 * Rewrites the database file (`VACUUM`), then empties its write-ahead log, so that no free page keeps what migration 9
 * sealed (rows an earlier release rewrote, or moved, left their old bytes in pages SQLite then freed). Once, on the
 * upgrade; a database another process keeps busy meanwhile is left as it is.
 */
function scrubFreeSpace(db: Db): void {
  try {
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
  }
}

/** Where the database records the id of the key its secrets are sealed with. */
export function keyRecordOf(db: Db): KeyRecord {
  return {
    read: () => readMeta(db, 'secret_key_id'),
    write: (id) => void db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('secret_key_id', id),
  };
}

/** A database written by a newer plat: opening it is refused, so that nothing an older plat does can damage it. */
export class DatabaseTooNewError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
  ) {
    super(
      `${path} was written by a newer version of plat (schema version ${found}; this one knows up to ` +
        `${SCHEMA_VERSION}): upgrade plat to use it. Nothing was changed.`,
    );
    this.name = 'DatabaseTooNewError';
  }
}

const versionOf = (db: Db) => db.pragma('user_version', { simple: true }) as number;

/** How long a process waits for another one's migration (a long backfill) before giving up, instead of 5 s. */
const MIGRATION_BUSY_MS = 120_000;

/**
 * Applies every migration above `PRAGMA user_version`, each in one immediate transaction (all of it or nothing, and
 * other processes wait: several servers may start together). Refuses a database that a newer plat migrated meanwhile.
 */
function migrate(db: Db, env: MigrationEnv, path: string): void {
  const busy = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${MIGRATION_BUSY_MS}`);
  try {
    for (const migration of SQLITE_MIGRATIONS) {
      db.transaction(() => {
        // Re-read inside the write lock: another process may have migrated meanwhile (or a newer plat, since).
        const now = versionOf(db);
        if (now > SCHEMA_VERSION) throw new DatabaseTooNewError(path, now);
        if (now >= migration.version) return;
        db.exec(migration.sql);
        migration.after?.(db, env);
        db.pragma(`user_version = ${migration.version}`);
      }).immediate();
    }
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
}

/** A value from the `meta` table. */
export function readMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}
