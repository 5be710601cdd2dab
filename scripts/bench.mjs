// `npm run bench`: performance figures of plat, each taken in this one run. Not a test: it prints, it does not assert.
//
// 1. The embedded platform with 100,000 users, in-process: median latency of the first page of
//    GET /organizations/{orgId}/users with `search` and with each `sort`, of GET /users/{id}, and of SCIM's
//    GET /Users's first and last pages of 100 (an identity provider's full import).
// 2. The CLI's cold start, as a ratio to `node -e 0` measured in the same run, interleaved: `plat --version`,
//    `plat --help`, and `plat users list` against an embedded platform holding 10,000 users — `plat` as an npm install
//    on a POSIX system runs it, the launcher (it starts from the startup snapshot) — and that last command as
//    `node bin/plat.js`, without the snapshot.
// 3. Rate limits: the same in-process GET with limits off, buckets in memory, and buckets in the SQLite bucket file,
//    as ratios to off (`npm run bench -- limits` for this part alone).
// 4. Bulk provisioning: `plat users import` and `export` of 100,000 users (`npm run bench -- bulk`; bench-bulk.mjs).
// 5. The server: `plat serve`'s throughput and latency on GET /users/{id} under load, as a ratio to a bare node:http
//    server (`npm run bench -- server`; bench-server.mjs).
// 6. Scale: the users list over 1,000,000 users on SQLite and on PostgreSQL, and `plat serve` on PostgreSQL with one
//    process and three (`npm run bench -- scale`; bench-scale.mjs, which starts a PostgreSQL cluster of its own).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createPlatform } from '../dist/platform/index.js';

/**
 * `plat` as an npm install on a POSIX system runs it: bin/plat.js read by the shell, the launcher, which starts
 * Node.js from the startup snapshot; and as Node.js runs the same file everywhere else (without the snapshot).
 */
const PLAT_JS = fileURLToPath(new URL('../bin/plat.js', import.meta.url));
const PLAT = ['sh', PLAT_JS];

const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Seeds `n` active users with names, e-mails and (for half of them) a last login, in one transaction. */
/** Adds `n` users to the organization, straight into the SQLite file at `path` (a connection of its own). */
function seedUsers(path, orgId, n) {
  const db = new Database(path);
  const account = db.prepare(
    'INSERT INTO accounts (id, email, email_verified, created_at, updated_at) VALUES (?, ?, 1, ?, ?)',
  );
  const member = db.prepare(
    `INSERT INTO org_users (org_id, user_id, email, name, role, status, last_login_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'member', ?, ?, ?, ?)`,
  );
  const first = ['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger', 'Donald', 'Frances', 'Ken', 'Margaret', 'Linus'];
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = `user_bench${String(i).padStart(7, '0')}`;
      const email = `user${i}@example${i % 97}.test`;
      const at = new Date(start + i * 1000).toISOString();
      const login = i % 2 ? new Date(start + (n - i) * 1000).toISOString() : null;
      account.run(id, email, at, at);
      member.run(
        orgId,
        id,
        email,
        `${first[i % first.length]} ${i}`,
        i % 10 === 0 ? 'suspended' : 'active',
        login,
        at,
        at,
      );
    }
  })();
  // Raw rows bypass the users store, which keeps the search index (store/users.ts): index them all at once.
  db.exec("INSERT INTO org_users_search (org_users_search) VALUES ('rebuild')");
  db.exec('ANALYZE');
  db.close();
}

/** Median time of `path` in-process, sent with `headers` (an API key: `{ 'X-API-Key': key }`). */
async function timeRequest(platform, headers, path) {
  const times = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t0 = performance.now();
    const res = await platform.fetch(new Request(`http://bench/v2${path}`, { headers }));
    await res.text();
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    if (i >= 5) times.push(performance.now() - t0);
  }
  return median(times);
}

