import { closeSync, openSync } from 'node:fs';

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
