// Requests that Node.js refuses before the platform sees them are answered with the platform's error envelope and an
// `X-Request-Id` (docs/api.md, "Errors"), where Node.js alone would send a bare status line.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { plainAddress } from './client-address.js';
import { PlatformError } from './errors.js';
import { errorBody, newRequestId } from './http/reply.js';

/** What a parse or timeout error of Node's HTTP parser means to the client. */
function refusalOf(err: NodeJS.ErrnoException): PlatformError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      // The request line counts too: a URL too long for it ends here.
      return new PlatformError('invalid_request', 'request line and headers too large', { status: 431 });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PlatformError('invalid_request', 'chunk extensions too large', { status: 413 });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new PlatformError('invalid_request', 'the request took too long to arrive', { status: 408 });
    default:
      return new PlatformError('invalid_request', 'malformed HTTP request');
  }
}

/** The raw bytes of an error response on a connection that is closed after it. */
function rawResponse(err: PlatformError, requestId: string): string {
  const body = JSON.stringify(errorBody(err, requestId));
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The server's `clientError` handler: a request Node's parser refused (malformed, headers over 16 KiB, too slow) is
 * answered `400`/`431`/`408` with the envelope, then the connection is closed. Nothing is written when the peer is
 * gone or a response has already begun on the connection. `log` gets one access-log line.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log?: (line: string) => void): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(err);
  const requestId = newRequestId();
  const peer = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
  log?.(`${peer === undefined ? '-' : plainAddress(peer)} - - ${refusal.status} - ${requestId}`);
  socket.end(rawResponse(refusal, requestId), () => socket.destroy());
}