async function platformBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-'));
  try {
    const path = join(dir, 'bench.db');
    const platform = await createPlatform({ db: path, logger: () => {}, limits: { enabled: false } });
    const { organizationId, apiKey } = await platform.admin.init();
    const t0 = performance.now();
    seedUsers(path, organizationId, USERS);
    console.log(`seeded ${USERS.toLocaleString('en')} users in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const list = `/organizations/${organizationId}/users`;
    const cases = [
      ['search=grace 4 (name or e-mail, substring)', `${list}?search=${encodeURIComponent('grace 4')}`],
      ['search=example42 (e-mail domain)', `${list}?search=example42`],
      ['sort=created_at (default, desc)', `${list}?sort=created_at`],
      ['sort=name', `${list}?sort=name&order=asc`],
      ['sort=email', `${list}?sort=email&order=asc`],
      ['sort=last_login_at', `${list}?sort=last_login_at`],
      ['sort=name, cursor mode', `${list}?sort=name&limit=20`],
      ['GET /users/{id}', '/users/user_bench0050000'],
    ];
    console.log(
      `\nEmbedded platform, ${USERS.toLocaleString('en')} users, in-process, median of ${RUNS} (target < 20 ms):`,
    );
    // SCIM's lists as an identity provider's full import walks them: pages of 100 from the start and the end.
    await platform.admin.verifyDomain(organizationId, 'example.test');
    const made = await platform.fetch(
      new Request(`http://bench/v2/organizations/${organizationId}/scim/tokens`, {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'bench' }),
      }),
    );
    const scimHeaders = { Authorization: `Bearer ${(await made.json()).token}` };
    const scim = `/organizations/${organizationId}/scim/Users`;
    const scimCases = [
      ['SCIM GET /Users, first page of 100', `${scim}?startIndex=1&count=100`],
      ['SCIM GET /Users, last page of 100', `${scim}?startIndex=${USERS - 99}&count=100`],
    ];
    for (const [label, path, headers] of [
      ...cases.map(([l, p]) => [l, p, { 'X-API-Key': apiKey }]),
      ...scimCases.map(([l, p]) => [l, p, scimHeaders]),
    ]) {
      const ms = await timeRequest(platform, headers, path);
      console.log(`  ${label.padEnd(46)} ${ms.toFixed(2).padStart(8)} ms`);
    }
    await platform.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What rate limits cost each request: the same in-process GET of an Enterprise organization with 50 keys in turn (as
 * CI jobs would each have theirs), with limits off, buckets in memory, and buckets in the SQLite file beside the
 * database (the default for a database file) — leases spent in memory, the next ones claimed off the request's path.
 * Beside them, what a request pays when it must claim its bucket itself (a bucket new to the process, or a lease run
 * out): the clock a second further at each reading, so that every lease has expired by the next request.
 */
