import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/platform/clock.js';
import { createPlatform } from '../../src/platform/index.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { baseOf } from '../helpers/internals.js';

const DIST = new URL('../../dist/platform/index.js', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'plat-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A separate Node process that opens the same database file and invites `count` users named `<prefix>-<i>@…`. */
function inviter(db: string, key: string, orgId: string, prefix: string, count: number): Promise<string> {
  const script = `
    const { createPlatform } = await import(${JSON.stringify(DIST.href)});
    const platform = await createPlatform({ db: process.env.DB, logger: (l) => console.error(l) });
    const calls = [];
    for (let i = 0; i < ${count}; i++) {
      calls.push(platform.fetch(new Request('http://x/v2/organizations/${orgId}/users', {
        method: 'POST',
        headers: { 'X-API-Key': process.env.KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: '${prefix}-' + i + '@example.test', name: '${prefix} ' + i }),
      })).then((r) => r.status));
    }
    const statuses = await Promise.all(calls);
    await platform.close();
    console.log(JSON.stringify(statuses.reduce((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {})));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, DB: db, KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

describe('several processes on one database file', () => {
  it('lose nothing when they write at the same time', async () => {
    expect(existsSync(DIST), 'run `npm run build` first (npm test does)').toBe(true);
    const db = join(dir, 'shared.db');
    const setup = await createPlatform({ db, logger: () => {} });
    const { organizationId, apiKey } = await bootstrap(baseOf(setup));
    setup.close();

    const results = await Promise.all(
      ['alpha', 'beta', 'gamma'].map((p) => inviter(db, apiKey, organizationId, p, 120)),
    );
    for (const r of results) expect(JSON.parse(r)).toEqual({ 201: 120 });

    const check = new Database(db, { readonly: true });
    const count = (sql: string) => (check.prepare(sql).get() as { n: number }).n;
    expect(count("SELECT count(*) AS n FROM org_users WHERE status = 'pending'")).toBe(360);
    expect(count('SELECT count(DISTINCT email) AS n FROM invitations')).toBe(360);
    expect(count("SELECT count(*) AS n FROM events WHERE type = 'user.invited'")).toBe(360);
    expect(count('SELECT count(*) AS n FROM outbox')).toBe(360);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
    check.close();
  });
});

/**
 * Another process that takes the database's write lock and commits after `ms`, or when told (`commit`); it ends,
 * releasing it, when killed (`stop`).
 */
async function lockHolder(db: string, ms: number): Promise<{ commit(): void; stop(): void; released: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const db = new Database(process.env.DB);
    db.exec('BEGIN IMMEDIATE');
    console.log('locked');
    const commit = () => { db.exec('COMMIT'); db.close(); process.exit(0); };
    setTimeout(commit, ${ms});
    process.stdin.once('data', commit);
  `;
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, DB: db },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code} before locking`)));
  });
  return { commit: () => child.stdin.write('commit\n'), stop: () => child.kill(), released };
}

/** A platform on a file of its own, bootstrapped, and its API called with the owner's key. */
async function platformAt(name: string, clock?: ReturnType<typeof fixedClock>) {
  const db = join(dir, name);
  const p = await createPlatform({ db, clock, logger: () => {} });
  const made = await bootstrap(baseOf(p));
  const call = (method: string, path: string, body?: unknown) =>
    p.fetch(
      new Request(`http://x/v2${path}`, {
        method,
        headers: { 'X-API-Key': made.apiKey, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  return { db, p, ...made, call };
}

/**
 * Sends a request while `holder` holds the write lock, runs `meanwhile`, checks that the request is still waiting, then
 * has the lock let go: the request's answer.
 */
