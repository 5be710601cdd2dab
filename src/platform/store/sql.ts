import {
  CompiledQuery,
  type ControlledTransaction,
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
  /**
   * Runs one write of bookkeeping that needs not survive a power cut, nor happen at all while another process writes:
   * when a key or a session was last used (written again at its next use), a SCIM token's request counts (statistics;
   * a request not counted stays uncounted). On SQLite its commit does not wait for the disk — one `fsync` less, which
   * is most of such a write's cost — and the next durable commit carries it there; nor does it wait for another
   * process's write lock: while another process writes (an import, a migration), or when the file is read-only, it is
   * left undone, and the request it serves is answered all the same. When a transaction holds the connection, it waits
   * for it to end (or, bound to it, runs inside it as every write does). On PostgreSQL it is a plain statement.
   */
  bookkeeping(query: { compile(): CompiledQuery; execute(): Promise<unknown> }): Promise<void>;
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
  // How long a write waits for another process's lock: the connection's busy timeout (better-sqlite3's 5 s).
  const patience = Number(db.pragma('busy_timeout', { simple: true }));
  const mutex = new Mutex();
  const connection = new SqliteConnection(db, patience, mutex);
  const q = new KyselyClass<Tables>({ dialect: new PlatformSqliteDialect(db, connection, mutex) });
  /** This process's transactions, one after another in their order, while one waits for another process's lock. */
  const turns = new Mutex();
  /**
   * A transaction begun once no other process holds the write lock, tried again between turns of the event loop
   * (`untilWritable`) — the connection let go meanwhile, so that other queries run on it — and in turn with this
   * process's other transactions, as when each waited in SQLite holding the connection.
   */
  const begin = async () => {
    await turns.lock();
    try {
      return await untilWritable(patience, () => q.startTransaction().execute());
    } finally {
      turns.unlock();
    }
  };
  runsNow.set(q, (sql, parameters) => (db.inTransaction ? undefined : { row: connection.first(sql, parameters) }));
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  return {
    dialect: 'sqlite',
    q,
    tx: (fn) => runTransaction(q, fn, { start: begin }),
    savepoint: inSavepoint,
    writes: () => totalChanges.get() as number,
    bookkeeping: async (query) => {
      const { sql, parameters } = query.compile();
      if (db.inTransaction) {
        // A transaction is open: the caller's own, the query bound to it (it runs inside it, as any write), or
        // another's, whose end it waits for; then `executeQuery` knows it by its text and runs it as below.
        connection.bookkeepingSql.add(sql);
        await query.execute();
        return;
      }
      connection.bookkeep(sql, parameters);
    },
    close: () => q.destroy(),
  };
}

/** SQLite's answer when another connection holds the lock a statement needs. */
const BUSY = /^SQLITE_BUSY/;

