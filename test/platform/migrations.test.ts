import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseTooNewError, keyRecordOf, openDatabase } from '../../src/platform/store/db.js';
import { PG_MIGRATIONS, SCHEMA_VERSION, SQLITE_MIGRATIONS } from '../../src/platform/store/migrations/index.js';
import { secretBox } from '../../src/platform/store/secret-box.js';

/**
 * The releases whose databases pin the migrations they ran, oldest first: test/fixtures/upgrade/<release>/local.db,
 * made once by that release (scripts/make-upgrade-fixture.mjs) and never again. Its `PRAGMA user_version` is the last
 * migration the release ran, and its schema what migrations 1 to that one made. Add a release here with its fixture.
 */
const RELEASES = ['0.1.0', '0.2.0'];

/**
 * Every released migration file's SHA-256, with the first release that ran it. The fixtures above are the real guard:
 * they are databases the releases made, which no later commit can make again, and the tests below hold the schema
 * that migrations make against them. These hashes catch, besides, what a schema cannot show — a changed statement
 * that moves data, a changed step of code — but a commit can change a hash as easily as a file: one that does must
 * say why. The list itself is held against the fixtures: each migration a release ran, and no other, is here.
 */
const RELEASED: Record<string, { release: string; sha256: string }> = {
  '0001_initial.sqlite.ts': {
    release: '0.1.0',
    sha256: 'bad61192a04bf32413fe87c3d49db2dbab83df29cbf44c1e196757a8869749ea',
  },
  // Its SQL as 0.2.0 shipped it again: a trigger had been written into it after the release (now migration 8).
  '0002_event_projects.sqlite.ts': {
    release: '0.2.0',
    sha256: 'e6e51d5703cb9c194d39b23dd5fcca27100c2bd434ece31b10c9b02487cd45da',
  },
  '0003_seal_secrets.sqlite.ts': {
    release: '0.2.0',
    sha256: 'e028dda926226b75e3f1038ad215731c361fb9981ab7fc72a73afedd4bc4beb2',
  },
};

const MEMORY = { kind: 'memory' } as const;
/** What a migration's code gets over a database opened by hand. */
const envOf = (db: Database.Database) => ({ secrets: secretBox(MEMORY, keyRecordOf(db)) });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plat-migrations-'));
  dirs.push(dir);
  return join(dir, 'platform.db');
}

/** A copy of the database `release` made: SQLite makes -shm and -wal files beside a WAL database even to read it. */
function releaseDb(release: string): string {
  const path = tempDb();
  copyFileSync(new URL(`../fixtures/upgrade/${release}/local.db`, import.meta.url), path);
  return path;
}

/** The file a migration is in, by its id, name and dialect. */
const fileOf = (m: { version: number; name: string }, dialect = 'sqlite') =>
  `${String(m.version).padStart(4, '0')}_${m.name}.${dialect}.ts`;

/**
 * What a database holds of its schema: every table, index, trigger and view by type and name, its SQL with each run
 * of whitespace as one space; its `user_version`; the keys of its `meta` rows (their values are random secrets).
 */
function schemaOf(path: string): { objects: Record<string, string>; version: number; meta: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name').all() as {
      type: string;
      name: string;
      sql: string;
    }[];
    return {
      objects: Object.fromEntries(rows.map((r) => [`${r.type} ${r.name}`, r.sql.replace(/\s+/g, ' ').trim()])),
      version: db.pragma('user_version', { simple: true }) as number,
      meta: db.prepare('SELECT key FROM meta ORDER BY key').pluck().all() as string[],
    };
  } finally {
    db.close();
  }
}

/** A new database taken through migrations 1 to `version` as db.ts runs them: each in a transaction, then its number. */
function migratedTo(version: number): string {
  const path = tempDb();
  const db = new Database(path);
  try {
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= version)) {
      db.transaction(() => {
        db.exec(m.sql);
        m.after?.(db, envOf(db));
        db.pragma(`user_version = ${m.version}`);
      }).immediate();
    }
  } finally {
    db.close();
  }
  return path;
}

