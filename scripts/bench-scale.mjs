// `npm run bench -- scale`: plat at a million users, on SQLite and on PostgreSQL.
//
// 1. The first page of GET /organizations/{orgId}/users (default sort, by name, by e-mail, suspended members alone,
//    cursor mode, and two searches) over 1,000,000 users, in-process through `platform.fetch` with the owner's API
//    key: median and p99 of each, SQLite and PostgreSQL side by side (target: under 20 ms).
// 2. GET /users/{id} on PostgreSQL under autocannon's load (16 connections a server), with one `plat serve` process,
//    then three serving the same database at once (one autocannon instance each, summed).
//
// PostgreSQL runs as a throw-away cluster of this run's own: Debian's packages (≥ 15, /usr/lib/postgresql/<v>/bin),
// `initdb` and `pg_ctl` as the `postgres` user when run as root, on a loopback port, in a temporary directory removed
// at the end. `PLAT_BENCH_USERS` sets the number of users (default 1,000,000), `PLAT_BENCH_RUNS` the requests timed
// per query (default 50), `PLAT_BENCH_SECONDS` and `PLAT_BENCH_ROUNDS` the load (default 3 interleaved rounds of 5 s).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createPlatform } from '../dist/platform/index.js';

const USERS = Number(process.env.PLAT_BENCH_USERS ?? 1_000_000);
const RUNS = Number(process.env.PLAT_BENCH_RUNS ?? 50);
const WARMUP = 5;
const SECONDS = Number(process.env.PLAT_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.PLAT_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const TARGET_MS = 20;
const EXPLAIN_MS = 5;
const PLAT_JS = fileURLToPath(new URL('../bin/plat.js', import.meta.url));

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger', 'Donald', 'Frances', 'Ken', 'Margaret', 'Linus'];
const START = Date.parse('2025-01-01T00:00:00.000Z');
/** The seeded user `i`'s id (the same on both backends). */
const userId = (i) => `user_bench${String(i).padStart(7, '0')}`;

const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** The value at `p` (0–1) of `xs` by nearest rank. */
function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

// ——— PostgreSQL: a throw-away cluster ———

/** The binaries of the newest PostgreSQL (≥ 15) Debian's packages installed, or undefined. */
function pgBinDir() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .map(Number)
    .filter((n) => n >= 15)
    .sort((a, b) => b - a)
    .map((m) => join(root, String(m), 'bin'))
    .find((d) => existsSync(join(d, 'initdb')));
}

/** A loopback port free at the time of asking. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts a cluster in a temporary directory, as the `postgres` user when run as root (PostgreSQL refuses to run as
 * root), on 127.0.0.1 and a socket in its own directory. `auto_explain` is loaded but silent until `explainSlow`.
 */
