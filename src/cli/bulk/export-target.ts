import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { removeQuietly } from '../../config/atomic-write.js';
import { UsageError } from '../errors.js';
import { checkStdout, type OutStream } from '../output/io.js';

/** Text gathered before one write: large enough that writes cost nothing per row, small enough to stay flat. */
const CHUNK = 1 << 16;

/** Where an export's data goes: stdout, or a file that appears whole under its name or not at all. */
export interface Target {
  /** For the summary: the file as given, or `stdout`. */
  readonly name: string;
  /** The directory of the file (where a spool may go), undefined for stdout. */
  readonly dir: string | undefined;
  /** Adds text; it is written by chunks, waiting for stdout to drain when it is slower than the export. */
  write(text: string): Promise<void>;
  /** Writes what is left; a file is flushed to disk, closed and renamed to its name. */
  finish(): Promise<void>;
  /** After a failure: a file's temporary copy is removed, and the name keeps what it had. */
  abandon(): void;
}

/** Buffers text and hands it to `flush` by chunks. */
function buffered(flush: (text: string) => Promise<void> | void) {
  let pending: string[] = [];
  let size = 0;
  const drain = async () => {
    if (size === 0) return;
    const text = pending.join('');
    [pending, size] = [[], 0];
    await flush(text);
  };
  return {
    write: async (text: string) => {
      pending.push(text);
      size += text.length;
      if (size >= CHUNK) await drain();
    },
    drain,
  };
}

/** Writes all of `bytes` (one write may take only part of them). */
export function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/**
 * stdout, written with backpressure: the export waits while the reader (a pipe, a terminal) catches up, and stops
 * (`OutputClosed`) once the reader is gone (`| head`).
 */
export function stdoutTarget(stdout: OutStream): Target {
  const closed = () => stdout.errored != null || stdout.destroyed;
  const out = buffered(async (text) => {
    try {
      if (!closed() && !stdout.write(text)) await once(stdout, 'drain');
    } catch (err) {
      // The write's failure: on the stream (the wait for 'drain' ends with the pipe's EPIPE), or thrown by the write
      // itself (stdout a file: a full disk). checkStdout tells the one from the other.
      checkStdout(stdout);
      checkStdout({ errored: err as Error });
      throw err;
    }
    checkStdout(stdout);
  });
  return { name: 'stdout', dir: undefined, write: out.write, finish: out.drain, abandon: () => {} };
}

/**
 * A file, written to a temporary file beside it (mode 0600 from its creation: an export holds personal data) and
 * renamed over it once complete, so that the name never holds half an export. `path` is relative to `cwd`.
 */
export function fileTarget(path: string, cwd: string): Target {
  const full = resolve(cwd, path);
  const dir = dirname(full);
  const isDirectory = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory();
  if (!isDirectory(dir)) {
    throw new UsageError(`--output ${path}: the directory ${dir} does not exist; create it first or choose another`);
  }
  if (isDirectory(full)) throw new UsageError(`--output ${path}: that is a directory; name a file in it`);
  const temp = join(dir, `.${basename(full)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    fchmodSync(fd, 0o600); // open()'s mode is filtered by the umask; this is exact
  } catch (err) {
    close();
    removeQuietly(temp);
    throw err;
  }
  const out = buffered((text) => writeAll(fd, Buffer.from(text, 'utf8')));
  return {
    name: path,
    dir,
    write: out.write,
    finish: async () => {
      await out.drain();
      fsyncSync(fd);
      close();
      renameSync(temp, full);
    },
    abandon: () => {
      close();
      removeQuietly(temp);
    },
  };
}
