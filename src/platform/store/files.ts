import { closeSync, openSync, rmSync } from 'node:fs';

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

/** What SQLite may keep beside a database file: its rollback journal, or its WAL files. */
const SIDE_FILES = ['-journal', '-wal', '-shm'];

/** Removes a database file and whatever SQLite kept beside it; a file that is not there is no error. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Removes everything an embedded platform keeps for a database file: the database, the rate-limit buckets beside it
 * (`<db>.limits`), each with what SQLite kept beside it, and the key its secrets were sealed with (`<db>.key`).
 */
export function removePlatformFiles(path: string): void {
  removeDatabaseFiles(path);
  removeDatabaseFiles(`${path}.limits`);
  rmSync(`${path}.key`, { force: true });
}
