import type { Bucket } from '../limits/bucket.js';
import { type BucketStep, type BucketStore, IDLE_MS, SWEEP_EVERY, steppedBucketStore } from '../limits/store.js';
import { removeDatabaseFiles } from './files.js';
import { type Db, openSqlite } from './sqlite.js';

/** The bucket file's layout; a file of another version is a disposable cache and is simply rebuilt. */
const BUCKETS_VERSION = 1;
const BUCKETS_SCHEMA = `
DROP TABLE IF EXISTS buckets;
CREATE TABLE buckets (
  key TEXT PRIMARY KEY,
  level INTEGER NOT NULL,
  at INTEGER NOT NULL
) WITHOUT ROWID;`;

/** The bucket file beside a database file. */
export function bucketsFilePath(dbPath: string): string {
  return `${dbPath}.limits`;
}

/** An open bucket file and its statements. */
type Buckets = ReturnType<typeof bucketsOf>;

/**
 * Opens (creating if needed) the bucket file, with its statements; closes it again if any of that fails. It is a
 * disposable cache, and an embedded `plat` command opens it, writes one bucket and closes it every time, so it is kept
 * as cheaply as SQLite allows: the rollback journal in memory and no fsync (`journal_mode=MEMORY`, `synchronous=OFF`)
 * — no journal or WAL file created and removed, no flush to the disk. Processes still exclude each other through
 * SQLite's file locks, so two of them never spend the same token. What that gives up is the file's integrity after a
 * crash in the middle of a write: a damaged file is removed and started anew (see `sqliteBucketStore`), which only
 * refills the buckets early. Separate from the main database so that every request's bucket write never queues behind
 * (or holds up) the platform's own writers.
 */
function openBucketsFile(path: string): Buckets {
  const db = openSqlite(path);
  try {
    // A file left in WAL mode by an earlier plat stays so while another process has it open; it works either way.
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    if ((db.pragma('user_version', { simple: true }) as number) !== BUCKETS_VERSION) {
      db.transaction(() => {
        // Re-read inside the write lock: another process may have set the file up meanwhile.
        if ((db.pragma('user_version', { simple: true }) as number) === BUCKETS_VERSION) return;
        db.exec(BUCKETS_SCHEMA);
        db.pragma(`user_version = ${BUCKETS_VERSION}`);
      }).immediate();
    }
    return bucketsOf(db);
  } catch (err) {
    db.close();
    throw err;
  }
}

/** SQLite's answer for a file that is not (or no longer) a sound database. */
function isDamaged(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** The statements of an open bucket file. */
function bucketsOf(db: Db) {
  const get = db.prepare<[string], Bucket>('SELECT level, at FROM buckets WHERE key = ?');
  const put = db.prepare<[{ key: string; level: number; at: number }]>(
    'INSERT INTO buckets (key, level, at) VALUES (@key, @level, @at) ON CONFLICT (key) DO UPDATE SET level = excluded.level, at = excluded.at',
  );
  const sweep = db.prepare<[number]>('DELETE FROM buckets WHERE at <= ?');
  let writes = 0;
  const update = db.transaction((steps: readonly { key: string; step: BucketStep<unknown> }[], now: number) =>
    steps.map(({ key, step }) => {
      const { next, result } = step(get.get(key));
      if (next) {
        put.run({ key, level: next.level, at: next.at });
        if (++writes % SWEEP_EVERY === 0) sweep.run(now - IDLE_MS);
      }
      return result;
    }),
  );
  return { db, get, update };
}

/**
 * Buckets in a SQLite file at `path` shared by every process that opens it: each update (a claim, or the return of
 * several leases' tokens) is one `BEGIN IMMEDIATE`.
 * A damaged file, found when opening it or at any read or write, is removed and created anew, and the operation run
 * again on the new one (a bucket step is a pure function of the bucket, so running it twice is safe). A process that
 * still has the old file open goes on with it until it reopens the file: budgets are split until then, never wrong.
 */
export function sqliteBucketStore(path: string): BucketStore {
  let file: Buckets | undefined;
  /** Runs `op` on the file (opening it if need be), and once more on a new file if that one turns out damaged. */
  const withFile = <T>(op: (f: Buckets) => T): T => {
    try {
      file ??= openBucketsFile(path);
      return op(file);
    } catch (err) {
      if (!isDamaged(err)) throw err;
      file?.db.close();
      file = undefined;
      removeDatabaseFiles(path);
      file = openBucketsFile(path);
      return op(file);
    }
  };
  // Opened now, so that a file that cannot be opened fails the platform's start, not its first request.
  withFile(() => undefined);
  return steppedBucketStore({
    get: (key) => withFile((f) => f.get.get(key)),
    update: <T>(steps: readonly { key: string; step: BucketStep<T> }[], now: number) =>
      withFile((f) => f.update.immediate(steps, now) as T[]),
    close: () => file?.db.close(),
  });
}
