import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * Which backend the platform tests run on: SQLite (`npm test`'s first run) or PostgreSQL (its second run, with
 * vitest.postgres.config.ts, which starts a cluster for the run and sets `PLAT_TEST_BACKEND=postgres`).
 */
export const BACKEND: 'sqlite' | 'postgres' = process.env.PLAT_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** The secret key of every test database on PostgreSQL (the template's secrets are sealed with it). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** The name of the migrated database each test's PostgreSQL database is copied from. */
export const TEMPLATE_DATABASE = 'plat_template';

let admin: pg.Pool | undefined;

/**
 * Where a test's platform keeps its data, with the secret key to open it: on SQLite the file given (default: in
 * memory) and the default key; on PostgreSQL a fresh database of its own, copied from the migrated template (or,
 * given one already made, that one).
 */
export async function testDatabase(sqlite = ':memory:'): Promise<{ db: string; secretKey?: string }> {
  if (BACKEND === 'sqlite') return { db: sqlite };
  // A database this run made already (shared by a test's platforms): the same one.
  if (sqlite.startsWith('postgres://')) return { db: sqlite, secretKey: TEST_SECRET_KEY };
  const url = new URL(inject('platPostgresUrl'));
  admin ??= new pg.Pool({ connectionString: url.href, max: 2 });
  const name = `t_${randomBytes(8).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  url.pathname = `/${name}`;
  return { db: url.href, secretKey: TEST_SECRET_KEY };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test cluster's `postgres` database (PostgreSQL runs only). */
    platPostgresUrl: string;
  }
}
