import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeDirectory } from './make-directory.js';

/**
 * Writes a private file so that readers see the old content or the new, never half of it: a temporary file in the
 * same directory (created 0600, so the secret is never readable by others even for an instant), flushed, renamed
 * over the target. The directory is created 0700 when missing (`what` names it in the error when it cannot be).
 * Synchronous, like all of plat's own file I/O: a command does one thing at a time.
 */
export function writeFileAtomic(path: string, content: string, what = 'configuration directory'): void {
  const dir = dirname(path);
  makeDirectory(dir, what);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeFileSync(fd, content, 'utf8');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The mode given to open() is filtered by the umask; set it exactly.
    chmodSync(temp, 0o600);
    renameSync(temp, path);
    renamed = true;
  } finally {
    if (!renamed) removeQuietly(temp);
  }
}

/**
 * Removes a file if it can, saying nothing when it cannot: a temporary file left by a failed write (whose own error
 * is the one to report), a lock file being released (already removed, or taken over).
 */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not there, or not removable: the caller's own outcome is what matters.
  }
}
