import {
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { type MigrationEnv, PG_EARLIER_NUMBERING, PG_MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
import type { Tables } from './schema.js';
import { type KeyRecord, type SecretBox, type SecretKeySource, secretBox } from './secret-box.js';
import { inSavepoint, type Q, runTransaction, type SqlDb } from './sql.js';

/** The platform's PostgreSQL database and the box its secrets are sealed with. */
export interface OpenPostgres {
  sql: SqlDb;
  secrets: SecretBox;
}

/**
 * Connects to the platform's PostgreSQL database at `url` (a pool of connections) and brings its schema up to date:
 * every migration at once, in one transaction under an advisory lock, so that servers starting together wait for the
 * first and then find nothing to do. A database of a newer schema is refused and left as it was. Its secrets are
 * sealed with the key of `keySource`, whose id the database records (`meta.secret_key_id`).
 */
export async function openPostgres(url: string, keySource: SecretKeySource): Promise<OpenPostgres> {
  const types = new pg.TypeOverrides();
  // Counts (count(*) is a bigint), `org_users.seq` and sums read as numbers, as they do from SQLite: the platform's
  // never come near 2^53. Set on this pool only, not on pg's global parsers.
  types.setTypeParser(INT8, Number);
  types.setTypeParser(NUMERIC, Number);
  const pool = new pg.Pool({ connectionString: url, types, application_name: 'plat' });
  // An idle connection the server drops (a restart, a terminated backend) is reported here; unheard, the event would
  // end the process. The pool has already let that connection go: the next query opens another.
  pool.on('error', () => {});
  // A connection lent out has no such listener (the pool removes its own), and pg also emits 'error' for a connection
  // that ends under a query it has already failed: heard here, the query's own rejection is what reports it.
  pool.on('connect', (client) => client.on('error', () => {}));
  const writes = new WriteCounter();
  const q = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), plugins: [writes] });
  try {
    const record = pgKeyRecord(q);
    const secrets = secretBox(keySource, record);
    await migrate(q, { secrets }, record, describe(url));
    // A key given in the environment is recorded at once (a seal of nothing records it), not at the first secret:
    // `KeyRecord` is synchronous, so a server reads the record once and would not see another server's first write.
    if (keySource.kind === 'env' && record.read() === undefined) {
      secrets.seal('', 'meta.secret_key_id');
      await record.settled();
    }
    return { sql: postgresSql(q, writes, record), secrets };
  } catch (err) {
    await q.destroy();
    throw err;
  }
}

/** PostgreSQL's type ids of `bigint` and `numeric`. */
const INT8 = 20;
const NUMERIC = 1700;

/** The advisory lock the migrations run under: `platmigr` in ASCII, the same for every plat. */
const MIGRATION_LOCK = 8100956982412404594n;

/** The advisory lock every transaction of `SqlDb.tx` takes first: `platwrit` in ASCII, the same for every plat. */
const WRITE_LOCK = 8100956982580767092n;

