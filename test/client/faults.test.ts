import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClientOptions, PlatformClient, type RequestInfo } from '../../src/client/client.js';
import { ApiError, NetworkError } from '../../src/client/errors.js';
import { MAX_RETRY_AFTER_MS, RATE_LIMIT_JITTER_MS } from '../../src/client/retry.js';
import { remoteTransport } from '../../src/client/transports.js';
import { freePort } from '../helpers/ports.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A tiny real HTTP server on loopback whose answers a test scripts; `requests` counts what reached it. */
async function serve(handler: Handler) {
  const state = { requests: [] as { method: string; url: string }[] };
  const server = createServer((req, res) => {
    state.requests.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    req.on('end', () => handler(req, res, state.requests.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...state,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

let transport: Awaited<ReturnType<typeof remoteTransport>>;
const servers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  transport = await remoteTransport({ connectTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await transport.close();
});

function clientFor(origin: string, extra: Partial<ClientOptions> = {}) {
  const waits: number[] = [];
  const seen: RequestInfo[] = [];
  const client = new PlatformClient({
    fetch: transport.fetch,
    baseUrl: `${origin}/v2`,
    auth: async () => ({ 'X-API-Key': 'plat_live_secret' }),
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    onRequest: (i) => seen.push(i),
    ...extra,
  });
  return { client, waits, seen };
}

describe('429 retries', () => {
  it('waits as long as Retry-After says, plus jitter, then succeeds', async () => {
    const s = await serve((_req, res, n) => {
      if (n <= 2) {
        json(
          res,
          429,
          { error: { code: 'rate_limit_exceeded', message: 'slow down', status: 429, requestId: `req_${n}` } },
          {
            'Retry-After': String(n + 1),
            'X-RateLimit-Limit': '60',
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': '1767225600',
          },
        );
      } else json(res, 200, { id: 'org_1' }, { 'X-Request-Id': 'req_ok' });
    });
    servers.push(s);
    const { client, waits, seen } = clientFor(s.origin);
    await expect(client.request('GET', '/organizations/org_1')).resolves.toEqual({ id: 'org_1' });
    const jitter = Math.floor(0.5 * RATE_LIMIT_JITTER_MS);
    expect(waits).toEqual([2_000 + jitter, 3_000 + jitter]);
    expect(s.requests).toHaveLength(3);
    expect(seen.map((i) => [i.attempt, i.status])).toEqual([
      [1, 429],
      [2, 429],
      [3, 200],
    ]);
    expect(seen[0]?.rateLimit).toEqual({ limit: 60, remaining: 0, reset: 1767225600 });
    expect(seen[2]?.requestId).toBe('req_ok');
  });

  it('gives up after maxRetries with an ApiError counting them; a POST is retried too', async () => {
    const s = await serve((_req, res) =>
      json(
        res,
        429,
        { error: { code: 'rate_limit_exceeded', message: 'slow down', status: 429, requestId: 'req_429' } },
        { 'Retry-After': '1' },
      ),
    );
    servers.push(s);
    const { client, waits } = clientFor(s.origin, { maxRetries: 2 });
    const err = (await client.request('POST', '/organizations', { body: { name: 'x' } }).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retries: 2, requestId: 'req_429' });
    expect(waits).toHaveLength(2);
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('caps a huge Retry-After, and with maxRetries 0 does not wait at all', async () => {
    const s = await serve((_req, res) => json(res, 429, {}, { 'Retry-After': '86400' }));
    servers.push(s);
    const capped = clientFor(s.origin, { maxRetries: 1 });
    await expect(capped.client.request('GET', '/x')).rejects.toMatchObject({ status: 429, retries: 1 });
    expect(capped.waits).toEqual([MAX_RETRY_AFTER_MS + Math.floor(0.5 * RATE_LIMIT_JITTER_MS)]);

    const none = clientFor(s.origin, { maxRetries: 0 });
    await expect(none.client.request('GET', '/x')).rejects.toMatchObject({ status: 429, retries: 0 });
    expect(none.waits).toEqual([]);
  });
});

describe('connection failures', () => {
  it('retries an idempotent call to an unreachable port, then throws NetworkError with the count', async () => {
    const port = await freePort();
    const { client, waits, seen } = clientFor(`http://127.0.0.1:${port}`, { maxRetries: 2 });
    const err = (await client.request('GET', '/organizations').catch((e) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.retries).toBe(2);
    expect(err.errno).toBe('ECONNREFUSED');
    expect(err.message).toBe(`GET http://127.0.0.1:${port} failed (ECONNREFUSED) after 2 retries`);
    expect(err.message).not.toContain('plat_live_secret');
    expect(waits).toHaveLength(2);
    expect(seen.map((i) => i.status)).toEqual([null, null, null]);
  });

  it('does not resend a POST after a connection failure', async () => {
    const port = await freePort();
    const { client, waits } = clientFor(`http://127.0.0.1:${port}`);
    await expect(client.request('POST', '/organizations', { body: { name: 'x' } })).rejects.toMatchObject({
      name: 'NetworkError',
      retries: 0,
    });
    expect(waits).toEqual([]);
  });

  it('resends a GET whose connection was reset, but not a POST', async () => {
    const s = await serve((req, res, n) => {
      if (n === 1 || req.method === 'POST') req.socket.destroy();
      else json(res, 200, { ok: true });
    });
    servers.push(s);
    const { client } = clientFor(s.origin);
    await expect(client.request('GET', '/x')).resolves.toEqual({ ok: true });
    expect(s.requests).toHaveLength(2);
    const err = (await client.request('POST', '/x', { body: {} }).catch((e) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.retries).toBe(0);
    expect(s.requests).toHaveLength(3);
  });

  it('times out a server that never answers', async () => {
    const s = await serve(() => {});
    servers.push(s);
    const { client } = clientFor(s.origin, { maxRetries: 0 });
    const err = (await client.request('GET', '/slow').catch((e) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.errno).toBe('UND_ERR_HEADERS_TIMEOUT');
  });
});

describe('answers that are not the API envelope', () => {
  it('makes an ApiError of an HTML error page, without quoting it', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html', 'X-Request-Id': 'req_proxy' });
      res.end('<html><body>Bad gateway: plat_live_secret</body></html>');
    });
    servers.push(s);
    const err = (await clientFor(s.origin)
      .client.request('GET', '/x')
      .catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, code: 'internal_error', requestId: 'req_proxy', retries: 0 });
    expect(err.message).toBe('the server answered HTTP 502 without an API error body');
    expect(err.body).toEqual({ code: 'internal_error', message: err.message, status: 502, requestId: 'req_proxy' });
  });

  it('derives the code from the status of an empty error', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    servers.push(s);
    await expect(clientFor(s.origin).client.request('GET', '/x')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      requestId: null,
    });
  });

  it('keeps the code of an OAuth error body', async () => {
    const s = await serve((_req, res) =>
      json(res, 400, { error: 'invalid_grant', error_description: 'refresh token was rotated' }),
    );
    servers.push(s);
    await expect(clientFor(s.origin).client.request('POST', '/auth/token')).rejects.toMatchObject({
      status: 400,
      code: 'invalid_grant',
      message: 'refresh token was rotated',
    });
  });

  it('refuses a 200 whose body is not JSON', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>captive portal</html>');
    });
    servers.push(s);
    await expect(clientFor(s.origin).client.request('GET', '/x')).rejects.toMatchObject({
      name: 'ApiError',
      status: 200,
      code: 'internal_error',
    });
  });

  it('does not follow a redirect, which would carry the key elsewhere', async () => {
    const s = await serve((req, res) => {
      if (req.url?.startsWith('/v2/')) {
        res.writeHead(301, { Location: 'https://elsewhere.example/v2/x' });
        res.end();
      } else json(res, 200, {});
    });
    servers.push(s);
    const err = (await clientFor(s.origin)
      .client.request('GET', '/x')
      .catch((e) => e)) as ApiError;
    expect(err).toMatchObject({ status: 301, code: 'invalid_request' });
    expect(err.message).toBe(
      'the server redirects to https://elsewhere.example/v2/x; use that address as the base URL',
    );
    expect(s.requests).toHaveLength(1);
  });
});

describe('a credential no header can carry', () => {
  it('is refused before anything is sent, in a message that does not quote it', async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    servers.push(s);
    for (const key of ['plat_live_secret\nrest', 'plat_live_secret…']) {
      const { client } = clientFor(s.origin, { auth: async () => ({ 'X-API-Key': key }) });
      const err = (await client.request('GET', '/x').catch((e) => e)) as Error;
      expect(err).toBeInstanceOf(TypeError);
      expect(err.message).toBe(
        'the credential cannot be sent: its X-API-Key header holds a character no header may carry',
      );
    }
    expect(s.requests).toHaveLength(0);
  });
});
