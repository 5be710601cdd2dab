// What the request pipeline answers (pipeline.ts), before any transport turns it into bytes on a socket (server.ts)
// or a `Response` in-process (fetch.ts): a status, headers in order, and a body held whole — or, for a stream
// endpoint (Server-Sent Events), a stream the transport writes as it comes and cancels when the client goes away.
import type { ErrorBody } from '../../contract/errors.js';
import { ID_PREFIX } from '../../contract/ids.js';
import { randomBase62 } from '../clock.js';
import type { PlatformError } from '../errors.js';

/** An answer: its status, its headers (lower-case names and values in turn), its body (none: `null`). */
export interface Reply {
  status: number;
  /** `name, value, name, value…`, names in lower case; `set-cookie` may repeat. */
  headers: string[];
  body: string | Uint8Array | null | ReadableStream<Uint8Array>;
}

/** The headers of a Server-Sent Events answer: sent at once, never cached or buffered by a proxy. */
export const EVENT_STREAM_HEADERS = [
  'content-type',
  'text/event-stream; charset=utf-8',
  'cache-control',
  'no-cache, no-store',
  'x-accel-buffering',
  'no',
];

/** The value of a reply's header (the first, when repeated), or undefined. */
export function headerOf(reply: Reply, name: string): string | undefined {
  const { headers } = reply;
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === name) return headers[i + 1];
  return undefined;
}

/** Sets a header of a reply, replacing any value it had (`name` in lower case). */
export function setHeader(reply: Reply, name: string, value: string): void {
  const { headers } = reply;
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] === name) {
      headers[i + 1] = value;
      return;
    }
  }
  headers.push(name, value);
}

/** `{ Name: value }` as a reply's headers, names in lower case. */
export function headerList(headers: Readonly<Record<string, string>> | undefined): string[] {
  const list: string[] = [];
  if (headers) for (const name of Object.keys(headers)) list.push(name.toLowerCase(), headers[name] as string);
  return list;
}

/** A JSON reply. */
export function jsonReply(status: number, value: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return { status, headers: ['content-type', 'application/json', ...headerList(headers)], body: JSON.stringify(value) };
}

/** A fresh request id (`req_…`), for a request that did not send a valid one of its own. */
export function newRequestId(): string {
  return `${ID_PREFIX.request}_${randomBase62(20)}`;
}

/** A request id a client may send: 1–200 visible ASCII characters (anything else is replaced, not refused). */
export const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * What an error answer says: a `PlatformError`, or the same fields in a plain object where no stack is wanted (a
 * refusal answered thousands of times a second).
 */
export type Failure = Pick<PlatformError, 'code' | 'status' | 'message' | 'details' | 'headers'>;

/**
 * The error envelope (docs/api.md, "Errors"), with the request id: `errorParts` with the status and the request id,
 * made as one literal of each shape rather than spread (spreading cost a refusal a third of its time).
 */
export function errorBody(err: Failure, requestId: string): ErrorBody {
  const { code, message, details, status } = err;
  return { error: details ? { code, message, details, status, requestId } : { code, message, status, requestId } };
}

/** The error envelope as a reply, with the request id and the error's own headers. */
export function errorReply(err: Failure, requestId: string): Reply {
  const headers = ['content-type', 'application/json', 'x-request-id', requestId, ...headerList(err.headers)];
  return { status: err.status, headers, body: JSON.stringify(errorBody(err, requestId)) };
}
