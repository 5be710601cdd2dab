import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../src/platform/auth/api-keys.js';
import { UNIT } from '../../../src/platform/limits/bucket.js';
import { bucketsFilePath, sqliteBucketStore } from '../../../src/platform/store/limits.js';
import { baseOf } from '../../helpers/internals.js';
import { testPlatform } from '../../helpers/platform.js';
import { scratchDir, transpileTree } from './transpile.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

/** Lines the child writes, one promise per line in order. */
function lines(child: ChildProcessWithoutNullStreams): () => Promise<string> {
  let buffer = '';
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else queue.push(line);
    }
  });
  return () => {
    const line = queue.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
  };
}

describe('two processes sharing one database', () => {
  it('spend one budget between them, never the same token twice and none lost', async () => {
    const scratch = scratchDir('limits-child');
    const dir = mkdtempSync(join(tmpdir(), 'plat-limits-'));
    cleanup.push(scratch, dir);
    const modulePath = transpileTree('src/platform/limits/index.ts', scratch);
    const db = join(dir, 'plat.db');
    const t = await testPlatform({ db, limits: { enabled: true } });
    const keyId = (await baseOf(t.platform).stores.apiKeys.byHash(hashSecret(t.ownerKey)))?.id as string;
    const bucket = `key:${keyId}@${t.orgId}`;
    const now = t.clock().getTime();

    const stderr: string[] = [];
    const args = [pathToFileURL(modulePath).href, db, bucket, String(now), '700'];
    const child = spawn(process.execPath, [join(import.meta.dirname, 'spend-child.mjs'), ...args]);
    child.stderr.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const next = lines(child);
    expect(await Promise.race([next(), exited.then(() => `exited: ${stderr.join('')}`)])).toBe('ready');

    // One request first, so the parent is warm when the child starts and the two loops overlap.
    let parentAllowed = Number((await t.call('GET', '/organizations')).status === 200);
    child.stdin.end('go\n');
    for (let i = 0; i < 700; i++) {
      const r = await t.call('GET', '/organizations');
      if (r.status === 200) parentAllowed++;
      else expect(r.status).toBe(429);
    }
    const childAllowed = Number(await next());
    expect(await exited).toBe(0);
    await t.platform.close();
    // Enterprise: a burst of 1,000 and a clock that stands still. Each process spends leases it claimed from the
    // shared bucket and gives back what it did not spend when it closes: what both were allowed plus what the bucket
    // holds afterwards is the whole burst — no token spent twice, none lost.
    const store = sqliteBucketStore(bucketsFilePath(db));
    const left = Math.floor(((await store.get(bucket))?.level ?? 1_000 * UNIT) / UNIT);
    await store.close();
    expect(childAllowed).toBeGreaterThan(0);
    expect(parentAllowed).toBeGreaterThanOrEqual(300);
    expect(parentAllowed + childAllowed).toBeLessThanOrEqual(1_000);
    expect(parentAllowed + childAllowed + left).toBe(1_000);
  });
});