async function startPostgres(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (command, args) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${command} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const port = await freePort();
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  // A small server's settings: 512 MB of shared buffers (the data is some 1 GB, in the page cache besides), bulk
  // loading's memory and WAL room; fsync off as the tests have it (nothing here survives the run).
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c max_connections=200',
    '-c shared_buffers=512MB',
    '-c maintenance_work_mem=512MB',
    '-c max_wal_size=4GB',
    // Silent until `explainSlow` sets its threshold (by ALTER SYSTEM, which a -c here would override).
    '-c shared_preload_libraries=auto_explain',
  ];
  run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings.join(' '), '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    log: join(dir, 'log'),
    stop: () => {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

// ——— Seeding ———

/** Adds `n` users to the organization, straight into the SQLite file at `path`, in one transaction. */
function seedSqlite(path, orgId, n) {
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const account = db.prepare(
    'INSERT INTO accounts (id, email, email_verified, created_at, updated_at) VALUES (?, ?, 1, ?, ?)',
  );
  const member = db.prepare(
    `INSERT INTO org_users (org_id, user_id, email, name, role, status, last_login_at, joined_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'member', ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = userId(i);
      const email = `user${i}@example${i % 97}.test`;
      const at = new Date(START + i * 1000).toISOString();
      const login = i % 2 ? new Date(START + (n - i) * 1000).toISOString() : null;
      account.run(id, email, at, at);
      member.run(
        orgId,
        id,
        email,
        `${FIRST_NAMES[i % FIRST_NAMES.length]} ${i}`,
        i % 10 === 0 ? 'suspended' : 'active',
        login,
        at,
        at,
        at,
      );
    }
  })();
  // Raw rows bypass the users store, which keeps the search index (store/users.ts): index them all at once.
  db.exec("INSERT INTO org_users_search (org_users_search) VALUES ('rebuild')");
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/**
 * The same `n` users on PostgreSQL, made by the server itself: one `INSERT … SELECT … FROM generate_series` a table.
 * The membership table's secondary indexes (among them the two trigram indexes of the search) are dropped for the
 * load and built again from their own definitions afterwards, as a bulk load does; then `ANALYZE`.
 */
async function seedPostgres(url, orgId, n) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET maintenance_work_mem = '512MB'");
    const iso = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
    const at = `to_char(timestamp '2025-01-01' + i * interval '1 second', ${iso})`;
    const email = `'user' || i || '@example' || (i % 97) || '.test'`;
    const id = `'user_bench' || lpad(i::text, 7, '0')`;
    const { rows: indexes } = await client.query(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
       WHERE i.schemaname = current_schema() AND i.tablename = 'org_users'
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    await client.query('BEGIN');
    for (const { indexname } of indexes) await client.query(`DROP INDEX ${indexname}`);
    await client.query(
      `INSERT INTO accounts (id, email, email_verified, created_at, updated_at)
       SELECT ${id}, ${email}, 1, ${at}, ${at} FROM generate_series(0, $1::int - 1) AS i`,
      [n],
    );
    await client.query(
      `INSERT INTO org_users (org_id, user_id, email, name, role, status, last_login_at, joined_at, created_at, updated_at)
       SELECT $1, ${id}, ${email}, ($2::text[])[i % 10 + 1] || ' ' || i, 'member',
         CASE WHEN i % 10 = 0 THEN 'suspended' ELSE 'active' END,
         CASE WHEN i % 2 = 1 THEN to_char(timestamp '2025-01-01' + ($3::int - i) * interval '1 second', ${iso}) END,
         ${at}, ${at}, ${at}
       FROM generate_series(0, $3::int - 1) AS i`,
      [orgId, FIRST_NAMES, n],
    );
    for (const { indexdef } of indexes) await client.query(indexdef);
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE accounts');
    await client.query('VACUUM ANALYZE org_users');
  } finally {
    await client.end();
  }
}

// ——— 1. The users list ———

/** Times `path` on `platform`: `RUNS` requests after `WARMUP`, each awaited in turn; every answer must be a 200. */
async function timeRequest(platform, key, path) {
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const res = await platform.fetch(new Request(`http://bench/v2${path}`, { headers: { 'X-API-Key': key } }));
    await res.text();
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return { median: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/**
 * One request of each case, with PostgreSQL's `auto_explain` on: the plans of its statements over `EXPLAIN_MS` (a
 * request is a few statements: the count, the page, the caller's key and standing).
 */
async function explainSlow(pgUrl, pgLog, platform, key, cases) {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  const setting = async (value) => {
    await admin.query(`ALTER SYSTEM SET auto_explain.log_min_duration = '${value}'`);
    await admin.query('SELECT pg_reload_conf()');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the pool's sessions read the reload between statements
  };
  try {
    await admin.query("ALTER SYSTEM SET auto_explain.log_analyze = 'on'");
    await admin.query("ALTER SYSTEM SET auto_explain.log_buffers = 'on'");
    await setting(`${EXPLAIN_MS}ms`);
    for (const [label, path] of cases) {
      const from = readFileSync(pgLog, 'utf8').length;
      const res = await platform.fetch(new Request(`http://bench/v2${path}`, { headers: { 'X-API-Key': key } }));
      await res.text();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const logged = readFileSync(pgLog, 'utf8').slice(from).trim();
      console.log(`\n  PostgreSQL's plan of each statement over ${EXPLAIN_MS} ms in "${label}":`);
      console.log(logged ? logged.replace(/^/gm, '    ') : '    (none: no statement over the mark this time)');
    }
  } finally {
    await setting('-1').catch(() => {});
    await admin.end();
  }
}

async function usersList(sqlite, postgres, pgUrl, pgLog) {
  const list = (orgId) => `/organizations/${orgId}/users`;
  const cases = [
    ['default (sort=created_at, desc)', ''],
    ['sort=name&order=asc', '?sort=name&order=asc'],
    ['sort=email&order=asc', '?sort=email&order=asc'],
    ['status=suspended (a tenth)', '?status=suspended'],
    ['limit=20 (cursor mode: no count)', '?limit=20'],
    ['search=grace 4 (name substring)', `?search=${encodeURIComponent('grace 4')}`],
    ['search=example42 (e-mail domain, 1/97)', '?search=example42'],
  ];
  console.log(
    `\nUsers list, first page, ${USERS.toLocaleString('en')} users, in-process, ${RUNS} requests after ${WARMUP} ` +
      `(target < ${TARGET_MS} ms):`,
  );
  console.log(
    `  ${'GET /organizations/{id}/users'.padEnd(42)} ${'SQLite med / p99'.padStart(20)}   PostgreSQL med / p99`,
  );
  const slow = [];
  const cell = ({ median, p99 }) =>
    `${median.toFixed(1).padStart(7)} / ${p99.toFixed(1).padStart(6)} ms${median < TARGET_MS ? ' ' : '*'}`;
  for (const [label, query] of cases) {
    const s = await timeRequest(sqlite.platform, sqlite.apiKey, `${list(sqlite.organizationId)}${query}`);
    const p = await timeRequest(postgres.platform, postgres.apiKey, `${list(postgres.organizationId)}${query}`);
    console.log(`  ${label.padEnd(42)} ${cell(s).padStart(20)}   ${cell(p)}`);
    if (p.median >= TARGET_MS) slow.push([label, `${list(postgres.organizationId)}${query}`]);
  }
  console.log(`  (* median over ${TARGET_MS} ms; p99 by nearest rank of ${RUNS}${RUNS < 100 ? ': the slowest' : ''})`);
  if (slow.length) await explainSlow(pgUrl, pgLog, postgres.platform, postgres.apiKey, slow);
}

// ——— 2. plat serve on PostgreSQL, one process and three ———

/** `node bin/plat.js serve` on the database at `url`; resolves once it listens, with its origin. */
function platServe(url, secretKey, dir, name) {
  const log = join(dir, `${name}.log`);
  // The access log (a line a request) goes to a file: read by no one, it takes no CPU from the load generator.
  const fd = openSync(log, 'w');
  const proc = spawn(process.execPath, [PLAT_JS, 'serve', '--database-url', url, '--port', '0', '--no-rate-limits'], {
    stdio: ['ignore', 'ignore', fd],
    env: {
      ...process.env,
      PLAT_SECRET_KEY: secretKey,
      PLAT_CONFIG_DIR: join(dir, 'config'),
      PLAT_DATA_DIR: join(dir, 'data'),
      NO_COLOR: '1',
    },
  });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`plat serve exited ${code}: ${readFileSync(log, 'utf8')}`));
    proc.once('exit', exited);
    const poll = setInterval(() => {
      const found = /Listening on (http:\/\/\S+)\/v2/.exec(readFileSync(log, 'utf8'));
      if (!found) return;
      clearInterval(poll);
      proc.off('exit', exited);
      resolve({ proc, origin: found[1] });
    }, 50);
  });
}

