// `npm run bench`: performance figures of plat, each taken in this one run. Not a test: it prints, it does not assert.
//
// 1. The embedded platform with 100,000 users, in-process: median latency of the first page of
//    GET /organizations/{orgId}/users with `search` and with each `sort`, and of GET /users/{id}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap, createPlatform } from '../dist/platform/index.js';

const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Seeds `n` active users with names, e-mails and (for half of them) a last login, in one transaction. */
function seedUsers(platform, orgId, n) {
  const db = platform.db;
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
      member.run(orgId, id, email, `${first[i % first.length]} ${i}`, i % 10 === 0 ? 'suspended' : 'active', login, at, at);
    }
  })();
  db.exec('ANALYZE');
}

async function timeRequest(platform, key, path) {
  const times = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t0 = performance.now();
    const res = await platform.fetch(new Request(`http://bench/v2${path}`, { headers: { 'X-API-Key': key } }));
    await res.text();
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    if (i >= 5) times.push(performance.now() - t0);
  }
  return median(times);
}

async function platformBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-'));
  try {
    const platform = createPlatform({ db: join(dir, 'bench.db'), logger: () => {}, limits: { enabled: false } });
    const { organizationId, apiKey } = bootstrap(platform.base());
    const t0 = performance.now();
    seedUsers(platform, organizationId, USERS);
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
    console.log(`\nEmbedded platform, ${USERS.toLocaleString('en')} users, in-process, median of ${RUNS} (target < 20 ms):`);
    for (const [label, path] of cases) {
      const ms = await timeRequest(platform, apiKey, path);
      console.log(`  ${label.padEnd(46)} ${ms.toFixed(2).padStart(8)} ms`);
    }
    platform.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await platformBench();
