import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isDatabaseUrl, maskDatabaseUrl } from '../../src/config/database-url.js';
import { resolveSettings, type SettingsFlags } from '../../src/config/resolve.js';
import { isPostgresUrl } from '../../src/platform/index.js';
import { type CliResult, type CliWorld, cliWorld, type RunOptions } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

/**
 * `--database-url` and `PLAT_DATABASE_URL` (docs/cli.md, "Where a command goes"): the embedded platform on a
 * PostgreSQL database of a real cluster, a database per test. Every URL carries a password (the cluster trusts
 * loopback, so any will do), and no output of any run may contain it.
 */

const PASSWORD = 'Pg-pass-w0rd-never-shown';
const SECRET_KEY = randomBytes(32).toString('base64');

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(() => cluster?.stop());

let w: CliWorld;
/** Every run of the test, to check that none printed the password. */
let runs: CliResult[];
beforeEach(() => {
  w = cliWorld();
  runs = [];
});
afterEach(() => {
  for (const r of runs) expect(r.raw.stdout + r.raw.stderr).not.toContain(PASSWORD);
  w.cleanup();
});

let databases = 0;

/** A new empty database of the cluster: its URL, with the password, and the forms of it plat may show. */
async function database() {
  const name = `plat_cli_${++databases}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const where = `127.0.0.1:${cluster.port}/${name}`;
  return {
    url: `postgres://postgres:${PASSWORD}@${where}`,
    shown: `postgres://postgres:***@${where}`,
    account: `local@postgres://${where}`,
  };
}

/**
 * `plat …` in-process with PLAT_SECRET_KEY, through the CLI's own embedded transport (the world's opens the database
 * without the key); recorded for the password check.
 */
async function plat(argv: string[], opts: RunOptions = {}): Promise<CliResult> {
  const r = await w.runCli(argv, {
    ...opts,
    env: { PLAT_SECRET_KEY: SECRET_KEY, ...opts.env },
    deps: { transport: undefined, ...opts.deps },
  });
  runs.push(r);
  return r;
}

/**
 * Runs `plat serve --port 0 …` in-process; resolves once it listens, with its origin and `stop`, which sends the
 * shutdown signal and resolves with what the command printed.
 */
async function serve(args: string[], env: Record<string, string> = {}) {
  let signal: () => void = () => {};
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const running = plat(['serve', '--port', '0', ...args], {
    env,
    deps: {
      onShutdown: (handler) => {
        signal = handler;
        return () => {};
      },
    },
    onStderr: (text) => {
      const m = /Listening on (\S+)\/v2/.exec(text);
      if (m) listening(m[1] as string);
    },
  });
  const base = await Promise.race([url, running.then((r) => Promise.reject(new Error(r.stderr)))]);
  return {
    base,
    stop: () => {
      signal();
      return running;
    },
  };
}

