/** A stream that passed its limit while it was read (what was read so far is dropped). */
export class StreamTooLarge extends Error {
  constructor() {
    super('the stream is larger than its limit');
    this.name = 'StreamTooLarge';
  }
}

/**
 * Reads a byte stream whole, refusing it (`StreamTooLarge`, the stream cancelled) as soon as it passes `max` bytes:
 * at most `max` is ever held. What the stream itself fails with (the other side went away, a timeout) comes through
 * as it is, for the caller to put in its own words.
 */
export async function readLimited(stream: ReadableStream<Uint8Array>, max: number): Promise<Buffer> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.cancel().catch(() => {});
      throw new StreamTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
