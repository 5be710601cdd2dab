import { StringDecoder } from 'node:string_decoder';
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

/** Reads all of a stream as it is (a password keeps its spaces). */
export async function readText(stream: InStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Reads all of a stream (a secret piped in with `--*-stdin`), trimmed of surrounding whitespace. */
export async function readAll(stream: InStream): Promise<string> {
  return (await readText(stream)).trim();
}

const ABORTED = 'aborted: nothing was changed';

/**
 * Reads one line typed on a terminal without echoing it: the terminal is in raw mode (no echo, no line editing of
 * its own) while the line is read, and back as it was afterwards. `ready` is called once echo is off — the prompt
 * goes there, since what is typed before it would be echoed. Backspace and Ctrl-U edit, Enter or Ctrl-D ends the
 * line, Ctrl-C aborts (exit 2, as a declined confirmation does); escape sequences (arrow keys) are ignored. What was
 * typed after Enter stays in the stream for the next read.
 */
export function readHiddenLine(stream: InStream, ready: () => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const wasRaw = stream.isRaw === true;
    const decoder = new StringDecoder('utf8');
    let line = '';
    let inEscape = false;
    const finish = (err?: Error, rest = '') => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.setRawMode?.(wasRaw);
      stream.pause();
      if (rest) stream.unshift(rest);
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (let i = 0; i < text.length; i++) {
        const c = text[i] as string;
        // An escape sequence (ESC, then parameters, then a final letter or ~) is a key, not a character typed.
        if (inEscape) {
          if (/[A-Za-z~]/.test(c)) inEscape = false;
          continue;
        }
        if (c === '\r' || c === '\n') {
          const next = c === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1;
          finish(undefined, text.slice(next));
          return;
        }
        if (c === '\u0003' || c === '\u0004') {
          finish(c === '\u0003' ? new CliError('usage', ABORTED) : undefined, text.slice(i + 1));
          return;
        }
        if (c === '\u007f' || c === '\b') line = [...line].slice(0, -1).join('');
        else if (c === '\u0015') line = '';
        else if (c === '\u001b') inEscape = true;
        else if (c >= ' ') line += c;
      }
    };
    const onEnd = () => finish();
    const onError = (err: Error) => finish(err);
    stream.setRawMode?.(true);
    ready();
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.resume();
  });
}

/** Asks for a secret on the terminal: the prompt on stderr once echo is off, the answer unechoed, then a line break. */
export async function askSecret(io: Io, prompt: string): Promise<string> {
  try {
    return await readHiddenLine(io.stdin, () => io.stderr.write(prompt));
  } finally {
    // Enter was not echoed: end the prompt's line, so that what follows starts on a line of its own.
    io.stderr.write('\n');
  }
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
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('usage', ABORTED);
}