/** autocannon on each of `urls` at once, `CONNECTIONS` each: the requests a second summed, p50 and p99 of them all. */
async function loadAll(urls, headers, duration = SECONDS) {
  const latencies = [];
  const results = await Promise.all(
    urls.map((url) => {
      const instance = autocannon({ url, headers, connections: CONNECTIONS, duration });
      instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
      return instance;
    }),
  );
  if (results.some((r) => r.non2xx || r.errors)) throw new Error('a request failed during the benchmark');
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p50: percentile(latencies, 0.5).toFixed(1),
    p99: percentile(latencies, 0.99).toFixed(1),
  };
}

async function serveBench(pgUrl, secretKey, apiKey, dir) {
  const servers = [];
  try {
    for (const name of ['serve-1', 'serve-2', 'serve-3']) servers.push(await platServe(pgUrl, secretKey, dir, name));
    const path = `/v2/users/${userId(Math.floor(USERS / 2))}`;
    const headers = { 'x-api-key': apiKey };
    const one = [`${servers[0].origin}${path}`];
    const three = servers.map((s) => `${s.origin}${path}`);
    await loadAll(three, headers, 3); // warm each up (JIT, the pool's connections, PostgreSQL's cache)
    const rows = { one: [], three: [] };
    for (let i = 0; i < ROUNDS; i++) {
      rows.one.push(await loadAll(one, headers));
      rows.three.push(await loadAll(three, headers));
    }
    const mid = (rs) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
    console.log(
      `\nplat serve on PostgreSQL, GET /users/{id} with an API key (rate limits off), ${CONNECTIONS} connections a ` +
        `server, ${ROUNDS} interleaved rounds of ${SECONDS} s (median round; this machine's cores are shared by ` +
        'the servers, PostgreSQL and the load generator):',
    );
    for (const [label, rs] of [
      ['1 plat serve', rows.one],
      ['3 plat serve, one autocannon each (summed)', rows.three],
    ]) {
      const r = mid(rs);
      console.log(
        `  ${label.padEnd(44)} ${String(Math.round(r.rps)).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms` +
          `   (rounds: ${rs.map((x) => Math.round(x.rps)).join(', ')})`,
      );
    }
  } finally {
    for (const s of servers) s.proc.kill('SIGTERM');
    await Promise.all(servers.map((s) => new Promise((resolve) => s.proc.once('exit', resolve))));
  }
}

