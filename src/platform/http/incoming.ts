// A request as the pipeline reads it, whatever carried it: node:http's request (server.ts) or a `Request` handed to the
// platform's `fetch` in-process (fetch.ts). Each transport makes one; nothing else of a request is read.
import { PlatformError } from '../errors.js';

/** The largest request body the platform reads (docs/api.md, "Bounds"). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The longest path and query the platform serves; a longer one is `414`. */
export const MAX_URL_BYTES = 8 * 1024;

/** A request, as the pipeline reads it. */
export interface Incoming {
  /** As sent, upper case for the standard methods. */
  method: string;
  /** The path as sent, percent-escapes kept, dot segments already resolved; `/v2/users/u_1`. */
  path: string;
  /** The query string without its `?` (`''` when none), as sent. */
  query: string;
  /** A header's value by its name in lower case (repeated headers joined with `, `), or null when absent. */
  header(name: string): string | null;
  /**
   * The body's bytes, null when the request has none. Read once and kept (a second call answers the same bytes);
   * refused with `413` as soon as it passes {@link MAX_BODY_BYTES}.
   */
  body(): Promise<Uint8Array | null>;
  /** The connection's peer address; null in-process (one local caller). */
  peer: string | null;
  /** The origin the request was addressed to (`http://host:port`), for the pages' absolute URLs. */
  origin(): string;
}

/** The `413` of a body past the limit (docs/api.md, "Bounds"); `plat serve` closes the connection after it. */
export function tooLarge(): PlatformError {
  return new PlatformError('invalid_request', `request body too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MiB)`, {
    status: 413,
  });
}

/** The `400` of a body whose sender went away before it was complete: the client's mistake, not the server's. */
export function cutShort(): PlatformError {
  return new PlatformError('invalid_request', 'the request body ended before it was complete');
}

/**
 * The body as UTF-8 text (`''` when there is none), as `Request.text()` reads it: bytes that are not UTF-8 become
 * U+FFFD, and a byte-order mark at the start is dropped (PowerShell 5 and some editors write one).
 */
export async function bodyText(req: Incoming): Promise<string> {
  const bytes = await req.body();
  if (bytes === null) return '';
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
