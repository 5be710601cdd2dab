import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  Kysely as KyselyClass,
  type QueryResult,
  SqliteDialect,
  type Transaction,
} from 'kysely';
import type { Tables } from './schema.js';
import type { SecretBox } from './secret-box.js';
import type { Db } from './sqlite.js';

/** Which database a platform runs on. */
export type Dialect = 'sqlite' | 'postgres';

/** Where a store's queries run: the database itself, or the transaction a caller holds. */
export type Q = Kysely<Tables>;

/**
 * The platform's database as its stores use it, the same on either backend: the query builder over it, transactions
 * (nested ones as savepoints), and a count of rows written.
 */
export interface SqlDb {
  readonly dialect: Dialect;
  /** Queries outside any transaction. */
  readonly q: Q;
  /**
   * Runs `fn` in a transaction that holds the write lock from its start (SQLite's `BEGIN IMMEDIATE`), committed when
   * `fn` resolves and rolled back when it throws. `fn` must run its queries on the `Q` it is given: on SQLite the
   * database's one connection is the transaction's until it ends.
   */
  tx<T>(fn: (q: Q) => Promise<T>): Promise<T>;
  /** Runs `fn` in a savepoint of the transaction `q`: undone alone when `fn` throws. */
  savepoint<T>(q: Q, fn: (q: Q) => Promise<T>): Promise<T>;
  /** How many rows this database handle has written so far: whether a step wrote anything. */
  writes(): number;
  close(): Promise<void>;
}

/** What every store is built with besides where its queries run. */
export interface StoreEnv {
  /** The database: its dialect, savepoints. */
  sql: SqlDb;
  /** Seals what the stores must read back (store/secret-box.ts). */
  secrets: SecretBox;
}

/** The platform's SQLite file (opened and migrated by `openDatabase`) as an `SqlDb`. */
export function sqliteSql(db: Db): SqlDb {
  const q = new KyselyClass<Tables>({ dialect: new PlatformSqliteDialect(db) });
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  return {
    dialect: 'sqlite',
    q,
    tx: (fn) => runTransaction(q, fn),
    savepoint: inSavepoint,
    writes: () => totalChanges.get() as number,
    close: () => q.destroy(),
  };
}

let savepoints = 0;

/**
 * Runs `fn` in a savepoint of the transaction `trx` (either backend's `SqlDb.savepoint`): released when it resolves,
 * rolled back to (and released) when it throws.
 */
export async function inSavepoint<T>(trx: Q, fn: (q: Q) => Promise<T>): Promise<T> {
  const name = `sp${++savepoints}`;
  const controlled = trx as unknown as ControlledTransactionLike;
  await controlled.savepoint(name).execute();
  try {
    const result = await fn(trx);
    await controlled.releaseSavepoint(name).execute();
    return result;
  } catch (err) {
    await controlled.rollbackToSavepoint(name).execute();
    await controlled.releaseSavepoint(name).execute();
    throw err;
  }
}

/** The part of Kysely's `ControlledTransaction` the savepoints use. */
interface ControlledTransactionLike {
  savepoint(name: string): { execute(): Promise<unknown> };
  releaseSavepoint(name: string): { execute(): Promise<unknown> };
  rollbackToSavepoint(name: string): { execute(): Promise<unknown> };
}

async function runTransaction<T>(q: Q, fn: (q: Q) => Promise<T>): Promise<T> {
  const trx = await q.startTransaction().execute();
  try {
    const result = await fn(trx as Transaction<Tables>);
    await trx.commit().execute();
    return result;
  } catch (err) {
    // Also after a failed COMMIT (a full disk), which leaves the connection held until a rollback lets it go. The
    // error that matters is the first: SQLite may have rolled back already, and the rollback's own error says only that.
    await trx
      .rollback()
      .execute()
      .catch(() => {});
    throw err;
  }
}

/**
 * Kysely's SQLite dialect with a driver of the platform's own: statements prepared once and kept (Kysely's prepares
 * every query at each run, which triples the cost of a point read) and transactions begun `IMMEDIATE`, so that a
 * read-then-write never meets another writer midway.
 */
class PlatformSqliteDialect extends SqliteDialect {
  readonly #db: Db;
  constructor(db: Db) {
    super({ database: db as never });
    this.#db = db;
  }
  override createDriver(): Driver {
    return new PlatformSqliteDriver(this.#db);
  }
}

type Statement = ReturnType<Db['prepare']>;

class PlatformSqliteDriver implements Driver {
  readonly #connection: SqliteConnection;
  readonly #mutex = new Mutex();
  constructor(private readonly db: Db) {
    this.#connection = new SqliteConnection(db);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }
  // Savepoints are named afresh each time: run as they are, not kept in the statement cache.
  async savepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.db.exec(`SAVEPOINT ${name}`);
  }
  async rollbackToSavepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.db.exec(`ROLLBACK TO ${name}`);
  }
  async releaseSavepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.db.exec(`RELEASE ${name}`);
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }
  async destroy(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** The one connection, with each distinct statement prepared on first use and kept. */
class SqliteConnection implements DatabaseConnection {
  readonly #statements = new Map<string, Statement>();
  constructor(private readonly db: Db) {}
  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    let stmt = this.#statements.get(compiled.sql);
    if (!stmt) {
      stmt = this.db.prepare(compiled.sql);
      this.#statements.set(compiled.sql, stmt);
    }
    const parameters = compiled.parameters as unknown[];
    if (stmt.reader) return Promise.resolve({ rows: stmt.all(parameters) as R[] });
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] });
  }
  // biome-ignore lint/correctness/useYield: the platform never streams.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the platform does not stream queries');
  }
}

/** Kysely's one-connection mutex: whoever holds the connection runs alone until it lets go. */
class Mutex {
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;
  async lock(): Promise<void> {
    while (this.#held) await this.#held;
    this.#held = new Promise((resolve) => {
      this.#release = resolve;
    });
  }
  unlock(): void {
    const release = this.#release;
    this.#held = undefined;
    this.#release = undefined;
    release?.();
  }
}

/** A value standing for the `i`-th parameter of a query compiled once (see `compiledOnce`). */
const slot = (i: number) => `\u0000plat-param-${i}\u0000`;

/**
 * A query built once with the query builder and then run many times with new parameters: the builder's work (about
 * 8 µs a query, as much as the read itself) is spent on first use only. `build` receives stand-ins for the
 * parameters and must use each one only as a value (not to choose the query's shape). Compiled per dialect.
 */
export function compiledOnce<P extends unknown[], R>(
  build: (q: Q, ...params: P) => { compile(): CompiledQuery<R> },
): (q: Q, ...params: P) => Promise<R[]> {
  const byAdapter = new WeakMap<object, { sql: string; values: (params: unknown[]) => unknown[] }>();
  return async (q, ...params) => {
    const adapter = q.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      const stand = params.map((_, i) => slot(i)) as P;
      const { sql, parameters } = build(q, ...stand).compile();
      // Each compiled parameter: the index of the given parameter it stands for, or -1 for a constant of the query.
      const slots = parameters.map((value) => (typeof value === 'string' ? (stand as unknown[]).indexOf(value) : -1));
      compiled = { sql, values: (given) => slots.map((i, n) => (i >= 0 ? given[i] : parameters[n])) };
      byAdapter.set(adapter, compiled);
    }
    const result = await q.executeQuery<R>(CompiledQuery.raw(compiled.sql, compiled.values(params)));
    return result.rows;
  };
}
