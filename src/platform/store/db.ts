import { randomBytes } from 'node:crypto';
import { MIGRATIONS } from './migrations.js';
import { type Db, openSqlite } from './sqlite.js';

export type { Db } from './sqlite.js';

/**
 * Opens (creating if needed) the platform database: WAL so readers never block the writer, `synchronous=FULL` so a
 * committed write survives a power cut (several processes may share it: see `openSqlite`), then brings the schema up
 * to date.
 */
export function openDatabase(path: string): Db {
  const db = openSqlite(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // SQLite's lower() and LIKE fold ASCII only; searches compare with JavaScript's Unicode case folding instead.
  db.function('casefold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
  migrate(db);
  return db;
}

/** Applies every migration above `PRAGMA user_version`, each in one immediate transaction. */
export function migrate(db: Db): void {
  // The common case, an up-to-date file, costs one read and no write lock.
  if ((db.pragma('user_version', { simple: true }) as number) >= MIGRATIONS.length) return;
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