async function heldUp(
  holder: { commit(): void },
  request: () => Promise<Response>,
  meanwhile: () => Promise<void>,
): Promise<Response> {
  let answered: Response | undefined;
  const pending = request().then((r) => (answered = r));
  await meanwhile();
  expect(answered).toBeUndefined();
  holder.commit();
  await pending;
  return answered as Response;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('a request while another process holds the write lock', () => {
  it('is answered at once when it reads, its key’s last-used time left undone; a write still waits its turn', async () => {
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const { db, p, organizationId, userId, call } = await platformAt('busy.db', clock);
    const check = new Database(db, { readonly: true });
    const lastUsed = () => (check.prepare('SELECT last_used_at AS at FROM api_keys').get() as { at: string | null }).at;
    try {
      expect(lastUsed()).toBeNull();
      // Held far past SQLite's 5 s busy timeout: the read must not wait for it (it would fail after 5 s).
      const holder = await lockHolder(db, 60_000);
      try {
        const r = await call('GET', `/users/${userId}`);
        expect(r.status, await r.clone().text()).toBe(200);
        expect(((await r.json()) as { id: string }).id).toBe(userId);
        expect(lastUsed()).toBeNull();
      } finally {
        holder.stop();
        await holder.released;
      }
      expect((await call('GET', `/users/${userId}`)).status).toBe(200);
      expect(lastUsed()).toBe('2026-01-01T00:00:00.000Z');

      // A minute on, the key's last use is due again; the write waits for the lock, as every write does.
      clock.advance(60_000);
      const again = await lockHolder(db, 60_000);
      try {
        const create = () => call('POST', `/organizations/${organizationId}/projects`, { name: 'Waited' });
        const created = await heldUp(again, create, () => pause(200));
        expect(created.status, await created.clone().text()).toBe(201);
      } finally {
        again.stop();
        await again.released;
      }
      expect(lastUsed()).toBe('2026-01-01T00:00:00.000Z');
    } finally {
      check.close();
      await p.close();
    }
  }, 30_000);

  it('holds up no other request while a write waits for it: reads are answered, the write goes on once it can', async () => {
    const { db, p, organizationId, userId, call } = await platformAt('waiting.db');
    // The key's last use is written now, so that the requests below write nothing but the project.
    expect((await call('GET', `/users/${userId}`)).status).toBe(200);
    const holder = await lockHolder(db, 60_000);
    try {
      const create = () => call('POST', `/organizations/${organizationId}/projects`, { name: 'After the lock' });
      // The write is waiting for the other process; in the meantime this process answers reads, many times over.
      const created = await heldUp(holder, create, async () => {
        for (let i = 0; i < 20; i++) {
          const one = await call('GET', `/users/${userId}`);
          expect(one.status, await one.clone().text()).toBe(200);
          const list = await call('GET', `/organizations/${organizationId}/users?sort=name`);
          expect(list.status, await list.clone().text()).toBe(200);
          await pause(10);
        }
      });
      expect(created.status, await created.clone().text()).toBe(201);
    } finally {
      holder.stop();
      await holder.released;
      await p.close();
    }
  }, 30_000);

  it('lets the process go on while a write outside any transaction waits for it, its queries too', async () => {
    const { db, p, organizationId, call } = await platformAt('autocommit.db');
    // The key's last use written now: the list below writes nothing.
    const list = () => call('GET', `/organizations/${organizationId}/users?sort=name`);
    expect((await list()).status).toBe(200);
    const holder = await lockHolder(db, 60_000);
    const check = new Database(db, { readonly: true });
    try {
      let done = false;
      const write = baseOf(p)
        .sql.q.updateTable('organizations')
        .set({ name: 'Renamed' })
        .where('id', '=', organizationId)
        .execute()
        .then(() => (done = true));
      // Timers fire while the write waits (the event loop is not asleep in SQLite), and a query through the
      // connection the write lets go of between its tries is answered meanwhile.
      await pause(50);
      const listed = await list();
      expect(listed.status, await listed.clone().text()).toBe(200);
      expect(done).toBe(false);
      holder.commit();
      await write;
      expect(check.prepare('SELECT name FROM organizations WHERE id = ?').pluck().get(organizationId)).toBe('Renamed');
    } finally {
      check.close();
      holder.stop();
      await holder.released;
      await p.close();
    }
  }, 30_000);
});

describe('database files', () => {
  it('are created readable by their owner only, with their WAL files and the rate-limit buckets (no files of their own)', async () => {
    const { statSync } = await import('node:fs');
    const old = process.umask(0o022);
    try {
      const db = join(dir, 'private.db');
      const p = await createPlatform({ db, logger: () => {}, limits: { enabled: true, store: 'sqlite' } });
      const { apiKey, organizationId } = await bootstrap(baseOf(p));
      const r = await p.fetch(
        new Request(`http://x/v2/organizations/${organizationId}`, { headers: { 'X-API-Key': apiKey } }),
      );
      expect(r.status).toBe(200);
      for (const f of [db, `${db}-wal`, `${db}-shm`, `${db}.limits`]) {
        expect(statSync(f).mode & 0o777, f).toBe(0o600);
      }
      expect(readdirSync(dir).filter((f) => f.startsWith('private.db.limits'))).toEqual(['private.db.limits']);
      p.close();
    } finally {
      process.umask(old);
    }
  });
});
