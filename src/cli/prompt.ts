import { CliError, UsageError } from './errors.js';
import type { InStream, Io } from './output/io.js';

/** Reads one line from a stream and stops reading (so the process may exit). */
export function readLine(stream: InStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const finish = (line: string) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      const at = buffer.indexOf('\n');
      if (at >= 0) finish(buffer.slice(0, at).replace(/\r$/, ''));
    };
    const onEnd = () => finish(buffer);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
    stream.resume();
  });
}

/** Reads all of a stream (a secret piped in with `--*-stdin`), trimmed of surrounding whitespace. */
export async function readAll(stream: InStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text.trim();
}

/**
 * Asks before a destructive action. With `--yes` it proceeds; on a terminal it asks on stderr and reads stdin;
 * otherwise it refuses (exit 2) before anything is changed.
 */
export async function confirm(io: Io, yes: boolean, action: string): Promise<void> {
  if (yes) return;
  if (!io.stdinTty) {
    throw new UsageError(`refusing to ${action} without confirmation: pass --yes (stdin is not a terminal)`);
  }
  io.stderr.write(`${action[0]?.toUpperCase()}${action.slice(1)}? [y/N] `);
  const answer = await readLine(io.stdin);
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('usage', 'aborted: nothing was changed');
}
