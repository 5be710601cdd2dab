import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../src/contract/limits.js';
import { createPlatform } from '../../../src/platform/index.js';
import { take } from '../../../src/platform/limits/bucket.js';
import type { BucketStore } from '../../../src/platform/limits/store.js';
import { IDLE_MS, SWEEP_EVERY } from '../../../src/platform/limits/store.js';
import { bucketsFilePath, openBucketsFile, sqliteBucketStore } from '../../../src/platform/store/limits.js';
import { send, type TestPlatform, testPlatform } from '../../helpers/platform.js';
import { limitsOf, setPlan } from './helpers.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const dirs: string[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plat-limits-'));
  dirs.push(dir);
  return join(dir, 'plat.db');
}
function store(path: string): BucketStore {
  const s = sqliteBucketStore(openBucketsFile(path));
  closers.push(() => s.close());
  return s;
}
function takeOne(s: BucketStore, key: string, now = T0): boolean {
  return s.update(key, now, (prev) => {
    const { next, state } = take(prev, PLAN_LIMITS.free, now);
    return { next, result: state.allowed };
  });
}

describe('the SQLite bucket store', () => {
  it('shares buckets between connections to one file, never spending a token twice', () => {
    const file = bucketsFilePath(tempDb());
    const [a, b] = [store(file), store(file)];
    let allowed = 0;
    for (let i = 0; i < 20; i++) allowed += Number(takeOne(i % 2 ? a : b, 'key:one'));
    expect(allowed).toBe(10);
    expect(takeOne(a, 'key:two')).toBe(true);
  });

  it('keeps the buckets when another process opens the file', () => {
    const file = bucketsFilePath(tempDb());
    takeOne(store(file), 'key:one');
    expect(store(file).get('key:one')).toEqual({ level: 9 * 60_000, at: T0 });
  });

  it('sweeps buckets idle long enough to be full anyway', () => {
    const s = store(bucketsFilePath(tempDb()));
    takeOne(s, 'key:idle');
    const later = T0 + IDLE_MS;
    for (let i = 0; i < SWEEP_EVERY - 2; i++) takeOne(s, `key:${i}`, later);
    expect(s.get('key:idle')).toBeDefined();
    takeOne(s, 'key:0', later);
    expect(s.get('key:idle')).toBeUndefined();
    expect(s.get('key:0')).toBeDefined();
  });
});

describe('platforms over one database file', () => {
  function open(db: string, limits?: { store?: 'memory' | 'sqlite' }): TestPlatform {
    const t = testPlatform({ db, limits: { enabled: true, ...limits } });
    closers.push(() => t.platform.close());
    return t;
  }
  /** A second platform over the same file, as a second `plat` process would open it; calls with `key`. */
  function reopen(t: TestPlatform, db: string, key: string, limits?: { store?: 'memory' | 'sqlite' }) {
    const platform = createPlatform({ db, clock: t.clock, logger: () => {}, limits: { enabled: true, ...limits } });
    closers.push(() => platform.close());
    return (path: string) => send(platform.fetch, 'http://plat.test', key, 'GET', path);
  }

  it('share one budget by default (the bucket file beside the database)', async () => {
    const db = tempDb();
    const first = open(db);
    setPlan(first, 'free');
    for (let i = 0; i < 6; i++) expect((await first.call('GET', '/organizations')).status).toBe(200);
    const r = await reopen(first, db, first.ownerKey)('/organizations');
    expect(r.status).toBe(200);
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 3 });
  });

  it('keep budgets apart with the memory store', async () => {
    const db = tempDb();
    const first = open(db, { store: 'memory' });
    setPlan(first, 'free');
    for (let i = 0; i < 6; i++) await first.call('GET', '/organizations');
    const r = await reopen(first, db, first.ownerKey, { store: 'memory' })('/organizations');
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 9 });
  });
});