async function limitsBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-limits-'));
  const KEYS = 50;
  try {
    const cases = [
      ['off', { enabled: false }],
      ['memory', { store: 'memory' }],
      ['sqlite (bucket file, the default)', { store: 'sqlite' }],
      ['sqlite, a claim on every request', { store: 'sqlite' }, 'claim'],
    ];
    const n = 3000;
    let medians = [];
    // Two rounds, the first only warming up the JIT (else whichever case runs first looks slowest).
    for (let round = 0; round < 2; round++) {
      medians = [];
      for (const [i, [label, limits, every]] of cases.entries()) {
        let now = Date.now();
        const clock =
          every === 'claim'
            ? () => {
                now += 1000;
                return new Date(now);
              }
            : () => new Date();
        const platform = await createPlatform({
          db: join(dir, `limits-${round}-${i}.db`),
          clock,
          logger: () => {},
          limits,
        });
        const { organizationId, apiKey } = await platform.admin.init();
        const call = (method, path, key, body) =>
          platform.fetch(
            new Request(`http://bench/v2${path}`, {
              method,
              headers: { 'X-API-Key': key, ...(body && { 'Content-Type': 'application/json' }) },
              body: body && JSON.stringify(body),
            }),
          );
        const keys = [];
        for (let k = 0; k < KEYS; k++) {
          const res = await call('POST', `/organizations/${organizationId}/api-keys`, apiKey, {
            name: `bench ${k}`,
            environment: 'live',
          });
          keys.push((await res.json()).key);
        }
        const times = [];
        for (let j = 0; j < n + 200; j++) {
          const t0 = performance.now();
          const res = await call('GET', `/organizations/${organizationId}`, keys[j % KEYS]);
          await res.text();
          if (res.status !== 200) throw new Error(`limits ${label}: HTTP ${res.status}`);
          if (j >= 200) times.push(performance.now() - t0);
        }
        await platform.close();
        medians.push([label, median(times)]);
      }
    }
    const base = medians[0][1];
    console.log(`
Rate limits, in-process GET /organizations/{id}, ${KEYS} keys in turn, median of ${n}:`);
    for (const [label, ms] of medians) {
      console.log(`  ${label.padEnd(46)} ${(ms * 1000).toFixed(0).padStart(8)} µs  ${(ms / base).toFixed(2)}×`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of one process run, in ms; fails loudly if the command fails. */
function runOnce([command, ...args], env) {
  const t0 = performance.now();
  const r = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Times each command RUNS times, interleaved, and prints the medians as ratios to the first (`node -e 0`). */
function coldStarts(commands, env, what) {
  const times = new Map(commands.map(([label]) => [label, []]));
  for (let i = 0; i < 3; i++) for (const [, args] of commands) runOnce(args, env); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [label, args] of commands) times.get(label).push(runOnce(args, env));
  const baseline = median(times.get(commands[0][0]));
  console.log(
    `\nCLI cold start ${what}, median of ${RUNS} runs each, interleaved (targets: --version ≤ 1.3×, users list ≤ 2×):`,
  );
  for (const [label] of commands) {
    const ms = median(times.get(label));
    console.log(`  ${label.padEnd(50)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / baseline).toFixed(2)}×`);
  }
}

async function cliBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-cli-'));
  try {
    const env = {
      ...process.env,
      PLAT_CONFIG_DIR: join(dir, 'config'),
      PLAT_DATA_DIR: join(dir, 'data'),
      PLAT_CREDENTIAL_STORE: 'file',
      NO_COLOR: '1',
    };
    // The first command bootstraps the embedded platform; then 10,000 users are added to it.
    runOnce([...PLAT, 'users', 'list', '-o', 'ids'], env);
    const local = join(dir, 'data', 'local.db');
    const read = new Database(local, { readonly: true });
    const orgId = read.prepare('SELECT id FROM organizations LIMIT 1').get().id;
    read.close();
    seedUsers(local, orgId, 10_000);

    const commands = [
      ['node -e 0', [process.execPath, '-e', '0']],
      ['plat --version', [...PLAT, '--version']],
      ['plat --help', [...PLAT, '--help']],
      ['plat users list (10,000 users, embedded)', [...PLAT, 'users', 'list']],
      ['  the same without the snapshot (node bin/plat.js)', [process.execPath, PLAT_JS, 'users', 'list']],
    ];
    // NODE_EXTRA_CA_CERTS makes every Node.js process parse those certificates at start, before any script: a fixed
    // cost added to plat and to `node -e 0` alike, which pulls every ratio towards 1. The ratios that say what plat
    // itself costs are taken without it; with it (as this environment has it) they are printed too.
    const { NODE_EXTRA_CA_CERTS: extraCerts, ...clean } = env;
    coldStarts(commands, clean, 'without NODE_EXTRA_CA_CERTS');
    if (extraCerts) coldStarts(commands, env, `with this environment's NODE_EXTRA_CA_CERTS (${extraCerts})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv[2];
if (!only || only === 'platform') await platformBench();
if (!only || only === 'limits') await limitsBench();
if (!only || only === 'cli') await cliBench();
if (!only || only === 'bulk') await (await import('./bench-bulk.mjs')).bulkBench();
if (!only || only === 'server') await (await import('./bench-server.mjs')).serverBench();
if (!only || only === 'scale') await (await import('./bench-scale.mjs')).scaleBench({ required: only === 'scale' });
