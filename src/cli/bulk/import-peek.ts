import { Readable } from 'node:stream';

/**
 * Reads the start of `input` ahead — until `enough` says so, `max` bytes are read or the input ends — and gives it with
 * the stream to read from then on: the input with what was read put back, or (the input having ended already) what was
 * read. A CSV reader looks at its header line this way (to find its delimiter), `--from` at the first line (to tell a
 * JSON array, JSON lines, an object around an array and CSV apart).
 */
export async function peek(
  input: Readable,
  enough: (bytes: Buffer) => boolean,
  max: number,
): Promise<{ text: string; rest: Readable }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = input.read() as Buffer | string | null;
    if (chunk !== null) {
      const bytes = Buffer.from(chunk);
      chunks.push(bytes);
      size += bytes.length;
      if (size >= max || enough(chunks.length === 1 ? bytes : Buffer.concat(chunks))) break;
      continue;
    }
    if (input.readableEnded || input.destroyed) break;
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        input.off('readable', settle).off('end', settle).off('close', settle).off('error', settle);
        if (err instanceof Error) reject(err);
        else resolve();
      };
      input.on('readable', settle).on('end', settle).on('close', settle).on('error', settle);
    });
  }
  const read = Buffer.concat(chunks);
  const text = read.toString('utf8');
  // Given up while the start was awaited (Ctrl-C): there is nothing to read.
  if (input.destroyed && !input.readableEnded) throw new Error('the input was closed');
  if (input.readableEnded) return { text, rest: Readable.from(size > 0 ? [read] : []) };
  if (size > 0) input.unshift(read);
  return { text, rest: input };
}

/** Whether bytes hold a line break: enough of the input to know its first line. */
export const hasLineBreak = (bytes: Buffer) => bytes.includes(0x0a) || bytes.includes(0x0d);