describe('migrations', () => {
  it('are numbered 1..N without gaps on SQLite, one file each, named after the migration', () => {
    expect(SQLITE_MIGRATIONS.map((m) => m.version)).toEqual(SQLITE_MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(SQLITE_MIGRATIONS.length);
  });

  it('on PostgreSQL, begin at its baseline (7) and from there have every id SQLite has, of the same name', () => {
    // Ids before the baseline are older than PostgreSQL's support; after it, a change has a file for each dialect.
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual(
      SQLITE_MIGRATIONS.filter((m) => m.version >= 7).map((m) => m.version),
    );
    for (const pg of PG_MIGRATIONS) expect(pg.name).toBe(SQLITE_MIGRATIONS[pg.version - 1]?.name);
  });

  it('are the files of the folder, one a dialect for each id that dialect runs, side by side', () => {
    const files = readdirSync(new URL('../../src/platform/store/migrations/', import.meta.url))
      .filter((f) => f !== 'index.ts' && f !== 'migration.ts')
      .sort();
    const expected = [
      ...SQLITE_MIGRATIONS.map((m) => fileOf(m)),
      ...PG_MIGRATIONS.map((m) => fileOf(m, 'postgres')),
    ].sort();
    expect(files).toEqual(expected);
  });

  it('are frozen once released: each released file is as it shipped', () => {
    for (const [file, { release, sha256 }] of Object.entries(RELEASED)) {
      const text = readFileSync(new URL(`../../src/platform/store/migrations/${file}`, import.meta.url));
      const hash = createHash('sha256').update(text).digest('hex');
      expect(hash, `${file} shipped in ${release} and must never change: add a new migration`).toBe(sha256);
    }
  });

  it('are pinned exactly when a release ran them, each with the first release that did', () => {
    const ran: Record<string, string> = {};
    for (const release of RELEASES) {
      const { version } = schemaOf(releaseDb(release));
      for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= version)) ran[fileOf(m)] ??= release;
    }
    const pinned = Object.fromEntries(Object.entries(RELEASED).map(([file, { release }]) => [file, release]));
    expect(pinned).toEqual(ran);
  });

  it('bring a database of every earlier schema version to the same schema as a new one', () => {
    const fresh = tempDb();
    openDatabase(fresh, MEMORY).db.close();
    const expected = schemaOf(fresh).objects;
    for (let from = 1; from < SCHEMA_VERSION; from++) {
      const path = migratedTo(from);
      const { db } = openDatabase(path, MEMORY);
      expect(db.pragma('user_version', { simple: true }), `from version ${from}`).toBe(SCHEMA_VERSION);
      db.close();
      expect(schemaOf(path).objects, `from version ${from}`).toEqual(expected);
    }
  });

  it('refuse a database written by a newer plat, and leave it as it was', () => {
    const path = tempDb();
    openDatabase(path, MEMORY).db.close();
    const newer = new Database(path);
    // Not in WAL mode, which opening it must not switch on: even that would change the file.
    newer.pragma('journal_mode = DELETE');
    newer.exec('CREATE TABLE from_the_future (x TEXT)');
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    const before = readFileSync(path);
    let thrown: unknown;
    try {
      openDatabase(path, MEMORY);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DatabaseTooNewError);
    expect((thrown as Error).message).toBe(
      `${path} was written by a newer version of plat (schema version ${SCHEMA_VERSION + 1}; this one knows up to ` +
        `${SCHEMA_VERSION}): upgrade plat to use it. Nothing was changed.`,
    );
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe.each(RELEASES)('the migrations plat %s ran', (release) => {
  it('make on an empty database the schema of the database that release made, and its version', () => {
    const made = schemaOf(releaseDb(release));
    expect(made.version).toBeGreaterThan(0);
    expect(made.version).toBeLessThanOrEqual(SCHEMA_VERSION);
    expect(Object.keys(made.objects).length).toBeGreaterThan(20);
    const now = schemaOf(migratedTo(made.version));
    expect(now.objects).toEqual(made.objects);
    expect(now.version).toBe(made.version);
  });

  it('bring the database that release made to the schema of a new one', () => {
    const fresh = tempDb();
    openDatabase(fresh, MEMORY).db.close();
    const path = releaseDb(release);
    openDatabase(path, MEMORY).db.close();
    expect(schemaOf(path).objects).toEqual(schemaOf(fresh).objects);
  });

  it('write the meta rows the release wrote, by key (values are random: migration 1 writes the cursor secret)', () => {
    const made = schemaOf(releaseDb(release));
    expect(made.meta).toContain('cursor_secret');
    expect(schemaOf(migratedTo(made.version)).meta).toEqual(made.meta);
  });
});
