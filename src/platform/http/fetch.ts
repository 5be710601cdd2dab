// The in-process transport: the platform's `fetch(Request) → Response`, for the embedded platform (the CLI hands it
// to its client) and for tests. It only turns the `Request` into the pipeline's `Incoming` and its `Reply` into a
// `Response`; the pipeline does the rest (pipeline.ts).
import type { FetchBindings } from '../context.js';
import { readLimited, StreamTooLarge } from '../read-limited.js';
import { cutShort, type Incoming, MAX_BODY_BYTES, tooLarge } from './incoming.js';
import type { Reply } from './reply.js';

/** The size of an in-process body that is not a stream (plat's light `Request` carries a string or bytes). */
function bytesOf(body: unknown): Uint8Array | null {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return null;
}

/** Reads a `Request`'s body whole, refusing it as soon as it passes the limit. */
async function readBody(request: Request): Promise<Uint8Array | null> {
  const body = request.body as unknown;
  if (body == null) return null;
  if (typeof (body as ReadableStream).getReader !== 'function') {
    const bytes = bytesOf(body);
    if (bytes && bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return bytes;
  }
  try {
    return await readLimited(body as ReadableStream<Uint8Array>, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof StreamTooLarge) throw tooLarge();
    throw cutShort();
  }
}

/** A `Request` as the pipeline reads it. */
export function incomingOf(request: Request, bindings: FetchBindings | undefined): Incoming {
  const url = new URL(request.url);
  let body: Promise<Uint8Array | null> | undefined;
  return {
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    header: (name) => request.headers.get(name),
    body: () => {
      body ??= readBody(request);
      return body;
    },
    peer: bindings?.incoming?.socket?.remoteAddress ?? null,
    origin: () => url.origin,
  };
}

/** A reply as a `Response` (no body for `HEAD`); a stream's body is the stream itself. */
export function responseOf(reply: Reply, method: string): Response {
  const headers: [string, string][] = [];
  for (let i = 0; i < reply.headers.length; i += 2) {
    headers.push([reply.headers[i] as string, reply.headers[i + 1] as string]);
  }
  if (method === 'HEAD' && reply.body instanceof ReadableStream) void reply.body.cancel();
  const body = method === 'HEAD' ? null : reply.body;
  return new Response(body as string | null, { status: reply.status, headers });
}
