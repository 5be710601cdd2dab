import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseTooNewError, keyRecordOf, openDatabase } from '../../src/platform/store/db.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/platform/store/migrations/index.js';
import { secretBox } from '../../src/platform/store/secret-box.js';

/**
 * Every released migration file's SHA-256, with the release that shipped it. A database of that release holds exactly
 * what the migration made, so its file — SQL and code — never changes again: a schema change is a new migration. Add a
 * line here when a release ships a new one. (Biome leaves these files alone, so that no formatter changes them.)
 */
const RELEASED: Record<string, { release: string; sha256: string }> = {
  '0001_initial.ts': { release: '0.1.0', sha256: 'bad61192a04bf32413fe87c3d49db2dbab83df29cbf44c1e196757a8869749ea' },
  // Its SQL as 0.2.0 shipped it again: a trigger had been written into it after the release (now migration 8).
  '0002_event_projects.ts': {
    release: '0.2.0',
    sha256: 'e6e51d5703cb9c194d39b23dd5fcca27100c2bd434ece31b10c9b02487cd45da',
  },
  '0004_sso_sign_in.ts': {
    release: '0.2.0',
    sha256: 'bd4b4312431a2d089aedbcdc80f93758981db2502d4e44a9207ed202c574609a',
  },
  '0003_seal_secrets.ts': {
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

/** The schema as SQLite holds it: every table, index, trigger and view, by name. */
function schemaOf(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name').all() as {
      type: string;
      name: string;
      sql: string;
    }[];
    return Object.fromEntries(rows.map((r) => [`${r.type} ${r.name}`, r.sql]));
  } finally {
    db.close();
  }
}

describe('migrations', () => {
  it('are numbered 1..N without gaps, one file each, named after the migration', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    const files = readdirSync(new URL('../../src/platform/store/migrations/', import.meta.url))
      .filter((f) => f !== 'index.ts' && f !== 'migration.ts')
      .sort();
    expect(files).toEqual(MIGRATIONS.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}.ts`));
  });

  it('are frozen once released: each released file is as it shipped', () => {
    for (const [file, { release, sha256 }] of Object.entries(RELEASED)) {
      const text = readFileSync(new URL(`../../src/platform/store/migrations/${file}`, import.meta.url));
      const hash = createHash('sha256').update(text).digest('hex');
      expect(hash, `${file} shipped in ${release} and must never change: add a new migration`).toBe(sha256);
    }
  });

  it('bring a database of every earlier schema version to the same schema as a new one', () => {
    const fresh = tempDb();
    openDatabase(fresh, MEMORY).db.close();
    const expected = schemaOf(fresh);
    for (let from = 1; from < SCHEMA_VERSION; from++) {
      const path = tempDb();
      const old = new Database(path);
      for (const m of MIGRATIONS.slice(0, from)) {
        old.exec(m.sql);
        m.after?.(old, envOf(old));
      }
      old.pragma(`user_version = ${from}`);
      old.close();
      const { db } = openDatabase(path, MEMORY);
      expect(db.pragma('user_version', { simple: true }), `from version ${from}`).toBe(SCHEMA_VERSION);
      db.close();
      expect(schemaOf(path), `from version ${from}`).toEqual(expected);
    }
  });

  it('begin with the schema 0.1.0 made: migration 1 is what that release ran', () => {
    // A copy: SQLite makes its -shm and -wal files beside a WAL database even to read it.
    const fixture = tempDb();
    copyFileSync(new URL('../fixtures/upgrade/0.1.0/local.db', import.meta.url), fixture);
    const path = tempDb();
    const db = new Database(path);
    const [first] = MIGRATIONS;
    db.exec(first?.sql ?? '');
    first?.after?.(db, envOf(db));
    db.close();
    expect(schemaOf(path)).toEqual(schemaOf(fixture));
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
