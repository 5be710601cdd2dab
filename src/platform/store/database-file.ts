import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A database file the platform cannot use — one it cannot open, read or write, or one that is not a plat database —
 * told with its path and the reason, never as SQLite's bare message ("unable to open database file"), nor later as
 * an internal error of the first request that writes.
 */
export class DatabaseFileError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    opts: { cause?: unknown } = {},
  ) {
    super(`cannot use the database ${path}: ${reason}`, opts);
    this.name = 'DatabaseFileError';
  }
}

/** What errno says, without the call and path Node.js adds to its message: `permission denied (EACCES)`. */
function errnoReason(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  const described = /^[A-Z]+: ([^,]+)/.exec(message ?? '')?.[1];
  return described && code ? `${described} (${code})` : String(message ?? err);
}

/**
 * Refuses, before SQLite opens it, a database file the platform could read but not write (every request writes: an
 * API key's last use), could not read, or that is not a file. A missing file is for SQLite to create.
 */
export function checkDatabaseFile(path: string): void {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new DatabaseFileError(path, errnoReason(err), { cause: err });
  }
  if (stats.isDirectory()) throw new DatabaseFileError(path, 'it is a directory, not a database file');
  if (!stats.isFile()) throw new DatabaseFileError(path, 'it is not a regular file');
  for (const [mode, what] of [
    [constants.R_OK, 'read'],
    [constants.W_OK, 'written'],
  ] as const) {
    try {
      accessSync(path, mode);
    } catch (err) {
      throw new DatabaseFileError(path, `it cannot be ${what}: ${errnoReason(err)}`, { cause: err });
    }
  }
}

/** SQLite's failures that are about the file, not the program: by their extended code's family. */
const FILE_FAILURES: Record<string, string> = {
  SQLITE_CANTOPEN: 'SQLite cannot open it',
  SQLITE_NOTADB: 'it is not a plat database, nor any SQLite database',
  SQLITE_CORRUPT: 'it is damaged',
  SQLITE_READONLY: 'it cannot be written',
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'the disk failed to read or write it',
  SQLITE_PERM: 'permission denied',
  SQLITE_BUSY: 'another process holds it locked',
};

/**
 * A failure met while opening the database at `path`, as a `DatabaseFileError` when it is about the file: SQLite's
 * file-level errors, and with `errno` (while the file itself is created and opened) a system call's; any other error
 * as it is (the key file's own errors are not the database's).
 */
export function databaseFileFailure(err: unknown, path: string, opts: { errno?: boolean } = {}): unknown {
  if (err instanceof DatabaseFileError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  if (/^E[A-Z]+$/.test(code) && opts.errno) return new DatabaseFileError(path, errnoReason(err), { cause: err });
  const family = Object.keys(FILE_FAILURES).find((f) => code === f || code.startsWith(`${f}_`));
  if (!family) return err;
  let reason = `${FILE_FAILURES[family]} (${(err as Error).message}; ${code})`;
  if (family === 'SQLITE_CANTOPEN' || family === 'SQLITE_READONLY') reason += directoryHint(path);
  return new DatabaseFileError(path, reason, { cause: err });
}

/** SQLite keeps its write-ahead log beside the database: a directory it cannot write in is often the reason. */
function directoryHint(path: string): string {
  try {
    accessSync(dirname(path), constants.W_OK);
    return '';
  } catch {
    return `; SQLite keeps its journal beside the database, and its directory ${dirname(path)} cannot be written`;
  }
}
