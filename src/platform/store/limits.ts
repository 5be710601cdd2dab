import type { Bucket } from '../limits/bucket.js';
import { type BucketStep, type BucketStore, IDLE_MS, SWEEP_EVERY } from '../limits/store.js';
import { type Db, openSqlite } from './sqlite.js';

/**
 * The main database holds no buckets: they live in a file of their own (see `openBucketsFile`). The empty slot stays
 * so that migration 1 keeps its text.
 */
export const SCHEMA = '';

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

/**
 * Opens (creating if needed) the bucket file. WAL with `synchronous=NORMAL`: a commit costs no fsync, yet the file
 * never corrupts; a power cut may forget the last buckets' spending, which only refills them early — harmless,
 * unlike an fsync on every API request. Separate from the main database so that every request's bucket write never
 * queues behind (or holds up) the platform's own writers.
 */
export function openBucketsFile(path: string): Db {
  const db = openSqlite(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  if ((db.pragma('user_version', { simple: true }) as number) === BUCKETS_VERSION) return db;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have set the file up meanwhile.
    if ((db.pragma('user_version', { simple: true }) as number) === BUCKETS_VERSION) return;
    db.exec(BUCKETS_SCHEMA);
    db.pragma(`user_version = ${BUCKETS_VERSION}`);
  }).immediate();
  return db;
}

/** Buckets in a SQLite file shared by every process that opens it: each update is one `BEGIN IMMEDIATE`. */
export function sqliteBucketStore(db: Db): BucketStore {
  const get = db.prepare<[string], Bucket>('SELECT level, at FROM buckets WHERE key = ?');
  const put = db.prepare<[{ key: string; level: number; at: number }]>(
    'INSERT INTO buckets (key, level, at) VALUES (@key, @level, @at) ON CONFLICT (key) DO UPDATE SET level = excluded.level, at = excluded.at',
  );
  const sweep = db.prepare<[number]>('DELETE FROM buckets WHERE at <= ?');
  let writes = 0;
  const update = db.transaction((key: string, now: number, step: BucketStep<unknown>): unknown => {
    const { next, result } = step(get.get(key));
    if (next) {
      put.run({ key, level: next.level, at: next.at });
      if (++writes % SWEEP_EVERY === 0) sweep.run(now - IDLE_MS);
    }
    return result;
  });
  return {
    get: (key) => get.get(key),
    update: <T>(key: string, now: number, step: BucketStep<T>) => update.immediate(key, now, step) as T,
    close: () => db.close(),
  };
}
