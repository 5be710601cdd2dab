import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshLockPath, withFileLock } from '../../src/auth/refresh-lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the refresh lock', () => {
  it('is one file per account in the config directory, gone once released', async () => {
    const path = refreshLockPath(dir, 'dev:sandbox');
    expect(path).toBe(join(dir, 'refresh-dev%3Asandbox.lock'));
    const holder = await withFileLock(path, async () => JSON.parse(readFileSync(path, 'utf8')));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(existsSync(path)).toBe(false);
  });

  it('serializes: no two holders at once, every waiter gets its turn', async () => {
    const path = refreshLockPath(dir, 'dev');
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withFileLock(path, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('is released when the work throws', async () => {
    const path = refreshLockPath(dir, 'dev');
    await expect(withFileLock(path, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose holder on this host has exited', async () => {
    const path = refreshLockPath(dir, 'dev');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), at: new Date().toISOString() }));
    expect(await withFileLock(path, async () => 'mine', { waitMs: 1000 })).toBe('mine');
  });

  it('takes over a lock untouched for longer than staleMs (a holder on another host)', async () => {
    const path = refreshLockPath(dir, 'dev');
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere', at: '2026-01-01T00:00:00.000Z' }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(await withFileLock(path, async () => 'mine', { waitMs: 1000, staleMs: 30_000 })).toBe('mine');
  });

  it('waits for a live holder, and gives up after waitMs with the file named', async () => {
    const path = refreshLockPath(dir, 'dev');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
    await expect(withFileLock(path, async () => 'never', { waitMs: 200 })).rejects.toMatchObject({
      name: 'AuthError',
      message: expect.stringContaining(`another plat process has held the lock file ${path}`),
    });
    expect(existsSync(path)).toBe(true); // not ours to remove
  });
});
