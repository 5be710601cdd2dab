import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseTooNewError, openDatabase } from '../../src/platform/store/db.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/platform/store/migrations/index.js';
import { secretBox } from '../../src/platform/store/secret-box.js';

/**
 * Every released migration file's SHA-256, with the release that shipped it. A database of that release holds exactly
 * what the migration made, so its file — SQL and code — never changes again: a schema change is a new migration. Add a
 * line here when a release ships a new one. (Biome leaves these files alone, so that no formatter changes them.)
 */
const RELEASED: Record<string, { release: string; sha256: string }> = {
  '0001_initial.ts': { release: '0.1.0', sha256: '435129e1b7312aed23278903397e730777887fec632ba591c721adb9768f1d0a' },
  '0002_event_projects.ts': {
    release: '0.2.0',
    sha256: 'b0cbb92578d03722635865ed79f2b02e00782fac3eaa6a3215011e32cb208943',
  },
  '0003_seal_secrets.ts': {
    release: '0.2.0',
    sha256: 'c9e7f4206d01c9b5e45015415c9b9eddf989a563bc911b70481f47140f7d1e32',
  },
};

const env = { secrets: secretBox({ kind: 'memory' }) };
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
      .filter((f) => f !== 'index.ts')
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
    openDatabase(fresh, env).close();
    const expected = schemaOf(fresh);
    for (let from = 1; from < SCHEMA_VERSION; from++) {
      const path = tempDb();
      const old = new Database(path);
      for (const m of MIGRATIONS.slice(0, from)) {
        old.exec(m.sql);
        m.after?.(old, env);
      }
      old.pragma(`user_version = ${from}`);
      old.close();
      const db = openDatabase(path, env);
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
    first?.after?.(db, env);
    db.close();
    expect(schemaOf(path)).toEqual(schemaOf(fixture));
  });

  it('refuse a database written by a newer plat, and leave it as it was', () => {
    const path = tempDb();
    openDatabase(path, env).close();
    const newer = new Database(path);
    newer.exec('CREATE TABLE from_the_future (x TEXT)');
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    const before = readFileSync(path);
    let thrown: unknown;
    try {
      openDatabase(path, env);
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
