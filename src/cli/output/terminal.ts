import type { GlobalOptions } from '../globals.js';
import type { Io } from './io.js';
import { type OutputMode, render, renderPages } from './render.js';
import type { Output } from './result.js';

/**
 * What a command says on the terminal, as the global options ask: its output (in the output mode, quiet or not),
 * notices and warnings. Functions of the context's streams and options, not members of the context.
 */

/** What these need of a command's context: the streams and the parsed global options. */
export interface Terminal {
  readonly io: Io;
  globals(): GlobalOptions;
}

/** The output mode: `--json` wins over `-o`. */
export function outputMode(g: GlobalOptions): OutputMode {
  return g.json ? 'json' : (g.output ?? 'table');
}

/**
 * Writes a command's output in the mode of the global options (data on stdout, the "done" notice on stderr); a list's
 * pages as they arrive.
 */
export async function renderOutput(ctx: Terminal, output: Output): Promise<void> {
  const g = ctx.globals();
  const opts = { mode: outputMode(g), quiet: g.quiet === true };
  if (output.kind === 'pages') await renderPages(ctx.io, output, opts);
  else render(ctx.io, output, opts);
}

/** A line of chatter on stderr, unless `--quiet`. */
export function notice(ctx: Terminal, message: string): void {
  if (!ctx.globals().quiet) ctx.io.err(message);
}

/** A warning on stderr, even with `--quiet`. */
export function warn(ctx: Terminal, message: string): void {
  ctx.io.err(`plat: warning: ${message}`);
}
