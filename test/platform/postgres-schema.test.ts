import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/store/db.js';
import { SCHEMA_VERSION } from '../../src/platform/store/migrations/index.js';
import { type OpenPostgres, openPostgres, PostgresTooNewError } from '../../src/platform/store/postgres.js';
import { SEALED, type SecretKeySource } from '../../src/platform/store/secret-box.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MEMORY = { kind: 'memory' } as const;

/** A column as both schemas are compared: its type's class, whether it may be null and whether it has a default. */
type Column = { type: 'text' | 'integer' | 'real'; notNull: boolean; generated: boolean };

/** SQLite's final schema, read from a database the platform creates: table → column → what it is. */
function sqliteSchema(): Map<string, Map<string, Column>> {
  const { db } = openDatabase(':memory:', MEMORY);
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'org_users_search%'",
      )
      .pluck()
      .all() as string[];
    const schema = new Map<string, Map<string, Column>>();
    for (const table of tables) {
      const info = db.prepare(`SELECT * FROM pragma_table_info(?)`).all(table) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[];
      const keyColumns = info.filter((c) => c.pk > 0).length;
      const columns = new Map<string, Column>();
      for (const c of info) {
        // The one `INTEGER PRIMARY KEY` of a table is its row number: never null, numbered when omitted.
        const rowNumber = c.type === 'INTEGER' && c.pk === 1 && keyColumns === 1;
        columns.set(c.name, {
          type: c.type === 'TEXT' ? 'text' : c.type === 'INTEGER' ? 'integer' : 'real',
          // SQLite lets a key column other than the row number hold NULL (a legacy quirk); PostgreSQL never does, and
          // the platform never writes one.
          notNull: c.notnull === 1 || c.pk > 0,
          generated: c.dflt_value !== null || rowNumber,
        });
      }
      schema.set(table, columns);
    }
    return schema;
  } finally {
    db.close();
  }
}

