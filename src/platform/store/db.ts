import { MIGRATIONS, type MigrationEnv, SCHEMA_VERSION } from './migrations/index.js';
import { type Db, openSqlite } from './sqlite.js';

export type { Db } from './sqlite.js';

/**
 * Opens (creating if needed) the platform database: WAL so readers never block the writer, `synchronous=FULL` so a
 * committed write survives a power cut (several processes may share it: see `openSqlite`), then brings the schema up
 * to date.
 */
export function openDatabase(path: string, env: MigrationEnv): Db {
  const db = openSqlite(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // SQLite's lower() and LIKE fold ASCII only; searches compare with JavaScript's Unicode case folding instead.
  db.function('casefold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
  try {
    migrate(db, env, path);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
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

/**
 * Brings the schema up to date: applies every migration above `PRAGMA user_version`, each in one immediate
 * transaction (all of it or nothing, and other processes wait). Refuses a database of a newer schema than this code
 * knows, before writing anything.
 */
export function migrate(db: Db, env: MigrationEnv, path = db.name): void {
  // The common case, an up-to-date file, costs one read and no write lock.
  const found = versionOf(db);
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(path, found);
  for (const migration of MIGRATIONS) {
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
}

/** A value from the `meta` table. */
export function readMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}
