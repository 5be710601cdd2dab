import type { ServerSentEvent } from '../contract/endpoint.js';

/** The largest line, and the largest data of one event, a stream may send (in characters): 1 MiB of ASCII. */
export const MAX_EVENT_SIZE = 1024 * 1024;

/** A stream that sent a line, or the data of one event, larger than `MAX_EVENT_SIZE`: no reader should hold it. */
export class EventTooLargeError extends Error {
  constructor() {
    super('an event of the stream is larger than 1 MiB');
    this.name = 'EventTooLargeError';
  }
}

/**
 * The events of a `text/event-stream` body as the HTML standard's parser reads them: lines ended by CR, LF or CRLF;
 * `field: value` (one space after the colon dropped); a blank line dispatches; comments (`:`) and `retry` ignored;
 * `data` lines joined with LF; `id` kept from block to block (the last event id). A block that sets an id and has no
 * data dispatches no event in a browser, but moves the id a reconnection resumes from: it is given out as a position
 * (`event` ''). A line or an event's data larger than `MAX_EVENT_SIZE` throws `EventTooLargeError`. Ends with the
 * body; `signal` ends it early.
 */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  // One per stream: `lastIndex` is this reader's place, kept across the yields below.
  const lineEnd = /\r\n|\r|\n/g;
  let buffer = '';
  /** How much of `buffer` is known to hold no line end: a new chunk is searched from there, not from the start. */
  let scanned = 0;
  let id: string | null = null;
  let idSet = false;
  let event = '';
  let data: string[] = [];
  let dataSize = 0;
  /** Reads one line: the record a blank line dispatches, if any. */
  const take = (line: string): ServerSentEvent | undefined => {
    if (line.length > MAX_EVENT_SIZE) throw new EventTooLargeError();
    if (line === '') {
      const dispatched =
        data.length > 0
          ? { id, event: event || 'message', data: data.join('\n') }
          : idSet
            ? { id, event: '', data: '' }
            : undefined;
      [idSet, event, data, dataSize] = [false, '', [], 0];
      return dispatched;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataSize += value.length + 1;
      if (dataSize > MAX_EVENT_SIZE + 1) throw new EventTooLargeError();
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) [id, idSet] = [value, true];
    return undefined;
  };
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { done, value } = await reader.read();
      if (done) {
        // A CR held back in case an LF followed: none will, so it ended its line.
        const last = buffer.endsWith('\r') ? take(buffer.slice(0, -1)) : undefined;
        if (last) yield last;
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      lineEnd.lastIndex = scanned;
      for (let m = lineEnd.exec(buffer); m; m = lineEnd.exec(buffer)) {
        // A CR last in the buffer may be the first half of a CRLF: wait for more.
        if (m[0] === '\r' && m.index === buffer.length - 1) break;
        const record = take(buffer.slice(start, m.index));
        start = m.index + m[0].length;
        if (record) yield record;
      }
      buffer = buffer.slice(start);
      // Everything left is one line yet unended (and maybe the CR that ends it, searched again with what follows).
      scanned = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      if (buffer.length > MAX_EVENT_SIZE) throw new EventTooLargeError();
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
  }
}
