import type { Readable, Writable } from 'node:stream';
import { Chalk, type ChalkInstance } from 'chalk';

/** A writable stream as the CLI sees it: only whether it is a terminal matters beyond writing. */
export type OutStream = Writable & { isTTY?: boolean; columns?: number };
/**
 * The input stream, read for confirmations and `--*-stdin` secrets; a terminal's (`tty.ReadStream`) can be put in
 * raw mode, to read a secret without echo.
 */
export type InStream = Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };
/**
 * The input stream, or what makes it on first use: the binary passes `() => process.stdin`, which Node creates only
 * when first read (≈ 1 ms at a start), and most commands never read it.
 */
export type InSource = InStream | (() => InStream);

/** The process's streams and what they allow: the only way commands reach stdout, stderr and stdin. */
export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  /** stdout is a terminal: tables instead of tab-separated rows. */
  stdoutTty: boolean;
  /** stderr is a terminal: progress may be drawn there. */
  stderrTty: boolean;
  /** stdin is a terminal: destructive commands may ask instead of requiring `--yes`. */
  stdinTty: boolean;
  /** Colours for stdout, level 0 (plain) unless allowed. */
  color: ChalkInstance;
  /** Writes data (never chatter) to stdout. */
  out(text: string): void;
  /** Writes a line of chatter to stderr. */
  err(line: string): void;
  /** Throws when stdout takes no more (see `checkStdout`). */
  checkStdout(): void;
}

/**
 * Thrown to stop a command whose stdout's reader is gone (`plat users list --all | head -1`): `run` ends it quietly,
 * exit 0 (docs/cli.md, "Output").
 */
export class OutputClosed extends Error {
  constructor() {
    super('stdout was closed');
    this.name = 'OutputClosed';
  }
}

/**
 * Throws when stdout can take no more: `OutputClosed` when its reader is gone (a write failed with EPIPE, or the stream
 * was closed), and any other failure of a write (a full disk: `> /dev/full`) as what it is — exit 1, never a success
 * with the output cut short. A failed write sets `errored` at once; its 'error' event waits for a turn of the event
 * loop, which an embedded listing (promises only, no I/O) may not give until it is over.
 */
export function checkStdout(stdout: { errored?: Error | null; destroyed?: boolean }): void {
  const err = stdout.errored as NodeJS.ErrnoException | null | undefined;
  if (err && err.code !== 'EPIPE') throw new Error(`cannot write to stdout: ${err.message}`);
  if (err || stdout.destroyed) throw new OutputClosed();
}

/** Colour only on a terminal, never with `NO_COLOR` (any non-empty value, per no-color.org) or `--no-color`. */
export function colorAllowed(tty: boolean, env: Record<string, string | undefined>, flag: boolean): boolean {
  return tty && flag && !env.NO_COLOR;
}

/** Wraps the given streams; stdin is made (if it is made on use) when first asked for. */
export function createIo(
  streams: { stdout: OutStream; stderr: OutStream; stdin: InSource },
  env: Record<string, string | undefined>,
  colorFlag: boolean,
): Io {
  const stdoutTty = streams.stdout.isTTY === true;
  let stdin: InStream | undefined;
  const input = () => {
    stdin ??= typeof streams.stdin === 'function' ? streams.stdin() : streams.stdin;
    return stdin;
  };
  return {
    stdout: streams.stdout,
    stderr: streams.stderr,
    get stdin() {
      return input();
    },
    stdoutTty,
    stderrTty: streams.stderr.isTTY === true,
    get stdinTty() {
      return input().isTTY === true;
    },
    color: new Chalk({ level: colorAllowed(stdoutTty, env, colorFlag) ? 1 : 0 }),
    out: (text) => void streams.stdout.write(text),
    err: (line) => void streams.stderr.write(`${line}\n`),
    checkStdout: () => checkStdout(streams.stdout),
  };
}
