import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, servePlat } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

let base: string;
let log: () => string;
beforeAll(async () => {
  const server = await servePlat(processHome('plat-serve-bounds'));
  base = server.url;
  log = server.log;
});

/** The envelope every error carries, with the request id of the `X-Request-Id` header. */
function envelope(status: number, message: string, requestId: string | null | undefined) {
  expect(requestId).toMatch(/^req_[0-9A-Za-z]{20}$/);
  return { error: { code: 'invalid_request', message, status, requestId } };
}

/** Sends `bytes` on a connection of its own; resolves with all the server sent before closing it. */
function exchange(bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(bytes);
  });
}

/** A raw HTTP response: its status line, headers (names lower-cased) and body. */
function parse(raw: string): { statusLine: string; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = raw.split(/\r\n\r\n(.*)/s);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body };
}

/**
 * POSTs a chunked body of `total` bytes of JSON whitespace, 64 KiB at a time and only as fast as the server takes
 * them, stopping as soon as an answer arrives; resolves with the answer and how much had been sent by then.
 */
function chunkedUpload(path: string, total: number) {
  return new Promise<{ status: number; requestId: unknown; body: unknown; sentWhenAnswered: number }>(
    (resolve, reject) => {
      const req = request(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      let sent = 0;
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: res.headers['x-request-id'],
            body: JSON.parse(text),
            sentWhenAnswered,
          }),
        );
        res.on('error', reject);
      });
      // Once it has answered, the server closes the connection: the writes still under way fail, as they should.
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      // One chunk a turn of the event loop, as a client reading its source would: a loop that writes for as long as
      // the kernel takes the bytes never reads the answer meanwhile, and the server, discarding the rest of the body
      // once it has answered, takes them as fast as they come — so such a client would count tens of MiB sent
      // before it looked for the answer that was already there.
      const pump = () => {
        if (answered) return;
        if (sent >= total) {
          req.end();
          return;
        }
        sent += chunk.length;
        if (req.write(chunk)) setImmediate(pump);
        else req.once('drain', pump);
      };
      pump();
    },
  );
}

const MiB = 1024 * 1024;

/**
 * The most a loopback connection's kernel buffers can hold: the receiving socket's ceiling plus the sending one's
 * (Linux's `tcp_rmem` and `tcp_wmem` maxima, which the kernel grows a busy connection's buffers to; 36 MiB here), or
 * 64 MiB where the system does not say.
 */
function kernelBuffers(): number {
  const ceiling = (name: string) => {
    try {
      return Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
    } catch {
      return Number.NaN;
    }
  };
  const both = ceiling('tcp_rmem') + ceiling('tcp_wmem');
  return Number.isFinite(both) && both > 0 ? both : 64 * MiB;
}

const nested = (depth: number) => `{"refreshToken":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('plat serve bounds what strangers send (docs/api.md, "Bounds on what clients send")', () => {
  it('answers a chunked upload 413 once it passes 1 MiB, while the client is still sending, on every route', async () => {
    // Before the answer the client can have sent the 1 MiB read, what the kernel buffers on the way (as much as both
    // sockets' buffers may grow to), Node.js's own buffers on both ends and a chunk or two: far less than it sends in
    // all, so a server that read (or held) the whole upload before answering fails.
    const bound = MiB + kernelBuffers() + 4 * MiB;
    const total = bound + 32 * MiB;
    // No credentials needed: the refresh endpoint and a sign-in form page, and an API route.
    for (const path of ['/v2/auth/refresh', '/v2/auth/authorize', '/v2/organizations/org_x/users']) {
      const r = await chunkedUpload(path, total);
      expect(r.status, path).toBe(413);
      expect(r.body).toEqual(envelope(413, 'request body too large (limit 1 MiB)', r.requestId as string));
      expect(r.sentWhenAnswered, path).toBeLessThan(bound);
    }
  });

  it('answers JSON nested deeper than 64 levels 400, without a 500, the auth endpoints included', async () => {
    const refresh = await fetch(`${base}/v2/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: nested(7000),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toEqual(
      envelope(400, 'the request body nests deeper than 64 levels', refresh.headers.get('x-request-id')),
    );
    // The OAuth token endpoint accepts JSON too, and answers in the RFC 6749 form.
    const token = await fetch(`${base}/v2/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"grant_type":"refresh_token","x":${nested(7000)}}`,
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the request body nests deeper than 64 levels',
    });
    expect(log()).not.toContain('internal error');
  });

  it('answers a request line and headers over 16 KiB 431, with the envelope and a request id', async () => {
    const r = parse(await exchange(`GET /v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`));
    expect(r.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual(envelope(431, 'request line and headers too large', r.headers['x-request-id']));
    // A URL too long for the header block ends the same way.
    const url = parse(await exchange(`GET /v2/health?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(url.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });

  it('answers a malformed request 400, with the envelope and a request id', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET /v2/health HTTP/9.9\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header\r\n\r\n',
    ]) {
      const r = parse(await exchange(bytes));
      expect(r.statusLine, bytes).toBe('HTTP/1.1 400 Bad Request');
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toEqual(envelope(400, 'malformed HTTP request', r.headers['x-request-id']));
    }
  });

  it('answers an HTTP/1.1 request without Host, or with an invalid one, 400 with the envelope', async () => {
    const none = parse(await exchange('GET /v2/health HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(none.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(none.body)).toEqual(envelope(400, 'a Host header is required', none.headers['x-request-id']));
    const bad = parse(await exchange('GET /v2/health HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'));
    expect(bad.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(bad.body)).toEqual(
      envelope(400, 'malformed HTTP request: invalid Host or URL', bad.headers['x-request-id']),
    );
  });

  it('answers a URL over 8 KiB 414 with the envelope', async () => {
    const r = await fetch(`${base}/v2/health?q=${'a'.repeat(8 * 1024)}`);
    expect(r.status).toBe(414);
    expect(await r.json()).toEqual(envelope(414, 'URL too long (limit 8 KiB)', r.headers.get('x-request-id')));
    // Just under the bound: served (the health check ignores its query).
    expect((await fetch(`${base}/v2/health?q=${'a'.repeat(8 * 1024 - 15)}`)).status).toBe(200);
  });

  it('logs each refusal as one access-log line, never what was sent', () => {
    expect(log()).toMatch(/^127\.0\.0\.1 POST \/v2\/auth\/refresh 413 \d+\.\dms req_\w{20}$/m);
    expect(log()).toMatch(/^127\.0\.0\.1 - - 431 - req_\w{20}$/m);
    expect(log()).not.toContain('aaaa');
  });
});
