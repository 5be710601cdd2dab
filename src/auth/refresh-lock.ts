import {
  closeSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { removeQuietly } from '../config/atomic-write.js';
import { makeDirectory } from '../config/make-directory.js';
import { AuthError } from './errors.js';

/** How long to wait for the lock, and when a lock left behind counts as abandoned. */
export interface LockOptions {
  /** Give up after waiting this long (default 60 s): a refresh takes a second or two. */
  waitMs?: number;
  /** A lock whose file was not touched for this long is abandoned (default 30 s); its holder touches it meanwhile. */
  staleMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_WAIT_MS = 60_000;
const DEFAULT_STALE_MS = 30_000;
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The lock file that serializes the refreshes of one credential: `<configDir>/refresh-<account>.lock`. */
export function refreshLockPath(configDir: string, account: string): string {
  return join(configDir, `refresh-${encodeURIComponent(account)}.lock`);
}

/**
 * Runs `work` holding an exclusive lock between processes: a file created with O_EXCL (`wx`), which names its holder
 * (pid, host). Waiters retry every few tens of milliseconds. A lock is taken over when its holder, on this host, is
 * no longer running, or when its file has not been touched for `staleMs` (the holder touches it every third of that).
 * The file operations are synchronous (each is one small system call); only the waiting is not.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const release = await acquire(path, opts);
  try {
    return await work();
  } finally {
    release();
  }
}

async function acquire(path: string, opts: LockOptions): Promise<() => void> {
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const sleep = opts.sleep ?? defaultSleep;
  makeDirectory(dirname(path), 'configuration directory');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner = `${JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() })}\n`;
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeFileSync(fd, owner, 'utf8');
      } finally {
        closeSync(fd);
      }
      const touch = setInterval(() => {
        const now = new Date();
        try {
          utimesSync(path, now, now);
        } catch {
          // Taken over meanwhile, or the directory is gone: the holder finds out when it releases.
        }
      }, staleMs / 3);
      touch.unref();
      return () => {
        clearInterval(touch);
        // Only our own file: had it been taken over as stale, the file there now is another holder's.
        if (readOrEmpty(path) === owner) removeQuietly(path);
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new AuthError('unexpected', `cannot create the lock file ${path} (${code})`);
    }
    if (removeIfAbandoned(path, staleMs)) continue;
    if (Date.now() > deadline) {
      throw new AuthError(
        'unexpected',
        `another plat process has held the lock file ${path} for over ${Math.round(waitMs / 1000)} s; ` +
          'if no plat process is running, delete that file',
      );
    }
    await sleep(10 + Math.floor(Math.random() * 40));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the lock if its holder is gone; true when the caller should try again at once. */
function removeIfAbandoned(path: string, staleMs: number): boolean {
  let before: Stats;
  let text: string;
  try {
    before = statSync(path);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'; // released meanwhile
  }
  let holder: { pid?: unknown; host?: unknown } = {};
  try {
    holder = JSON.parse(text) as typeof holder;
  } catch {
    // Being written right now, or damaged: only its age can tell.
  }
  const gone = holder.host === hostname() && typeof holder.pid === 'number' && !alive(holder.pid);
  const untouched = Date.now() - before.mtimeMs > staleMs;
  if (!gone && !untouched) return false;
  try {
    // The same file still (not one a faster waiter created after removing this one)?
    const now = statSync(path);
    if (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs) return true;
    unlinkSync(path);
  } catch {
    // Removed by another waiter: try again.
  }
  return true;
}

/** The file's text, or '' when it cannot be read. */
function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
