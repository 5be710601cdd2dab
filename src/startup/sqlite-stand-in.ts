/**
 * A stand-in for better-sqlite3's native addon, for the startup snapshot's warm-up only (warm-up.ts): the real addon
 * cannot be loaded while a snapshot is built. Over it the platform's SQLite side runs as it does on an empty file
 * that takes every write and finds nothing — better-sqlite3's own JavaScript, opening and migrating the database, the
 * stores, the bucket file — so that V8 keeps that code compiled. It holds no data and touches no file.
 */

/** A prepared statement that runs nothing and finds nothing. */
class Statement {
  constructor(
    readonly source: string,
    readonly reader: boolean,
  ) {}
  /** Whether it writes nothing: as the real addon says of a query (the stand-in's readers are its queries). */
  get readonly() {
    return this.reader;
  }
  run() {
    return { changes: 0, lastInsertRowid: 0 };
  }
  get() {
    return undefined;
  }
  all() {
    return [];
  }
  iterate() {
    return [][Symbol.iterator]();
  }
  pluck() {
    return this;
  }
  expand() {
    return this;
  }
  raw() {
    return this;
  }
  bind() {
    return this;
  }
  safeIntegers() {
    return this;
  }
  columns() {
    return [];
  }
}

/** A connection, as better-sqlite3's `Database` class drives its native half. */
class Database {
  open = true;
  readonly inTransaction = false;
  readonly readonly = false;
  constructor(
    readonly name: string,
    _given: string,
    readonly memory: boolean,
  ) {}
  prepare(sql: string) {
    return new Statement(sql, /^\s*(SELECT|PRAGMA|WITH)\b/i.test(sql));
  }
  exec() {}
  close() {
    this.open = false;
  }
  function() {}
  aggregate() {}
  defaultSafeIntegers() {}
  unsafeMode() {}
}

/** The addon object better-sqlite3 takes as `nativeBinding`. */
export const SQLITE_STAND_IN = { Database, Statement, setErrorConstructor() {} };
