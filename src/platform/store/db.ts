import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

/** An open better-sqlite3 database. */
export type Db = Database.Database;

/**
 * Opens (creating if needed) the platform database: WAL so readers never block the writer, `synchronous=FULL` so a
 * committed write survives a power cut, a busy timeout so several processes sharing the file wait instead of failing,
 * then brings the schema up to date.
 */
export function openDatabase(path: string): Db {
  createPrivately(path);
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // SQLite's lower() and LIKE fold ASCII only; searches compare with JavaScript's Unicode case folding instead.
  db.function('casefold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
  migrate(db);
  return db;
}

/**
 * Creates a database file readable by its owner only (it holds signing keys and SSO secrets), before SQLite opens it:
 * SQLite gives its `-wal` and `-shm` files the database file's mode. An existing file keeps the mode it has.
 */
export function createPrivately(path: string): void {
  if (path === ':memory:' || path === '') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Applies every migration above `PRAGMA user_version`, each in one immediate transaction. */
export function migrate(db: Db): void {
  for (const [index, sql] of MIGRATIONS.entries()) {
    const version = index + 1;
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      if ((db.pragma('user_version', { simple: true }) as number) >= version) return;
      db.exec(sql);
      if (version === 1) {
        db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('cursor_secret', randomBytes(32).toString('hex'));
      }
      db.pragma(`user_version = ${version}`);
    }).immediate();
  }
}

/** A value from the `meta` table. */
export function readMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}
