import { describe, expect, it } from 'vitest';
import { EventTooLargeError, MAX_EVENT_SIZE, serverSentEvents } from '../../src/client/event-stream.js';
import type { ServerSentEvent } from '../../src/contract/endpoint.js';

/**
 * The client's reader of Server-Sent Events (src/client/event-stream.ts), fed a body in given chunks: the HTML
 * standard's parsing, the stream's starting point given out as a position (docs/cli.md, "Events"), and the bound on
 * one event's size.
 */

/** A body that sends `chunks` (strings, UTF-8), one read each. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
  });
}

/** Every record read from `chunks`. */
async function read(chunks: string[]): Promise<ServerSentEvent[]> {
  const got: ServerSentEvent[] = [];
  for await (const e of serverSentEvents(body(chunks))) got.push(e);
  return got;
}

describe('serverSentEvents', () => {
  it('gives a block with only an id as a position (event ""); nothing for comments, retry, empty blocks', async () => {
    const stream = 'retry: 1000\n\nid: pos_abc\n\n: keep-alive\n\n\n\nid: evt_1\nevent: user.invited\ndata: {}\n\n';
    expect(await read([stream])).toEqual([
      { id: 'pos_abc', event: '', data: '' },
      { id: 'evt_1', event: 'user.invited', data: '{}' },
    ]);
    // The id lasts from block to block (the last event id), but only a block that sets one is a position.
    expect(await read(['id: a\n\ndata: x\n\n: ping\n\nevent: e\n\n'])).toEqual([
      { id: 'a', event: '', data: '' },
      { id: 'a', event: 'message', data: 'x' },
    ]);
  });

  it('ends lines at CRLF, CR or LF, even split across chunks; joins data lines with LF', async () => {
    const expected = [
      { id: 'evt_1', event: 'message', data: 'one\ntwo\n' },
      { id: 'pos_2', event: '', data: '' },
    ];
    expect(await read(['id: evt_1\r\ndata: one\r\ndata:two\r\ndata\r\n\r\nid: pos_2\r\n\r\n'])).toEqual(expected);
    expect(await read(['id: evt_1\rdata: one\rdata:two\rdata\r\rid: pos_2\r\r'])).toEqual(expected);
    expect(await read(['id: evt_1\ndata: one\ndata:two\ndata\n\nid: pos_2\n\n'])).toEqual(expected);
    // A CR at the end of a chunk, its LF in the next: one line end, not two (which would dispatch early).
    expect(
      await read(['id: evt_1\r', '\ndata: one\r', '\ndata:two\r', '\ndata\r\n\r', '\nid: pos_2\r', '\n\r', '\n']),
    ).toEqual(expected);
    // One character a chunk.
    expect(await read([...'id: evt_1\r\ndata: one\ndata:two\rdata\r\n\nid: pos_2\r\r'])).toEqual(expected);
    // An unended block at the end of the body is dropped, as the standard says.
    expect(await read(['data: x\n\ndata: y\n'])).toEqual([{ id: null, event: 'message', data: 'x' }]);
  });

  it('throws when a line, or the data of one event, is larger than 1 MiB', async () => {
    const half = 'x'.repeat(MAX_EVENT_SIZE / 2);
    // Exactly 1 MiB of data, in two lines (and the LF between them): read.
    const fits = await read([`data: ${half}\n`, `data: ${half.slice(1)}\n\n`]);
    expect(fits[0]?.data.length).toBe(MAX_EVENT_SIZE);
    // One character more, in lines each well under the bound.
    await expect(read([`data: ${half}\n`, `data: ${half}\n\n`])).rejects.toThrow(new EventTooLargeError().message);
    expect(new EventTooLargeError().message).toBe('an event of the stream is larger than 1 MiB');
    // A line that does not end (for 2.5 MiB): refused once it passes the bound, before the body ends.
    const chunk = 'y'.repeat(64 * 1024);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++sent > 40) controller.close();
        else controller.enqueue(new TextEncoder().encode(sent === 1 ? `data: ${chunk}` : chunk));
      },
    });
    await expect(
      (async () => {
        for await (const _ of serverSentEvents(endless));
      })(),
    ).rejects.toBeInstanceOf(EventTooLargeError);
    expect(sent).toBeLessThan(20);
    // A whole line larger than the bound, in one chunk.
    await expect(read([`event: ${'z'.repeat(MAX_EVENT_SIZE)}\n\n`])).rejects.toBeInstanceOf(EventTooLargeError);
  });
});
