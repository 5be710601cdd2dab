import { createRequire } from 'node:module';
import Database from 'better-sqlite3';

/** An open better-sqlite3 database. */
export type Db = Database.Database;

let nativeBinding: string | null | undefined;

/**
 * Opens a SQLite file with better-sqlite3, whose addon is taken from where better-sqlite3 builds it rather than found
 * by the `bindings` package, which probes a dozen paths on every start. When it is not there, better-sqlite3 looks
 * for it its own way.
 */
export function openSqlite(path: string): Db {
  if (nativeBinding === undefined) {
    try {
      nativeBinding = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      nativeBinding = null;
    }
  }
  return new Database(path, nativeBinding ? { nativeBinding } : {});
}
