import { type Command, CommanderError } from 'commander';
import { packageVersion } from '../contract/version.js';
import { type CliDeps, createContext } from './context.js';
import { EXIT_CODES, toFailure } from './errors.js';
import type { GlobalOptions } from './globals.js';
import { OutputClosed } from './output/io.js';
import { inert } from './output/quote.js';
import { buildProgram } from './program.js';

export type { CliDeps } from './context.js';

/** commander's own "errors" that are not failures: `--help`, `--version`. */
const CLEAN_EXITS = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * Runs one command line and returns its exit code. Never throws, never touches `process`: everything it reads or
 * writes comes through `deps`, so tests run it in-process.
 */
export async function run(argv: readonly string[], deps: CliDeps): Promise<number> {
  let program: Command | undefined;
  const globals = () => ({ color: true, ...(program?.opts() as Partial<GlobalOptions>) }) as GlobalOptions;
  const version = deps.version ?? packageVersion();
  // Completion needs every noun; it gets them from here so that no command module imports program.ts back.
  const { ctx, close } = createContext({ ...deps, version }, globals, () =>
    buildProgram([], ctx, version, { all: true }),
  );
  try {
    program = await buildProgram(argv, ctx, version);
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (CLEAN_EXITS.has(err.code) || err.exitCode === 0) return 0;
      // Help shown because a noun was given without a verb: already printed on stderr by commander.
      if (err.code === 'commander.help') return EXIT_CODES.usage;
      const message = err.message.replace(/^error: /, '');
      // A value out of range or not among the choices (parse.ts, RefusedArgumentError): 7; anything else: 2.
      if (err.exitCode === EXIT_CODES.invalid)
        return report(deps, globals(), message, err.exitCode, 'validation_error');
      return report(deps, globals(), message, EXIT_CODES.usage, 'usage_error');
    }
    // stdout's reader has read what it wanted (`| head -1`): the command stops there, quietly and successfully.
    if (err instanceof OutputClosed) return 0;
    const failure = toFailure(err);
    if (globals().json) deps.stderr.write(`${JSON.stringify(failure.json)}\n`);
    // A message may quote what others wrote (the API's "a team named … already exists"): made inert.
    else deps.stderr.write(`plat: ${inert(failure.message)}\n`);
    return failure.exitCode;
  } finally {
    await close().catch(() => {});
  }
}

function report(deps: CliDeps, g: GlobalOptions, message: string, code: number, errorCode: string): number {
  if (g.json) deps.stderr.write(`${JSON.stringify({ error: { code: errorCode, message, status: null } })}\n`);
  else deps.stderr.write(`plat: ${message}\n`);
  return code;
}

/** SIGINT/SIGTERM, once each, for `plat serve`. */
function onShutdown(handler: () => void): () => void {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * Source-mapped stack traces, where this Node.js has them (feature-detected). Only `plat serve` asks: turned on at
 * every start, they would cost every command's cold start.
 */
function enableSourceMaps(): void {
  if (typeof process.setSourceMapsEnabled === 'function') process.setSourceMapsEnabled(true);
}

/**
 * The binary's entry point: the one place that reads `process` and sets the exit code. `hooks` come from the start-up
 * code that runs it (src/startup/main.ts).
 */
export async function main(hooks: Pick<CliDeps, 'lightFetch'> = {}): Promise<void> {
  // `plat users list | head -1` closes the pipe early; that is not a failure worth a stack trace. Any other failure to
  // write (a full disk) is one: the output is cut short, and the exit code says so.
  let stdoutFailure: NodeJS.ErrnoException | undefined;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    stdoutFailure ??= err;
  });
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: () => process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onShutdown,
    enableSourceMaps,
    ...hooks,
  });
  // A failed write the command did not see (its output went out in one write, whose 'error' may not have come yet):
  // told here, unless the command said so itself.
  const failure = stdoutFailure ?? (process.stdout.errored as NodeJS.ErrnoException | null);
  const failed = failure != null && failure.code !== 'EPIPE' && code === 0;
  if (failed) process.stderr.write(`plat: cannot write to stdout: ${failure.message}\n`);
  process.exitCode = failed ? 1 : code;
  // The command is over and has closed what it opened. Once the OS has everything written (stdout and stderr hold
  // nothing back: a pipe on macOS is asynchronous), exit at once rather than let Node.js tear the heap down (~1 ms).
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
}
