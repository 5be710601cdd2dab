import { UsageError } from './errors.js';

/**
 * The embedded platform's PostgreSQL database, named by a URL (`--database-url`, `PLAT_DATABASE_URL`). Its password
 * is a secret like any other: it is never shown — messages, notices and `--json` output carry `maskDatabaseUrl`'s
 * form, and a URL that cannot be used is refused without being echoed.
 */

/** The two schemes PostgreSQL's URLs use (the platform's `isPostgresUrl` answers the same: a test keeps them so). */
const SCHEME = /^postgres(ql)?:\/\//i;

/** Whether `db` names a PostgreSQL database rather than a SQLite file. */
export function isDatabaseUrl(db: string): boolean {
  return SCHEME.test(db);
}

/** Query parameters that carry a secret (`password=…`, `sslpassword=…`): masked like the URL's own password. */
const SECRET_PARAMETER = /pass/i;

/**
 * Checks a PostgreSQL URL given by `source` (`--database-url`, `PLAT_DATABASE_URL`) and returns it as given. The
 * refusal (a usage error) names the source and never quotes the URL: it may hold a password.
 */
export function checkDatabaseUrl(raw: string, source: string): string {
  const expected = 'expected postgres://USER:PASSWORD@HOST:PORT/DATABASE';
  if (!isDatabaseUrl(raw)) {
    throw new UsageError(
      `${source} is not a PostgreSQL URL: ${expected} (a SQLite database file goes to --db instead)`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `${source} is not a valid URL: ${expected}, with special characters of the user name and password ` +
        'percent-encoded (%40 for @, %23 for #, %2F for /)',
    );
  }
  if (url.hash) throw new UsageError(`${source} cannot have a #fragment: ${expected}`);
  return raw;
}

/** The URL with its password (and any password parameter) replaced by `***`: the only form of it ever shown. */
export function maskDatabaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'a PostgreSQL URL';
  }
  if (url.password) url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(key)) url.searchParams.set(key, '***');
  }
  return url.href;
}

/** A database as it may be shown: a PostgreSQL URL masked, a file path as it is. */
export function shownDb(db: string): string {
  return isDatabaseUrl(db) ? maskDatabaseUrl(db) : db;
}

/**
 * What names a PostgreSQL database in a credential store account: `postgres://HOST:PORT/DATABASE`, without user name,
 * password or parameters — the key belongs to the platform in that database, whichever role connects to it.
 */
export function databaseKey(raw: string): string {
  const url = new URL(raw);
  const host = url.host || url.searchParams.get('host') || '';
  return `postgres://${host}${url.pathname}`;
}
