import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

// The PostgreSQL the backend's tests will run against (issue 15): a real server from Debian's packages, a cluster of
// the tests' own, started and removed by them. This proves the harness before any store depends on it.

describe('the tests’ own PostgreSQL cluster', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('serves a PostgreSQL of version 15 or newer on loopback, with the extensions the backend needs', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const version = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
      expect(Number(version.rows[0]?.v)).toBeGreaterThanOrEqual(150000);
      const addr = await client.query<{ a: string }>('SELECT inet_server_addr()::text AS a');
      expect(addr.rows[0]?.a).toBe('127.0.0.1/32');
      // Search (docs/cli.md, "Where a command goes"): trigram indexes, from the contrib package installed with the server.
      await client.query('CREATE EXTENSION pg_trgm');
      const similar = await client.query<{ s: number }>("SELECT similarity('grace hopper', 'grace') AS s");
      expect(similar.rows[0]?.s).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it('is gone once stopped: no server on its port, no data directory left', async () => {
    const other = await startPostgres();
    expect(existsSync(other.dir)).toBe(true);
    other.stop();
    const client = new pg.Client({ connectionString: other.url, connectionTimeoutMillis: 2_000 });
    await expect(client.connect()).rejects.toThrow(/ECONNREFUSED/);
    expect(existsSync(other.dir)).toBe(false);
  }, 60_000);
});