/** The longest pause between two tries to begin a transaction while another process writes. */
const MAX_PAUSE_MS = 25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Tries `attempt` again, between turns of the event loop, while it is refused `SQLITE_BUSY` (another process — a
 * command, another server on the file — writing), pausing a little longer each time: for as long as SQLite's own
 * handler would have waited (`patience`, the connection's busy timeout), then with its `SQLITE_BUSY`.
 */
async function untilWritable<T>(
  patience: number,
  attempt: () => T | Promise<T>,
  pause: (ms: number) => Promise<void> = sleep,
): Promise<T> {
  // Counted from the first refusal: time spent waiting for this process's own turn is not the other process's.
  let deadline: number | undefined;
  for (let wait = 1; ; wait = Math.min(wait * 2, MAX_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (err) {
      if (!BUSY.test(String((err as { code?: unknown }).code))) throw err;
      deadline ??= performance.now() + patience;
      if (performance.now() >= deadline) throw err;
    }
    await pause(Math.min(wait, Math.max(0, deadline - performance.now())));
  }
}

/** SQLite's answers for which a write of bookkeeping is left undone: another process writes, or the file is read-only. */
const LEFT_UNDONE = /^SQLITE_(BUSY|LOCKED|READONLY)/;

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

/**
 * Runs `fn` in a transaction of `q` (either backend's `SqlDb.tx`), begun by `start` (SQLite waits there for
 * another process's lock), then `begin` (PostgreSQL takes its write lock there): committed when `fn` resolves, rolled
 * back when anything throws.
 */
export async function runTransaction<T>(
  q: Q,
  fn: (q: Q) => Promise<T>,
  opts: {
    start?: () => Promise<ControlledTransaction<Tables>>;
    begin?: (trx: Q) => Promise<unknown>;
  } = {},
): Promise<T> {
  const trx = await (opts.start ?? (() => q.startTransaction().execute()))();
  try {
    await opts.begin?.(trx as Transaction<Tables>);
    const result = await fn(trx as Transaction<Tables>);
    await trx.commit().execute();
    return result;
  } catch (err) {
    // Also after a failed COMMIT (a full disk, a connection gone), which leaves the connection held until a rollback
    // lets it go. The error that matters is the first: the database may have rolled back already, and the rollback's
    // own error says only that.
    await trx
      .rollback()
      .execute()
      .catch(() => {});
    throw err;
  }
}

/**
 * A query run at once, outside Kysely, where the database allows it (see `compiledOnce`); undefined where it does not,
 * and the query takes its turn through Kysely.
 */
/** The first row of a point read run at once (`row`: undefined when there is none), or undefined when it cannot run now. */
type RunNow = (sql: string, parameters: readonly unknown[]) => { row: unknown } | undefined;

/**
 * How each database runs a query at once: on SQLite, the connection itself whenever no transaction is open on it (the
 * query runs whole before anything else does, as it would once its turn came; it may go ahead of a transaction about
 * to begin — or waiting to, while another process writes — which then begins after it). Only the database's own `Q`
 * is here, never a transaction's.
 */
const runsNow = new WeakMap<Q, RunNow>();

/**
 * Kysely's SQLite dialect with a driver of the platform's own: statements prepared once and kept (Kysely's prepares
 * every query at each run, which triples the cost of a point read) and transactions begun `IMMEDIATE`, so that a
 * read-then-write never meets another writer midway.
 */
class PlatformSqliteDialect extends SqliteDialect {
  constructor(
    private readonly db: Db,
    private readonly connection: SqliteConnection,
    private readonly mutex: Mutex,
  ) {
    super({ database: db as never });
  }
  override createDriver(): Driver {
    return new PlatformSqliteDriver(this.db, this.connection, this.mutex);
  }
}

type Statement = ReturnType<Db['prepare']>;

class PlatformSqliteDriver implements Driver {
  readonly #connection: SqliteConnection;
  readonly #mutex: Mutex;
  constructor(
    private readonly db: Db,
    connection: SqliteConnection,
    mutex: Mutex,
  ) {
    this.#connection = connection;
    this.#mutex = mutex;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection;
  }
  /** `BEGIN IMMEDIATE`, tried once: `SQLITE_BUSY` at once while another process writes (`sqliteSql` tries again). */
  async beginTransaction(): Promise<void> {
    this.#connection.withoutWaiting(() => this.db.exec('BEGIN IMMEDIATE'));
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

/**
 * A statement prepared once. A query's rows are read as arrays and made into objects here: better-sqlite3 would set
 * each column of each row by name through V8's API, which costs more than the read.
 */
interface Prepared {
  statement: Statement;
  /** The row of a query, from its values in the order of its columns (where a name repeats, the last one wins). */
  row?: (values: unknown[]) => Record<string, unknown>;
}

function prepared(statement: Statement): Prepared {
  if (!statement.reader) return { statement };
  const names = statement.columns().map((c) => c.name);
  statement.raw(true);
  return { statement, row: rowMaker(names) };
}

/**
 * The function that makes a row object of a query's values: an object literal of the query's own column names, made
 * once per statement, so that every row of it has one shape from the start (filling an empty object key by key, as a
 * loop must, costs V8 a lookup of the next shape at every column of every row). The names are SQLite's, written as
 * JSON string literals; where a name repeats, the last one wins, as for a row better-sqlite3 makes.
 */
function rowMaker(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const last = new Map(names.map((name, i) => [name, i]));
  const fields = [...last].map(([name, i]) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

/** The one connection, with each distinct statement prepared on first use and kept. */
class SqliteConnection implements DatabaseConnection {
  readonly #statements = new Map<string, Prepared>();
  /** The text of each write of bookkeeping met while a transaction was open (see `bookkeep`). */
  readonly bookkeepingSql = new Set<string>();
  constructor(
    private readonly db: Db,
    private readonly patience: number,
    private readonly mutex: Mutex,
  ) {}
  /**
   * A query. Outside any transaction, a write of bookkeeping is run as `bookkeep` runs it; any other write once no
   * other process holds the write lock, tried again between turns of the event loop (`untilWritable`) with the
   * connection let go meanwhile (the caller holds it: Kysely runs a query between taking and releasing it).
   */
  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiled;
    if (this.db.inTransaction || this.#prepared(sql).statement.readonly) {
      return Promise.resolve(this.run(sql, parameters) as QueryResult<R>);
    }
    if (this.bookkeepingSql.has(sql)) return Promise.resolve(this.bookkeep(sql, parameters) as QueryResult<R>);
    const run = () => this.withoutWaiting(() => this.run(sql, parameters) as QueryResult<R>);
    return untilWritable(this.patience, run, async (ms) => {
      this.mutex.unlock();
      await sleep(ms);
      await this.mutex.lock();
    });
  }
  /**
   * Runs one write of bookkeeping (`SqlDb.bookkeeping`) at once, outside any transaction: without waiting for the disk
   * (`synchronous = NORMAL`: the next durable commit carries it there) nor for another process's lock — while another
   * process writes, or the file is read-only, it is left undone. All in one go, nothing else running meanwhile. The
   * settings are run as text each time: SQLite applies these pragmas when it prepares them, so a statement prepared
   * once would set its value then and, run again, only from its second run on. The fsync setting is relaxed outside
   * the wait's and restored after it, so that this pragma, which reads the schema, never runs without the wait.
   */
  bookkeep(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    this.db.exec('PRAGMA synchronous = NORMAL');
    try {
      return this.withoutWaiting(() => this.run(sql, parameters));
    } catch (err) {
      if (!LEFT_UNDONE.test(String((err as { code?: unknown }).code))) throw err;
      return { rows: [] };
    } finally {
      this.db.exec('PRAGMA synchronous = FULL');
    }
  }
  /**
   * Runs `statement` — one that takes SQLite's write lock — without SQLite's busy handler: `SQLITE_BUSY` at once while
   * another process holds the lock, where the handler would wait asleep, and the whole process with it (every other
   * request of `plat serve` included). Then the connection waits as before (`patience`) for anything else.
   */
  withoutWaiting<T>(statement: () => T): T {
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      return statement();
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${this.patience}`);
    }
  }
  /** The statement of `sql`, prepared on first use. */
  #prepared(sql: string): Prepared {
    let p = this.#statements.get(sql);
    if (!p) {
      p = prepared(this.db.prepare(sql));
      this.#statements.set(sql, p);
    }
    return p;
  }
  /** Runs a statement: its rows, or what it changed. */
  run(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    const p = this.#prepared(sql);
    if (p.row) return { rows: (p.statement.all(parameters as unknown[]) as unknown[][]).map(p.row) };
    const { changes, lastInsertRowid } = p.statement.run(parameters as unknown[]);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
  /** Runs a query for its first row only (undefined when none), stepping no further. */
  first(sql: string, parameters: readonly unknown[]): unknown {
    const p = this.#prepared(sql);
    const values = p.statement.get(parameters as unknown[]) as unknown[] | undefined;
    return values === undefined || !p.row ? undefined : p.row(values);
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
  /** Whether someone holds the connection. */
  get locked(): boolean {
    return this.#held !== undefined;
  }
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

/**
 * A value now, or a promise of it: what a point read returns — at once on SQLite, whose reads are synchronous, later
 * on PostgreSQL. Callers `await` it either way; on SQLite no promise is made for a read that needed none.
 */
export type Awaitable<T> = T | Promise<T>;

/** `fn` of the value: now when it is there, else when it comes. */
export function andThen<T, U>(value: Awaitable<T>, fn: (t: T) => U): Awaitable<Awaited<U>> {
  return (value instanceof Promise ? value.then(fn) : fn(value)) as Awaitable<Awaited<U>>;
}

/** A value standing for the `i`-th parameter of a query compiled once (see `compiledOnce`). */
const slot = (i: number) => `\u0000plat-param-${i}\u0000`;

/**
 * A point read — a query for one row at most — built once with the query builder and then run many times with new
 * parameters: the builder's work (about 8 µs a query, as much as the read itself) is spent on first use only. `build`
 * receives stand-ins for the parameters and must use each one only as a value (not to choose the query's shape).
 * Compiled per dialect. Its first row, or undefined. Outside a transaction on SQLite, it runs at once on the connection,
 * outside Kysely (whose executor, connection provider and promises at each step cost a read about as much again), and
 * stops at that row (no step further to find that there is no other).
 */
export function pointRead<P extends unknown[], R>(
  build: (q: Q, ...params: P) => { compile(): CompiledQuery<R> },
): (q: Q, ...params: P) => Awaitable<R | undefined> {
  // By the adapter's class, which is the dialect's: the platform's Kysely instances differ in nothing else that
  // shapes a query (no schema prefix; PostgreSQL's one plugin counts rows and leaves queries as they are — a plugin
  // that rewrote them would need its own key). So the startup snapshot keeps what its warm-up compiled
  // (src/startup/warm-up.ts), and a process opening a second database compiles nothing again.
  const byDialect = new Map<unknown, { sql: string; values: (params: unknown[]) => unknown[] }>();
  return (q, ...params) => {
    const dialect = q.getExecutor().adapter.constructor;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      const stand = params.map((_, i) => slot(i)) as P;
      const { sql, parameters } = build(q, ...stand).compile();
      // Each compiled parameter: the index of the given parameter it stands for, or -1 for a constant of the query.
      const slots = parameters.map((value) => (typeof value === 'string' ? (stand as unknown[]).indexOf(value) : -1));
      compiled = { sql, values: (given) => slots.map((i, n) => (i >= 0 ? given[i] : parameters[n])) };
      byDialect.set(dialect, compiled);
    }
    const values = compiled.values(params);
    const now = runsNow.get(q)?.(compiled.sql, values);
    // The row itself when the query ran at once (the caller awaits either): no promise made for a read that needed
    // none.
    if (now) return now.row as R | undefined;
    return q.executeQuery(CompiledQuery.raw(compiled.sql, values)).then((result) => result.rows[0] as R | undefined);
  };
}
