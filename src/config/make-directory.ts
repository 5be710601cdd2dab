import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from './errors.js';

/**
 * `mkdir -p` with a mode, that fails where Node.js's `mkdirSync(…, { recursive: true })` spins: where mkdir answers
 * ENOENT under a parent that exists (`/proc/nope`), Node.js 20 retries for ever at 100 % CPU. Makes each missing
 * level itself, once; a directory that cannot be made is a `ConfigError` naming it, what it is for (`what`: "data
 * directory"…) and why.
 */
export function makeDirectory(dir: string, what: string, mode = 0o700): void {
  try {
    makeLevels(dir, mode);
  } catch (err) {
    throw new ConfigError(`cannot create the ${what} ${dir}: ${reasonOf(err)}`, dir, { cause: err });
  }
}

function makeLevels(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (statSync(dir).isDirectory()) return;
      throw err;
    }
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    makeLevels(parent, mode);
    // The parent is there now: a second ENOENT (a file system that makes none, like /proc) is the answer.
    try {
      mkdirSync(dir, { mode });
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
    }
  }
}

/** What a file operation's error says, without the operation and path Node.js adds: `permission denied (EACCES)`. */
export function reasonOf(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  if (code === 'EEXIST') return 'a file of that name is in the way (EEXIST)';
  const described = /^[A-Z]+: ([^,]+)/.exec(message ?? '')?.[1];
  return described && code ? `${described} (${code})` : String(message ?? err);
}
