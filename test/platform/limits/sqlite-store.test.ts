import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../src/contract/limits.js';
import { createPlatform } from '../../../src/platform/index.js';
import type { BucketStore } from '../../../src/platform/limits/store.js';
import { IDLE_MS, SWEEP_EVERY } from '../../../src/platform/limits/store.js';
import { bucketsFilePath, sqliteBucketStore } from '../../../src/platform/store/limits.js';
import { openSqlite } from '../../../src/platform/store/sqlite.js';
import { send, type TestPlatform, testPlatform } from '../../helpers/platform.js';
import { limitsOf, setPlan } from './helpers.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plat-limits-'));
  dirs.push(dir);
  return join(dir, 'plat.db');
}
function store(path: string): BucketStore {
  const s = sqliteBucketStore(path);
  closers.push(() => s.close());
  return s;
}
async function takeOne(s: BucketStore, key: string, now = T0): Promise<boolean> {
  return (await s.claim(key, PLAN_LIMITS.free, now, 1)).granted === 1;
}

describe('the SQLite bucket store', () => {
  it('shares buckets between connections to one file, never spending a token twice', async () => {
    const file = bucketsFilePath(tempDb());
    const [a, b] = [store(file), store(file)];
    let allowed = 0;
    for (let i = 0; i < 20; i++) allowed += Number(await takeOne(i % 2 ? a : b, 'key:one'));
    expect(allowed).toBe(10);
    expect(await takeOne(a, 'key:two')).toBe(true);
  });

  it('keeps the buckets when another process opens the file', async () => {
    const file = bucketsFilePath(tempDb());
    await takeOne(store(file), 'key:one');
    expect(await store(file).get('key:one')).toEqual({ level: 9 * 60_000, at: T0 });
  });

  it('leaves no journal or WAL file beside it, while open or after', async () => {
    const file = bucketsFilePath(tempDb());
    const s = store(file);
    await takeOne(s, 'key:one');
    expect(readdirSync(join(file, '..'))).toEqual(['plat.db.limits']);
    await s.close();
    expect(readdirSync(join(file, '..'))).toEqual(['plat.db.limits']);
  });

  it('takes over a file an earlier plat kept in WAL mode, buckets and all', async () => {
    const file = bucketsFilePath(tempDb());
    const old = openSqlite(file);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE buckets (key TEXT PRIMARY KEY, level INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID');
    old.prepare('INSERT INTO buckets VALUES (?, ?, ?)').run('key:one', 42, T0);
    old.pragma('user_version = 1');
    old.close();
    const s = store(file);
    expect(await s.get('key:one')).toEqual({ level: 42, at: T0 });
    expect(readdirSync(join(file, '..'))).toEqual(['plat.db.limits']);
  });

  it('starts anew from a file that is not a database, and keeps working', async () => {
    const file = bucketsFilePath(tempDb());
    writeFileSync(file, 'not a database, '.repeat(512));
    const s = store(file);
    expect(await s.get('key:one')).toBeUndefined();
    expect(await takeOne(s, 'key:one')).toBe(true);
    expect(await store(file).get('key:one')).toEqual({ level: 9 * 60_000, at: T0 });
  });

  it('starts anew when the file is damaged while open, and runs the step again on the new one', async () => {
    const file = bucketsFilePath(tempDb());
    const s = store(file);
    await takeOne(s, 'key:one');
    // What a crash in the middle of a write (no journal on disk, no fsync) could leave.
    writeFileSync(file, Buffer.alloc(8192, 0xa5));
    expect(await takeOne(s, 'key:one')).toBe(true);
    expect(await s.get('key:one')).toEqual({ level: 9 * 60_000, at: T0 });
    expect(existsSync(file)).toBe(true);
    expect(await store(file).get('key:one')).toEqual({ level: 9 * 60_000, at: T0 });
  });

  it('sweeps buckets idle long enough to be full anyway', async () => {
    const s = store(bucketsFilePath(tempDb()));
    await takeOne(s, 'key:idle');
    const later = T0 + IDLE_MS;
    for (let i = 0; i < SWEEP_EVERY - 2; i++) await takeOne(s, `key:${i}`, later);
    expect(await s.get('key:idle')).toBeDefined();
    await takeOne(s, 'key:0', later);
    expect(await s.get('key:idle')).toBeUndefined();
    expect(await s.get('key:0')).toBeDefined();
  });
});

describe('platforms over one database file', () => {
  async function open(db: string, limits?: { store?: 'memory' | 'sqlite' }): Promise<TestPlatform> {
    const t = await testPlatform({ db, limits: { enabled: true, ...limits } });
    closers.push(() => t.platform.close());
    return t;
  }
  /** A second platform over the same file, as a second `plat` process would open it; calls with `key`. */
  async function reopen(t: TestPlatform, db: string, key: string, limits?: { store?: 'memory' | 'sqlite' }) {
    const platform = await createPlatform({
      db,
      clock: t.clock,
      logger: () => {},
      limits: { enabled: true, ...limits },
    });
    closers.push(() => platform.close());
    return (path: string) => send(platform.fetch, 'http://plat.test', key, 'GET', path);
  }

  it('share one budget by default (the bucket file beside the database)', async () => {
    const db = tempDb();
    const first = await open(db);
    await setPlan(first, 'free');
    for (let i = 0; i < 6; i++) expect((await first.call('GET', '/organizations')).status).toBe(200);
    const r = await (await reopen(first, db, first.ownerKey))('/organizations');
    expect(r.status).toBe(200);
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 3 });
  });

  it('keep budgets apart with the memory store', async () => {
    const db = tempDb();
    const first = await open(db, { store: 'memory' });
    await setPlan(first, 'free');
    for (let i = 0; i < 6; i++) await first.call('GET', '/organizations');
    const r = await (await reopen(first, db, first.ownerKey, { store: 'memory' }))('/organizations');
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 9 });
  });
});
