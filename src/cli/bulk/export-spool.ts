import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { removeQuietly } from '../../config/atomic-write.js';
import { writeAll } from './export-target.js';

/** What one read takes from the spool. */
const READ_SIZE = 1 << 20;
const NEWLINE = 0x0a;

/**
 * A temporary file of lines, written once and read back once: what lets an export hold a page at a time rather
 * than every user. Created 0600 and unlinked at once where the system allows (it lives on through its descriptor),
 * so that nothing of it is left behind even when plat is killed; elsewhere (Windows) removed when closed.
 */
export interface Spool {
  /** Appends lines, each ending with `\n` (JSON text never holds a raw newline). */
  append(lines: string): void;
  /** The lines written, from the first, a batch (about a mebibyte of them) at a time. */
  batches(): Generator<string[]>;
  close(): void;
}

/** Opens a spool in `dir`. */
export function openSpool(dir: string): Spool {
  const path = join(dir, `.plat-export.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(path, 'wx+', 0o600);
  let linked = true;
  try {
    unlinkSync(path);
    linked = false;
  } catch {
    // Not while open, here: removed on close instead.
  }
  let closed = false;
  return {
    append(lines) {
      writeAll(fd, Buffer.from(lines, 'utf8'));
    },
    *batches() {
      const buffer = Buffer.allocUnsafe(READ_SIZE);
      let position = 0;
      let carry = Buffer.alloc(0);
      for (;;) {
        const n = readSync(fd, buffer, 0, READ_SIZE, position);
        if (n === 0) break;
        position += n;
        const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
        // A newline byte is never part of another UTF-8 character: cutting there never splits one.
        const end = chunk.lastIndexOf(NEWLINE);
        carry = Buffer.from(chunk.subarray(end + 1)); // a copy: `buffer` is read into again
        if (end >= 0) yield chunk.toString('utf8', 0, end).split('\n');
      }
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      if (linked) removeQuietly(path);
    },
  };
}