describe('plat local init --database-url', () => {
  it('makes the platform with the output a file gets, its key stored for the database; again, it reports it', async () => {
    const db = await database();
    const made = await plat(['local', 'init', '--database-url', db.url, '--org', 'Acme', '--json']);
    expect(made).toMatchObject({ code: 0 });
    expect(made.stderr).toBe(
      `Created the embedded platform at ${db.shown}: organization org_0001, owner admin@localhost.\n` +
        'Its API key is stored in <tmp>/config/credentials.json.\n' +
        "Store the owner's generated sign-in password now: it is not shown again.\n",
    );
    const out = JSON.parse(made.stdout);
    expect(out).toEqual({
      organizationId: 'org_0001',
      userId: 'user_0001',
      apiKey: expect.stringMatching(/^plat_live_/),
      password: expect.any(String),
      db: db.shown,
    });
    expect(w.storedKey(db.account)).toBe(out.apiKey);
    // The same fields as a file's bootstrap.
    const file = await plat(['local', 'init', '--db', join(w.dir, 'dev.db'), '--json']);
    expect(Object.keys(JSON.parse(file.stdout))).toEqual(Object.keys(out));
    // A database of its own: the profile records no organization of it (no configuration was written at all).
    expect(existsSync(join(w.configDir, 'config.json'))).toBe(false);

    expect(await plat(['local', 'init', '--database-url', db.url, '--json'])).toMatchObject({
      code: 0,
      stdout: `{\n  "organizationId": "org_0001",\n  "userId": "user_0001",\n  "db": "${db.shown}"\n}\n`,
      stderr: `The embedded platform at ${db.shown} exists already.\n`,
    });
    expect(await plat(['--database-url', db.url, 'local', 'init', '-o', 'ids'])).toMatchObject({
      code: 0,
      stdout: 'org_0001\n',
    });
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
  });

  it('makes one platform of two runs at once on one new database: the other reports it as existing', async () => {
    const db = await database();
    const runs = await Promise.all([1, 2].map(() => plat(['local', 'init', '--database-url', db.url, '--json'])));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const made = runs.filter((r) => r.stderr.startsWith('Created the embedded platform'));
    const found = runs.filter((r) => r.stderr.startsWith(`The embedded platform at ${db.shown} exists already.`));
    expect([made.length, found.length]).toEqual([1, 1]);
    const created = JSON.parse((made[0] as CliResult).stdout);
    expect(JSON.parse((found[0] as CliResult).stdout)).toEqual({
      organizationId: created.organizationId,
      userId: created.userId,
      db: db.shown,
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      expect((await client.query('SELECT id FROM organizations')).rows).toEqual([{ id: created.organizationId }]);
    } finally {
      await client.end();
    }
    expect(w.storedKey(db.account)).toBe(created.apiKey);
  });

  it('takes --email and --password-stdin, and sets the password of an existing platform', async () => {
    const db = await database();
    const init = ['local', 'init', '--database-url', db.url, '--email', 'me@acme.test', '--password-stdin'];
    const made = await plat([...init, '-o', 'ids'], { stdin: 'a long enough passphrase\n' });
    expect(made).toMatchObject({ code: 0, stdout: 'org_0001\n' });
    expect(await plat(init, { stdin: 'another long passphrase' })).toMatchObject({
      code: 0,
      stdout: `ORGANIZATION\tOWNER\tDB\norg_0001\tuser_0001\t${db.shown}\n`,
      stderr: `The embedded platform at ${db.shown} exists already.\nSet the sign-in password of me@acme.test.\n`,
    });
  });
});

describe('plat serve --database-url', () => {
  it('serves the database: /v2/health, and the API with the key local init stored', async () => {
    const db = await database();
    expect((await plat(['local', 'init', '--database-url', db.url, '-q'])).code).toBe(0);
    const key = w.storedKey(db.account) as string;
    const { base, stop } = await serve(['--database-url', db.url]);
    expect((await fetch(`${base}/v2/health`)).status).toBe(200);
    const users = await fetch(`${base}/v2/organizations/org_0001/users`, { headers: { 'X-API-Key': key } });
    expect(users.status).toBe(200);
    expect(((await users.json()) as { data: { email: string }[] }).data.map((u) => u.email)).toEqual([
      'admin@localhost',
    ]);
    const r = await stop();
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr.replace(/127\.0\.0\.1:\d+\/v2/g, '127.0.0.1:PORT/v2').split('\n')).toEqual([
      `Listening on http://127.0.0.1:PORT/v2 (live, ${db.shown}); Ctrl-C stops.`,
      '127.0.0.1 GET /v2/health 200 Nms req_…',
      '127.0.0.1 GET /v2/organizations/org_0001/users 200 Nms req_…',
      'Shutting down: finishing requests in flight…',
      'Stopped.',
      '',
    ]);
    expect(r.raw.stderr).not.toContain(key);
    // Served, never made: nothing was written beside the configuration.
    expect(existsSync(w.dataDir)).toBe(false);
  });

  it('does not make a platform in an empty database, and says how to', async () => {
    const db = await database();
    const { base, stop } = await serve(['--database-url', db.url]);
    expect((await fetch(`${base}/v2/health`)).status).toBe(200);
    const r = await stop();
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'The database holds no organization yet: make its platform with plat local init --database-url URL.\n',
    );
    expect(w.configFiles().trim()).toBe('');
  });
});

describe('PLAT_DATABASE_URL', () => {
  it('works as --database-url does: init, serve, and every command on the embedded platform', async () => {
    const db = await database();
    const env = { PLAT_DATABASE_URL: db.url };
    const made = await plat(['local', 'init', '--json'], { env });
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ organizationId: 'org_0001', db: db.shown });
    expect(w.storedKey(db.account)).toBe(JSON.parse(made.stdout).apiKey);

    const { base, stop } = await serve([], env);
    const key = w.storedKey(db.account) as string;
    const me = await fetch(`${base}/v2/auth/whoami`, { headers: { 'X-API-Key': key } });
    expect(me.status).toBe(200);
    expect((await stop()).stderr).toContain(`(live, ${db.shown})`);

    // Commands go to the database in-process, with its stored key; local mail reads its mailbox.
    expect(await plat(['users', 'invite', 'ada@example.com', '-o', 'ids'], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^inv_\w+\n$/),
    });
    const mail = await plat(['local', 'mail', '--json'], { env });
    expect(mail.code).toBe(0);
    expect(JSON.parse(mail.stdout)).toMatchObject([{ to: 'ada@example.com' }]);
    const status = await plat(['auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({
      endpoint: { kind: 'embedded', db: db.shown, why: 'embedded PostgreSQL, from PLAT_DATABASE_URL' },
      credential: { source: 'store', why: `stored for "${db.account}" in <tmp>/config/credentials.json` },
    });
    // --db names a file, and wins over the environment.
    const file = join(w.dir, 'dev.db');
    expect((await plat(['--db', file, 'local', 'path'], { env })).stdout).toBe('<tmp>/dev.db\n');
  });

  it('without a stored key, says where none is and how to make the platform (3)', async () => {
    const db = await database();
    expect(await plat(['users', 'list'], { env: { PLAT_DATABASE_URL: db.url } })).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        `plat: no API key is stored for the embedded platform at ${db.shown} (credential account ` +
        `"${db.account}"): set PLAT_API_KEY to an API key of that platform, or create the platform there with ` +
        'plat local init --database-url\n',
    });
  });
});