describe('the PostgreSQL schema and its migrations', () => {
  let server: TestPostgres;
  let admin: pg.Client;
  const opened: OpenPostgres[] = [];
  let databases = 0;

  /** The URL of a new, empty database of the test cluster. */
  const freshDatabase = async (): Promise<string> => {
    const name = `plat_schema_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    return server.url.replace(/\/postgres$/, `/${name}`);
  };
  /** Opens (migrating) the database at `url`, closed after the tests. */
  const open = async (url: string, keySource: SecretKeySource = MEMORY): Promise<OpenPostgres> => {
    const o = await openPostgres(url, keySource);
    opened.push(o);
    return o;
  };
  /** Runs `text` on the database at `url` on a connection of its own. */
  const query = async <R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };

  /**
   * The schema of the database at `url` as PostgreSQL describes it — columns, constraints, indexes, triggers and the
   * platform's functions (not those of extensions) — each as PostgreSQL writes it back, whatever text created it.
   */
  const schemaOf = async (url: string) => ({
    columns: await query(
      url,
      `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, collation_name
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
    ),
    constraints: await query(
      url,
      `SELECT conrelid::regclass::text AS of, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2`,
    ),
    indexes: await query(
      url,
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname',
    ),
    triggers: await query(
      url,
      'SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname',
    ),
    functions: await query(
      url,
      `SELECT proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p
       WHERE pronamespace = current_schema()::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
       ORDER BY proname`,
    ),
  });

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    for (const o of opened) await o.sql.close();
    await admin?.end();
    server?.stop();
  });

  it('has every table and column of SQLite’s schema, of the same type class, nullability and defaults', async () => {
    const url = await freshDatabase();
    await open(url);
    const rows = await query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: 'YES' | 'NO';
      column_default: string | null;
      is_identity: 'YES' | 'NO';
    }>(
      url,
      `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
    );
    const classOf: Record<string, Column['type']> = {
      text: 'text',
      integer: 'integer',
      bigint: 'integer',
      'double precision': 'real',
    };
    const postgres = new Map<string, Map<string, Column>>();
    for (const r of rows) {
      const columns = postgres.get(r.table_name) ?? new Map<string, Column>();
      columns.set(r.column_name, {
        type: classOf[r.data_type] ?? (r.data_type as Column['type']),
        notNull: r.is_nullable === 'NO',
        generated: r.column_default !== null || r.is_identity === 'YES',
      });
      postgres.set(r.table_name, columns);
    }
    const sqlite = sqliteSchema();
    expect(sqlite.size).toBeGreaterThan(25);
    // What PostgreSQL has besides: the rate-limit buckets (SQLite keeps them in a file of their own), the schema's
    // version (SQLite's is `PRAGMA user_version`), and the row numbers (SQLite's hidden `rowid`) that order two
    // environments or mails of the same millisecond, and the transaction that wrote each event (`events.tx`), which
    // orders the event stream where writes are not serial.
    const extraTables = new Set(['buckets', 'schema_version']);
    const extraColumns = new Set(['environments.rowid', 'outbox.rowid', 'events.tx']);
    expect([...postgres.keys()].filter((t) => !sqlite.has(t) && !extraTables.has(t)).sort()).toEqual([]);
    for (const [table, columns] of sqlite) {
      const found = Object.fromEntries(
        [...(postgres.get(table) ?? [])].filter(([name]) => !extraColumns.has(`${table}.${name}`)),
      );
      expect({ table, columns: found }).toEqual({ table, columns: Object.fromEntries(columns) });
    }
    expect(Object.fromEntries(postgres.get('buckets') ?? [])).toEqual({
      key: { type: 'text', notNull: true, generated: false },
      level: { type: 'real', notNull: true, generated: false },
      at: { type: 'integer', notNull: true, generated: false },
    });
  });

  it('has every index SQLite has, its trigram indexes for search, and text compared by its bytes', async () => {
    const url = await freshDatabase();
    await open(url);
    const { db } = openDatabase(':memory:', MEMORY);
    const sqliteIndexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
      .pluck()
      .all() as string[];
    db.close();
    const indexes = (
      await query<{ indexname: string }>(url, 'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()')
    ).map((r) => r.indexname);
    expect(sqliteIndexes.length).toBeGreaterThan(30);
    expect(sqliteIndexes.filter((i) => !indexes.includes(i))).toEqual([]);
    expect(indexes).toEqual(expect.arrayContaining(['org_users_search_name', 'org_users_search_email']));
    // Every text column sorts as SQLite's BINARY does, whatever the database's locale.
    const collations = await query<{ column: string; collation_name: string | null }>(
      url,
      `SELECT table_name || '.' || column_name AS column, collation_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type = 'text'`,
    );
    expect(collations.length).toBeGreaterThan(150);
    expect(collations.filter((c) => c.collation_name !== 'C')).toEqual([]);
  });

  it('records the cursor secret, and a version no newer than the code', async () => {
    const url = await freshDatabase();
    await open(url);
    const meta = await query<{ key: string; value: string }>(url, 'SELECT key, value FROM meta');
    expect(meta).toEqual([{ key: 'cursor_secret', value: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
  });

  it('records the id of a key given in the environment at once; a server with another key is refused', async () => {
    const url = await freshDatabase();
    const key = (byte: string) => ({ kind: 'env', value: byte.repeat(64) }) as const;
    const first = await open(url, key('a'));
    const recorded = await query<{ value: string }>(url, "SELECT value FROM meta WHERE key = 'secret_key_id'");
    expect(recorded).toEqual([{ value: expect.stringMatching(/^[\w-]{8}$/) }]);
    const sealed = first.secrets.seal('s3cret', 'test:1');
    expect(first.secrets.open(sealed, 'test:1')).toBe('s3cret');
    const same = await open(url, key('a'));
    expect(() => same.secrets.check()).not.toThrow();
    const other = await open(url, key('b'));
    expect(() => other.secrets.check()).toThrow(/sealed with key/);
    expect(() => other.secrets.seal('x', 'test:2')).toThrow(/sealed with key/);
    expect(await query(url, "SELECT value FROM meta WHERE key = 'secret_key_id'")).toEqual(recorded);
  });

  it('lets two servers start together on a fresh database: both open it, and it is migrated once', async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    expect(a?.sql.dialect).toBe('postgres');
    expect(b?.sql.dialect).toBe('postgres');
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
    const secrets = await query<{ value: string }>(url, "SELECT value FROM meta WHERE key = 'cursor_secret'");
    expect(secrets).toHaveLength(1);
    // A third, later, finds nothing to do.
    await open(url);
    expect(await query(url, "SELECT value FROM meta WHERE key = 'cursor_secret'")).toEqual(secrets);
  });

  it('opens a database of its earlier numbering (schema_version 1, never released) as version 8, the same schema', async () => {
    // Made by plat before both dialects shared one numbering, when PostgreSQL's migration 1 made what ids 1 to 8 make
    // now; restored from its dump (test/fixtures/postgres/schema-version-1.sql says how it was made).
    const url = await freshDatabase();
    await query(url, readFileSync(new URL('../fixtures/postgres/schema-version-1.sql', import.meta.url), 'utf8'));
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: 1 }]);
    const meta = await query(url, 'SELECT key, value FROM meta ORDER BY key');
    expect(meta).toEqual([{ key: 'cursor_secret', value: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    await open(url);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
    expect(await query(url, 'SELECT key, value FROM meta ORDER BY key')).toEqual(meta);
    const fresh = await freshDatabase();
    await open(fresh);
    const [upgraded, made] = [await schemaOf(url), await schemaOf(fresh)];
    expect(made.triggers.length).toBeGreaterThan(3);
    expect(made.functions.length).toBeGreaterThan(4);
    expect(upgraded).toEqual(made);
    // Opened again, it is as it was.
    await open(url);
    expect(await schemaOf(url)).toEqual(made);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
  });

  it('seals the clear mails of a database from before migration 9, once, as the outbox store opens them', async () => {
    const url = await freshDatabase();
    await query(url, readFileSync(new URL('../fixtures/postgres/schema-version-1.sql', import.meta.url), 'utf8'));
    const link = 'https://plat.test/v2/auth/invitations/accept?token=inv_oneTimeSecret';
    const mails = [
      ['mail_a', `You are invited: ${link}`, JSON.stringify([link])],
      ['mail_b', 'Your code is 123456', '[]'],
    ];
    for (const [id, text, links] of mails) {
      await query(
        url,
        `INSERT INTO outbox (rowid, id, org_id, to_addr, subject, text, links, created_at)
         VALUES (DEFAULT, $1, NULL, 'ada@example.test', 'Invitation', $2, $3, '2026-11-20T10:00:00.000Z')`,
        [id, text, links],
      );
    }
    const key = { kind: 'env', value: 'c'.repeat(64) } as const;
    const first = await open(url, key);
    const stored = await query<{ id: string; text: string; links: string }>(
      url,
      'SELECT id, text, links FROM outbox ORDER BY id',
    );
    expect(stored.map((m) => m.id)).toEqual(['mail_a', 'mail_b']);
    for (const [i, m] of stored.entries()) {
      expect(m.text.startsWith('enc:v1:') && m.links.startsWith('enc:v1:')).toBe(true);
      expect(`${m.text} ${m.links}`).not.toContain('oneTimeSecret');
      const [, text, links] = mails[i] as [string, string, string];
      expect(first.secrets.open(m.text, SEALED.mailText(m.id))).toBe(text);
      expect(first.secrets.open(m.links, SEALED.mailLinks(m.id))).toBe(links);
    }
    // Opened again, nothing is sealed twice.
    await open(url, key);
    expect(await query(url, 'SELECT id, text, links FROM outbox ORDER BY id')).toEqual(stored);
  });

  it('makes a legacy claim of each single sign-on domain a database held before migration 10', async () => {
    const url = await freshDatabase();
    await query(url, readFileSync(new URL('../fixtures/postgres/schema-version-1.sql', import.meta.url), 'utf8'));
    const at = '2026-11-20T10:00:00.000Z';
    await query(url, "INSERT INTO organizations VALUES ('org_a', 'A', 'a', 'free', $1, $1)", [at]);
    await query(
      url,
      `INSERT INTO sso_configs (org_id, protocol, provider, enabled, attribute_mapping, domains, created_at, updated_at)
       VALUES ('org_a', 'saml', 'okta', 1, '{"email":"email"}', '["a.test","b.test"]', $1, $1)`,
      [at],
    );
    await query(url, "INSERT INTO sso_domains VALUES ('a.test', 'org_a'), ('b.test', 'org_a')");
    await open(url);
    const claims = await query(url, 'SELECT * FROM domains ORDER BY domain');
    expect(claims).toEqual(
      ['a.test', 'b.test'].map((domain) => ({
        id: expect.stringMatching(/^dom_[0-9a-f]{20}$/),
        org_id: 'org_a',
        domain,
        status: 'legacy',
        token: expect.stringMatching(/^[0-9a-f]{32}$/),
        created_at: at,
        verified_at: null,
      })),
    );
    expect(new Set(claims.map((c) => c.token)).size).toBe(2);
  });

  it('numbers the events a database held before migration 13 in the order written, and new ones after', async () => {
    const url = await freshDatabase();
    await query(url, readFileSync(new URL('../fixtures/postgres/schema-version-1.sql', import.meta.url), 'utf8'));
    await query(url, "INSERT INTO organizations VALUES ('org_a', 'A', 'a', 'free', $1, $1)", ['2026-11-20T10:00:00Z']);
    // Inserted out of order: the numbering follows the time written (then the id), not the insertion.
    for (const [id, at] of [
      ['evt_c', '2026-11-20T10:00:02.000Z'],
      ['evt_a', '2026-11-20T10:00:01.000Z'],
      ['evt_b', '2026-11-20T10:00:01.000Z'],
    ]) {
      await query(
        url,
        `INSERT INTO events (id, org_id, type, actor_type, actor_id, created_at)
         VALUES ($1, 'org_a', 'test.old', 'system', 'test', $2)`,
        [id, at],
      );
    }
    await open(url);
    await query(
      url,
      `INSERT INTO events (id, org_id, type, actor_type, actor_id, created_at)
       VALUES ('evt_new', 'org_a', 'test.new', 'system', 'test', '2026-01-01T00:00:00.000Z')`,
    );
    const rows = await query(url, 'SELECT id, seq::int AS seq FROM events ORDER BY tx, seq');
    expect(rows).toEqual([
      { id: 'evt_a', seq: 1 },
      { id: 'evt_b', seq: 2 },
      { id: 'evt_c', seq: 3 },
      { id: 'evt_new', seq: 4 },
    ]);
  });

  it('refuses a database of a newer schema, and changes nothing in it', async () => {
    const url = await freshDatabase();
    await query(url, 'CREATE TABLE schema_version (version integer NOT NULL)');
    await query(url, 'INSERT INTO schema_version (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    const error = await openPostgres(url, MEMORY).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PostgresTooNewError);
    expect((error as Error).message).toBe(
      `the PostgreSQL database plat_schema_${databases} at 127.0.0.1:${server.port} was written by a newer version ` +
        `of plat (schema version ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION}): upgrade plat ` +
        'to use it. Nothing was changed.',
    );
    const tables = await query(url, 'SELECT tablename FROM pg_tables WHERE schemaname = current_schema()');
    expect(tables).toEqual([{ tablename: 'schema_version' }]);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION + 1 }]);
    expect(await query(url, "SELECT proname FROM pg_proc WHERE proname = 'plat_lower'")).toEqual([]);
  });

  it('keeps e-mail addresses unique whatever the case of their ASCII letters, and finds them in any case', async () => {
    const { sql: db } = await open(await freshDatabase());
    const account = (id: string, email: string) => ({ id, email, created_at: 'now', updated_at: 'now' });
    await db.q.insertInto('accounts').values(account('acct_1', 'Ada@Example.com')).execute();
    await expect(
      db.q.insertInto('accounts').values(account('acct_2', 'ada@EXAMPLE.COM')).execute(),
    ).rejects.toMatchObject({ code: '23505', constraint: 'accounts_email_key' });
    const found = await db.q
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where(sql<boolean>`lower(email) = lower(CAST(${'ADA@example.com'} AS text) COLLATE "C")`)
      .execute();
    expect(found).toEqual([{ id: 'acct_1', email: 'Ada@Example.com' }]);
    // As SQLite's NOCASE: only ASCII letters fold.
    await db.q.insertInto('accounts').values(account('acct_3', 'Émile@example.com')).execute();
    await db.q.insertInto('accounts').values(account('acct_4', 'émile@example.com')).execute();
  });

  it('fills event_projects from an event’s target, its projectId and its projectIds, whatever writes it', async () => {
    const { sql: db } = await open(await freshDatabase());
    const event = (id: string, target: string | null, data: unknown) => ({
      id,
      org_id: 'org_1',
      type: 'test',
      actor_type: 'user',
      actor_id: 'user_1',
      target_type: target ? 'project' : 'organization',
      target_id: target ?? 'org_1',
      request_id: null,
      data: JSON.stringify(data),
      created_at: '2026-01-01T00:00:00.000Z',
    });
    await db.q
      .insertInto('events')
      .values([
        event('evt_1', 'prj_a', {}),
        event('evt_2', null, { projectId: 'prj_b' }),
        event('evt_3', null, { projectIds: ['prj_c', 'prj_d', 5, null, 'prj_c'] }),
        event('evt_4', 'prj_a', { projectId: 'prj_a', projectIds: ['prj_a', 'prj_e'] }),
        event('evt_5', null, { projectId: 7, projectIds: 'prj_f', other: ['prj_g'] }),
        event('evt_6', null, ['prj_h']),
      ])
      .execute();
    const rows = await db.q
      .selectFrom('event_projects')
      .selectAll()
      .orderBy('event_id')
      .orderBy('project_id')
      .execute();
    expect(rows).toEqual([
      { event_id: 'evt_1', project_id: 'prj_a' },
      { event_id: 'evt_2', project_id: 'prj_b' },
      { event_id: 'evt_3', project_id: 'prj_c' },
      { event_id: 'evt_3', project_id: 'prj_d' },
      { event_id: 'evt_4', project_id: 'prj_a' },
      { event_id: 'evt_4', project_id: 'prj_e' },
    ]);
    await db.q.deleteFrom('events').where('id', '=', 'evt_3').execute();
    const left = await db.q.selectFrom('event_projects').select('event_id').where('event_id', '=', 'evt_3').execute();
    expect(left).toEqual([]);
  });

  it('runs transactions whole or not at all, savepoints alone, and counts the rows written', async () => {
    const { sql: db } = await open(await freshDatabase());
    const org = (id: string) => ({ id, name: id, slug: id, plan: 'free', created_at: 'now', updated_at: 'now' });
    const before = db.writes();
    await db.tx(async (q) => {
      await q.insertInto('organizations').values(org('org_1')).execute();
      await db
        .savepoint(q, async (s) => {
          await s.insertInto('organizations').values(org('org_2')).execute();
          throw new Error('undone alone');
        })
        .catch(() => {});
    });
    await expect(
      db.tx(async (q) => {
        await q.insertInto('organizations').values(org('org_3')).execute();
        throw new Error('undone whole');
      }),
    ).rejects.toThrow('undone whole');
    const ids = await db.q.selectFrom('organizations').select('id').execute();
    expect(ids).toEqual([{ id: 'org_1' }]);
    // Every row written counts, those later undone included (as SQLite's total_changes()).
    expect(db.writes() - before).toBe(3);
    // A count is a bigint to PostgreSQL, and a number to the platform.
    const { rows } = await sql<{ n: unknown }>`SELECT count(*) AS n FROM organizations`.execute(db.q);
    expect(rows).toEqual([{ n: 1 }]);
  });
});
