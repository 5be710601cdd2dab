import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { createPrivately } from './files.js';

/** An open better-sqlite3 database. */
export type Db = Database.Database;

/** Where better-sqlite3's install step puts its native addon (built, or downloaded prebuilt). */
const ADDON = 'better-sqlite3/build/Release/better_sqlite3.node';
let nativeBinding: string | undefined;

/**
 * Opens (creating it readable by its owner only) a SQLite file of the platform's, with a busy timeout so that several
 * processes sharing it wait instead of failing. better-sqlite3's addon is taken from where its install puts it rather
 * than found by the `bindings` package, which probes a dozen paths on every start (and cannot work from a bundle).
 * The bundle carries better-sqlite3's JavaScript, so package.json pins the exact version whose addon it loads.
 */
export function openSqlite(path: string): Db {
  if (nativeBinding === undefined) {
    try {
      nativeBinding = createRequire(import.meta.url).resolve(ADDON);
    } catch {
      throw new Error(
        `SQLite's native addon (${ADDON}) is missing: reinstall plat, or run \`npm rebuild better-sqlite3\``,
      );
    }
  }
  createPrivately(path);
  const db = new Database(path, { nativeBinding });
  db.pragma('busy_timeout = 5000');
  return db;
}