describe('plat local forget-secrets --database-url', () => {
  it('lets a platform whose key is lost start again with another one', async () => {
    const db = await database();
    expect((await plat(['local', 'init', '--database-url', db.url, '-q'])).code).toBe(0);
    const other = { PLAT_SECRET_KEY: randomBytes(32).toString('base64') };
    const refused = await plat(['serve', '--port', '0', '--database-url', db.url], { env: other });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(
      /^plat: the database's secrets are sealed with key [\w-]+, but the key in use \(PLAT_SECRET_KEY\)/,
    );
    expect(await plat(['--database-url', db.url, 'local', 'forget-secrets', '--yes'], { env: other })).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(
        new RegExp(`^Discarded the sealed secrets of ${db.shown.replaceAll('*', '\\*')}: `),
      ),
    });
    const { base, stop } = await serve(['--database-url', db.url], other);
    expect((await fetch(`${base}/v2/health`)).status).toBe(200);
    expect((await stop()).code).toBe(0);
  });
});

describe('refusals', () => {
  it('--db with --database-url is a usage error (2) that changes nothing', async () => {
    const db = await database();
    for (const argv of [
      ['local', 'init', '--db', join(w.dir, 'dev.db'), '--database-url', db.url],
      ['serve', '--port', '0', '--database-url', db.url, '--db', join(w.dir, 'dev.db')],
    ]) {
      expect(await plat(argv)).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          "plat: --db and --database-url both name the embedded platform's database: give one (a SQLite file, " +
          'or a PostgreSQL URL)\n',
      });
    }
    expect(existsSync(join(w.dir, 'dev.db'))).toBe(false);
    expect(w.configFiles().trim()).toBe('');
  });

  it('without PLAT_SECRET_KEY, names it (2), before anything is opened or listens', async () => {
    const db = await database();
    expect((await plat(['local', 'init', '--database-url', db.url, '-q'])).code).toBe(0);
    const message =
      'plat: a platform on PostgreSQL needs PLAT_SECRET_KEY: the key its secrets are sealed with, 32 bytes in ' +
      'base64 or hex (make one with: openssl rand -base64 32), the same for every plat that opens the database; ' +
      'keep it as safe as the database\n';
    for (const argv of [
      ['local', 'init', '--database-url', db.url],
      ['serve', '--port', '0', '--database-url', db.url],
      ['--database-url', db.url, 'users', 'list'],
    ]) {
      expect(await plat(argv, { env: { PLAT_SECRET_KEY: '' } })).toMatchObject({
        code: 2,
        stdout: '',
        stderr: message,
      });
    }
    const json = await plat(['local', 'init', '--json'], { env: { PLAT_SECRET_KEY: '', PLAT_DATABASE_URL: db.url } });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'usage_error', message: message.slice('plat: '.length, -1), status: null },
    });
  });

  it('a URL that is not one is refused (2) without being echoed', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [
        ['--database-url', `postgres://u:${PASSWORD}#x@h/db`],
        {},
        'plat: --database-url is not a valid URL: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, with ' +
          'special characters of the user name and password percent-encoded (%40 for @, %23 for #, %2F for /)\n',
      ],
      [
        [],
        { PLAT_DATABASE_URL: `mysql://u:${PASSWORD}@h/db` },
        'plat: PLAT_DATABASE_URL is not a PostgreSQL URL: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE ' +
          '(a SQLite database file goes to --db instead)\n',
      ],
      [
        ['--db', `postgres://u:${PASSWORD}@h/db`],
        {},
        'plat: --db takes a SQLite database file; give a PostgreSQL URL with --database-url instead\n',
      ],
      [
        ['--base-url', 'http://127.0.0.1:9', '--database-url', `postgres://u:${PASSWORD}@h/db`],
        {},
        'plat: --database-url applies to the embedded platform only, but the endpoint is remote (from --base-url)\n',
      ],
    ];
    for (const [flags, env, stderr] of cases) {
      expect(await plat([...flags, 'local', 'init'], { env })).toMatchObject({ code: 2, stdout: '', stderr });
    }
  });

  it('local path and local reset work on a file only: on PostgreSQL they say what to do instead (2)', async () => {
    const db = await database();
    const on = `the embedded platform is on the PostgreSQL database ${db.shown} (embedded PostgreSQL, from --database-url)`;
    expect(await plat(['--database-url', db.url, 'local', 'path'])).toMatchObject({
      code: 2,
      stderr: `plat: local path works on a SQLite database file, but ${on}: it has no file; connect to it with psql (or another PostgreSQL client) instead\n`,
    });
    // Refused before it asks anything.
    expect(await plat(['--database-url', db.url, 'local', 'reset'], { tty: true, stdin: 'y\n' })).toMatchObject({
      code: 2,
      stderr:
        `plat: local reset works on a SQLite database file, but ${on}: drop the database with PostgreSQL's own ` +
        'tools (dropdb), create it again, then run plat local init --database-url\n',
    });
  });

  it('a database that cannot be reached is a network failure (9), named without its password', async () => {
    const port = await freePort();
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/nowhere`;
    const shown = `postgres://postgres:***@127.0.0.1:${port}/nowhere`;
    for (const argv of [
      ['local', 'init', '--database-url', url],
      ['serve', '--port', '0', '--database-url', url],
    ]) {
      expect(await plat(argv)).toMatchObject({
        code: 9,
        stdout: '',
        stderr: `plat: cannot reach the PostgreSQL database ${shown}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
      });
    }
  });
});

describe('database URLs', () => {
  it('are told apart from files as the platform tells them', () => {
    for (const db of ['postgres://h/db', 'POSTGRESQL://h/db', 'postgres:///db?host=/run', './postgres.db', 'x.db']) {
      expect(isDatabaseUrl(db), db).toBe(isPostgresUrl(db));
    }
  });

  it('are shown without their password, nor any password parameter', () => {
    expect(maskDatabaseUrl('postgres://plat:s3cret@db.example.com:5433/plat?sslmode=require&password=x')).toBe(
      'postgres://plat:***@db.example.com:5433/plat?sslmode=require&password=***',
    );
    expect(maskDatabaseUrl('postgresql://db.example.com/plat')).toBe('postgresql://db.example.com/plat');
  });
});

describe('where --database-url and PLAT_DATABASE_URL take a command', () => {
  const URL_A = `postgres://plat:${PASSWORD}@db.example.com:5433/plat?sslmode=require`;
  const config = { profiles: { prod: { baseUrl: 'https://prod.example.com/v2' } } };
  const resolve = (flags: SettingsFlags, env: Record<string, string> = {}) =>
    resolveSettings({ flags, env, config, dataDir: '/data', cwd: '/home/ada/project' });

  it('to the database, with an account of its own that holds no credentials, and no organization of the profile', () => {
    expect(resolve({ databaseUrl: URL_A })).toEqual({
      profile: 'local',
      kind: 'embedded',
      db: URL_A,
      sandbox: false,
      account: 'local@postgres://db.example.com:5433/plat',
      why: {
        profile: 'default (no configuration)',
        endpoint: 'embedded PostgreSQL, from --database-url',
        org: "none (the credential's own organization)",
      },
    });
    expect(resolve({ sandbox: true }, { PLAT_DATABASE_URL: URL_A })).toMatchObject({
      db: URL_A,
      sandbox: true,
      account: 'local@postgres://db.example.com:5433/plat:sandbox',
    });
  });

  it('the flag wins over PLAT_BASE_URL, as --db does; PLAT_DATABASE_URL never replaces a remote endpoint', () => {
    const remote = { PLAT_BASE_URL: 'https://api.example.com' };
    expect(resolve({ databaseUrl: URL_A }, remote)).toMatchObject({ kind: 'embedded', db: URL_A });
    expect(resolve({}, { ...remote, PLAT_DATABASE_URL: URL_A })).toMatchObject({ kind: 'remote' });
    // Left in the environment, even a URL that is not one stops no remote command.
    expect(resolve({ profile: 'prod' }, { PLAT_DATABASE_URL: 'nonsense' })).toMatchObject({ kind: 'remote' });
    expect(() => resolve({ profile: 'prod', databaseUrl: URL_A })).toThrow(
      '--database-url applies to the embedded platform only, but the endpoint is remote (from profile "prod")',
    );
    // --db names a file, and wins over the environment.
    expect(resolve({ db: 'dev.db' }, { PLAT_DATABASE_URL: URL_A })).toMatchObject({ db: '/home/ada/project/dev.db' });
  });
});