// ——— The whole ———

export async function scaleBench({ required = true } = {}) {
  const bin = pgBinDir();
  if (!bin) {
    const why = 'PostgreSQL ≥ 15 is not installed (Debian: apt-get install postgresql)';
    if (required) throw new Error(`bench scale: ${why}`);
    console.log(`\nScale (${USERS.toLocaleString('en')} users): skipped, ${why}.`);
    return;
  }
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-scale-'));
  const cluster = await startPostgres(bin);
  const opened = [];
  try {
    const owner = { orgName: 'Acme', email: 'owner@acme.test', name: 'Olive Owner' };
    const quiet = { logger: () => {}, limits: { enabled: false } };

    const sqlitePath = join(dir, 'platform.db');
    let platform = await createPlatform({ db: sqlitePath, ...quiet });
    opened.push(platform);
    const sqlite = { platform, ...(await platform.admin.init(owner)) };
    let t0 = performance.now();
    seedSqlite(sqlitePath, sqlite.organizationId, USERS);
    console.log(`SQLite: seeded ${USERS.toLocaleString('en')} users in ${seconds(t0)} (rows, search index, ANALYZE)`);

    const secretKey = randomBytes(32).toString('base64');
    platform = await createPlatform({ db: cluster.url, secretKey, ...quiet });
    opened.push(platform);
    const postgres = { platform, ...(await platform.admin.init(owner)) };
    t0 = performance.now();
    await seedPostgres(cluster.url, postgres.organizationId, USERS);
    console.log(`PostgreSQL: seeded ${USERS.toLocaleString('en')} users in ${seconds(t0)} (rows, indexes, ANALYZE)`);

    await usersList(sqlite, postgres, cluster.url, cluster.log);
    for (const p of opened.splice(0)) await p.close();

    await serveBench(cluster.url, secretKey, postgres.apiKey, dir);
    console.log(`\n(scale: ${seconds(started)} in all)`);
  } finally {
    for (const p of opened) await p.close().catch(() => {});
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