/** A PostgreSQL database written by a newer plat: refused, so that nothing an older plat does can damage it. */
export class PostgresTooNewError extends Error {
  constructor(
    /** The database, without its credentials. */
    readonly where: string,
    readonly found: number,
  ) {
    super(
      `${where} was written by a newer version of plat (schema version ${found}; this one knows up to ` +
        `${SCHEMA_VERSION}): upgrade plat to use it. Nothing was changed.`,
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** The database of `url` as messages may name it: its name and host, never its credentials. */
function describe(url: string): string {
  try {
    const u = new URL(url);
    const name = decodeURIComponent(u.pathname.slice(1));
    return `the PostgreSQL database${name ? ` ${name}` : ''}${u.host ? ` at ${u.host}` : ''}`;
  } catch {
    return 'the PostgreSQL database';
  }
}

/**
 * Applies every migration above `schema_version` in one transaction, under the advisory lock that makes servers
 * starting together wait for each other; the version is read after the lock is held, so each finds what the one
 * before did. A version of PostgreSQL's earlier numbering is read as the id of the same schema, and recorded so.
 * Refuses (rolling back, so changing nothing) a database of a newer schema.
 */
async function migrate(q: Kysely<Tables>, env: MigrationEnv, record: PgKeyRecord, where: string): Promise<void> {
  await q.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.raw(String(MIGRATION_LOCK))})`.execute(trx);
    const recorded = await versionOf(trx);
    const found = PG_EARLIER_NUMBERING[recorded] ?? recorded;
    if (found > SCHEMA_VERSION) throw new PostgresTooNewError(where, found);
    if (found > 0) await record.load(trx);
    for (const migration of PG_MIGRATIONS) {
      if (migration.version <= found) continue;
      await sql.raw(migration.sql).execute(trx);
      await migration.after?.(trx, env);
    }
    if (recorded === 0) {
      await sql`CREATE TABLE schema_version (version integer NOT NULL)`.execute(trx);
      await sql`INSERT INTO schema_version (version) VALUES (${SCHEMA_VERSION})`.execute(trx);
    } else if (recorded !== SCHEMA_VERSION) {
      await sql`UPDATE schema_version SET version = ${SCHEMA_VERSION}`.execute(trx);
    }
  });
}

/** The schema version of the database: 0 for one plat never migrated. */
async function versionOf(q: Q): Promise<number> {
  const present = await sql<{ present: boolean }>`SELECT to_regclass('schema_version') IS NOT NULL AS present`.execute(
    q,
  );
  if (!present.rows[0]?.present) return 0;
  const { rows } = await sql<{ version: number }>`SELECT version FROM schema_version`.execute(q);
  return rows[0]?.version ?? 0;
}

/** The key record of a database on PostgreSQL, with what the synchronous `KeyRecord` cannot do in its calls. */
interface PgKeyRecord extends KeyRecord {
  /** Reads the recorded id (from the migrations' transaction, once `meta` exists). */
  load(q: Q): Promise<void>;
  /** Resolves once every write so far has reached the database (and the record was read back); throws if one failed. */
  settled(): Promise<void>;
}

const KEY_ID = 'secret_key_id';

/**
 * Where the database records the id of the key its secrets are sealed with, on PostgreSQL. `KeyRecord` is
 * synchronous and a query is not: the id is read once at start and kept — once written it never changes — and a
 * write is sent at once (`INSERT … ON CONFLICT DO NOTHING`, as SQLite's `INSERT OR IGNORE`), outside the caller's
 * transaction, then read back, so that if another server recorded its key first, that one is what `read` answers
 * (and the secret box refuses to seal more with this one).
 */
function pgKeyRecord(q: Kysely<Tables>): PgKeyRecord {
  let recorded: string | undefined;
  let pending: Promise<void> = Promise.resolve();
  let failure: unknown;
  const readFrom = async (from: Q) =>
    (await from.selectFrom('meta').select('value').where('key', '=', KEY_ID).executeTakeFirst())?.value;
  return {
    read: () => recorded,
    write(id) {
      recorded = id;
      pending = pending
        .then(async () => {
          await q
            .insertInto('meta')
            .values({ key: KEY_ID, value: id })
            .onConflict((oc) => oc.column('key').doNothing())
            .execute();
          recorded = await readFrom(q);
        })
        .catch((err: unknown) => {
          failure ??= err;
        });
    },
    async load(from) {
      recorded = await readFrom(from);
    },
    async settled() {
      await pending;
      if (failure !== undefined) {
        const err = failure;
        failure = undefined;
        throw err;
      }
    },
  };
}

/** Counts the rows each query wrote (inserted, updated or deleted), for `SqlDb.writes`. */
class WriteCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const n = args.result.numAffectedRows;
    if (n !== undefined) this.count += Number(n);
    return args.result;
  }
}

/**
 * The pool as an `SqlDb`. Transactions run at PostgreSQL's default isolation (READ COMMITTED), each on a connection
 * of its own for as long as it lasts, and each takes the database's one write lock first (an advisory lock, released
 * at its end): as SQLite's `BEGIN IMMEDIATE`, one transaction at a time across every server on the database, so that
 * what one reads before it writes (the last owner, a slug checked free, an invitation still pending) is still so when
 * it writes. Statements outside `tx` (reads, single-statement compare-and-sets) take no lock.
 */
function postgresSql(q: Kysely<Tables>, writes: WriteCounter, record: PgKeyRecord): SqlDb {
  let queue: Promise<void> = Promise.resolve();
  const writeLock = (trx: Q) => sql`SELECT pg_advisory_xact_lock(${sql.raw(String(WRITE_LOCK))})`.execute(trx);
  const transaction = <T>(fn: (q: Q) => Promise<T>): Promise<T> => runTransaction(q, fn, { begin: writeLock });
  return {
    dialect: 'postgres',
    q,
    tx: (fn) => {
      // One transaction at a time per process: the write lock admits one across every server anyway, and each waiting
      // for it here holds nothing, where waiting for it in the database would hold a connection of the pool.
      const run = queue.then(() => transaction(fn));
      queue = run.then(
        () => {},
        () => {},
      );
      return run;
    },
    savepoint: inSavepoint,
    writes: () => writes.count,
    bookkeeping: async (query) => {
      await query.execute();
    },
    close: async () => {
      await record.settled().catch(() => {});
      await q.destroy();
    },
  };
}
