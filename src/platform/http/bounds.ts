import type { Context, MiddlewareHandler } from 'hono';
import { PlatformError } from '../errors.js';
import { readLimited, StreamTooLarge } from '../read-limited.js';

/** The largest request body the platform reads (contract §2, "Bounds on what strangers send"). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The longest path and query the platform serves; a longer one is `414`. */
export const MAX_URL_BYTES = 8 * 1024;

/**
 * The `413`. Nothing more of the body is read; the connection is not closed at once either: a client still sending
 * would then get a reset instead of this answer. Behind `plat serve`, the listener's adapter (@hono/node-server) gives
 * the client half a second after the answer, then closes a connection whose request has not ended.
 */
function tooLarge(): PlatformError {
  return new PlatformError('invalid_request', `request body too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MiB)`, {
    status: 413,
  });
}

/** The size of an in-process body that is not a stream (plat's light Request carries a string or bytes). */
function byteLength(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return body.byteLength;
  return 0;
}

/** Reads a body stream whole, refusing it as soon as it passes the limit: at most the limit is ever held. */
async function readBounded(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  try {
    return await readLimited(stream, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof StreamTooLarge) throw tooLarge();
    // The client went away mid-body: its mistake, not the server's (no 500, no stack in the log).
    throw new PlatformError('invalid_request', 'the request body ended before it was complete');
  }
}

/**
 * Refuses a path and query over {@link MAX_URL_BYTES} (`414`) and a body over {@link MAX_BODY_BYTES} (`413`), on every
 * route, before any route or middleware reads either. A `Content-Length` over the limit is refused unread; any other
 * body, chunked included, is read here up to the limit and refused as soon as it passes it, then handed on from
 * memory. (hono/body-limit does the same for chunked bodies, but leaves a body with a `Content-Length` to be read by
 * the route — where a client that goes away mid-body becomes a 500 — and expects every body to be a stream.)
 */
export function requestBounds(): MiddlewareHandler {
  return async (c: Context, next) => {
    const url = new URL(c.req.url);
    if (url.href.length - url.origin.length > MAX_URL_BYTES) {
      throw new PlatformError('invalid_request', `URL too long (limit ${MAX_URL_BYTES / 1024} KiB)`, { status: 414 });
    }
    const raw = c.req.raw;
    // No route reads the body of a GET or HEAD; asking for it would make the listener build the whole request.
    if (raw.method === 'GET' || raw.method === 'HEAD') return next();
    const body = raw.body as unknown;
    if (body == null) return next();
    if (Number(raw.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) throw tooLarge();
    if (typeof (body as ReadableStream).getReader !== 'function') {
      if (byteLength(body) > MAX_BODY_BYTES) throw tooLarge();
      return next();
    }
    c.req.raw = new Request(raw, { body: await readBounded(body as ReadableStream<Uint8Array>) });
    return next();
  };
}
