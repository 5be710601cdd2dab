import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, SERVER_LIMITS, type ServerLimits, startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';

const dir = mkdtempSync(join(tmpdir(), 'plat-server-'));
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function serve(
  name: string,
  serverLimits: Partial<ServerLimits> = {},
  log: string[] = [],
  trustProxy?: string[],
) {
  const server = await startServer({
    ...(await testDatabase(join(dir, `${name}.db`))),
    port: 0,
    logger: () => {},
    accessLog: (line) => log.push(line),
    serverLimits,
    ...(trustProxy && { trustProxy }),
  });
  servers.push(server);
  return server;
}

/** A connection to the server, connected (from `from`, one of the loopback addresses 127.0.0.x, when given). */
async function open(server: RunningServer, from?: string): Promise<Socket> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ port: Number(port), host: hostname, ...(from && { localAddress: from }) });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Everything the server sends on `socket` until it closes it. */
function untilClosed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  return new Promise((resolve) => socket.on('close', () => resolve(received)));
}

/** The `408` the listener sends on a connection too slow to send its request, as a raw response. */
function expect408(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  expect(head.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  expect(head).toContain('\r\nContent-Type: application/json\r\n');
  const requestId = /\r\nX-Request-Id: (req_\w{20})\r\n/.exec(head)?.[1];
  expect(JSON.parse(body)).toEqual({
    error: { code: 'invalid_request', message: 'the request took too long to arrive', status: 408, requestId },
  });
}

describe('the listener of plat serve (docs/api.md, "Bounds on what clients send", docs/api.md)', () => {
  it('runs with the documented timeouts and connection cap', async () => {
    const server = await serve('defaults');
    expect(SERVER_LIMITS).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      checkIntervalMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 256,
      maxConnectionsPerAddress: 32,
    });
    // Read back from the Node.js server itself.
    expect(server.serverLimits).toEqual(SERVER_LIMITS);
  });

  it('answers 408 and closes a connection whose headers do not arrive in time, or whose body does not', async () => {
    const log: string[] = [];
    const server = await serve('slow', { headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 50 }, log);
    const headers = await open(server);
    const slowHeaders = untilClosed(headers);
    headers.write('GET /v2/health HTTP/1.1\r\nHost: x\r\n'); // and never the blank line
    const body = await open(server);
    const slowBody = untilClosed(body);
    body.write(
      'POST /v2/auth/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    const silent = await open(server);
    const nothingSent = untilClosed(silent);
    expect408(await slowHeaders);
    expect408(await slowBody);
    expect408(await nothingSent);
    // Meanwhile a prompt request is served.
    expect((await fetch(`${server.url}/v2/health`)).status).toBe(200);
    expect(log.filter((l) => l.startsWith('127.0.0.1 - - 408 - req_'))).toHaveLength(3);
    // The abandoned body is the client's doing, not an internal error (logged once the platform has seen it end).
    while (!log.some((l) => /^127\.0\.0\.1 POST \/v2\/auth\/refresh 400 /.test(l))) {
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('closes connections past the cap at once, and serves those it holds', async () => {
    const server = await serve('cap', { maxConnections: 2 });
    const [first, second] = [await open(server), await open(server)];
    // Accepted in the order they connected: the third is one too many.
    const third = await open(server);
    expect(await untilClosed(third)).toBe('');
    const answer = untilClosed(first);
    first.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    second.destroy();
  });

  it('holds at most the per-address cap from one address, which locks no other address out', async () => {
    const server = await serve('per-address', { maxConnectionsPerAddress: 2 });
    const held = [await open(server, '127.0.0.2'), await open(server, '127.0.0.2')];
    const oneTooMany = await open(server, '127.0.0.2');
    expect(await untilClosed(oneTooMany)).toBe('');
    // Another address is served meanwhile.
    const other = await open(server, '127.0.0.3');
    const answer = untilClosed(other);
    other.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    // Once one of its connections ends, the address may open another.
    const closed = untilClosed(held[0] as Socket);
    held[0]?.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await open(server, '127.0.0.2');
    const served = untilClosed(again);
    again.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await served).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    held[1]?.destroy();
  });

  it("believes a trusted proxy's X-Forwarded-For for limits and the log, exempts it from the cap, and no one else's", async () => {
    const log: string[] = [];
    const server = await serve('proxy', { maxConnectionsPerAddress: 2 }, log, ['127.0.0.4']);
    /** A request with a bad key, from `from`, saying it forwards `forwarded`: its status. */
    const guess = async (from: string, forwarded: string) => {
      const socket = await open(server, from);
      const answer = untilClosed(socket);
      socket.write(
        `GET /v2/organizations HTTP/1.1\r\nHost: x\r\nX-API-Key: plat_live_guess\r\nX-Forwarded-For: ${forwarded}\r\n` +
          'Connection: close\r\n\r\n',
      );
      return Number((await answer).split(' ')[1]);
    };
    // Through the proxy, each client has its own failure budget: 10 guesses, then 429.
    for (let i = 0; i < 10; i++) expect(await guess('127.0.0.4', '1.2.3.4, 198.51.100.7')).toBe(401);
    expect(await guess('127.0.0.4', '198.51.100.7')).toBe(429);
    expect(await guess('127.0.0.4', '198.51.100.8')).toBe(401);
    // A peer that is not a trusted proxy cannot choose its address by writing the header.
    for (let i = 0; i < 10; i++) expect(await guess('127.0.0.5', `203.0.113.${i}`)).toBe(401);
    expect(await guess('127.0.0.5', '203.0.113.99')).toBe(429);
    expect(log.filter((l) => l.startsWith('198.51.100.7 GET /v2/organizations 401 '))).toHaveLength(10);
    expect(log.filter((l) => l.startsWith('127.0.0.5 GET /v2/organizations '))).toHaveLength(11);
    // The proxy speaks for many clients: more connections than the per-address cap, all held.
    const many = [await open(server, '127.0.0.4'), await open(server, '127.0.0.4'), await open(server, '127.0.0.4')];
    const last = many[2] as Socket;
    const answer = untilClosed(last);
    last.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    for (const s of many) s.destroy();
  });

  it('answers a path with a trailing slash as the path without it, as the embedded platform does', async () => {
    const server = await serve('slash');
    for (const path of ['/v2/health', '/v2/health/']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('ok');
    }
    const wrong = await fetch(`${server.url}/v2/health/`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    const inProcess = await server.platform.fetch(new Request('http://plat.test/v2/health/'));
    expect(inProcess.status).toBe(200);
  });

  it('answers a body over the limit 413 with Connection: close, which a client still sending reads in full', async () => {
    const server = await serve('too-large');
    const path = `${server.url}/v2/organizations/org_x/users`;
    // What users hit: undici sending 2 MiB. It reads the answer rather than "other side closed".
    const big = Buffer.alloc(2 * 1024 * 1024, 'a');
    const answered = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
    expect(answered.status).toBe(413);
    expect(answered.headers.get('connection')).toBe('close');
    expect(((await answered.json()) as { error: { message: string } }).error.message).toBe(
      'request body too large (limit 1 MiB)',
    );

    // Raw: a client that announces 2 MiB and goes on sending after the answer gets the whole answer, then the end.
    const socket = await open(server);
    const received = untilClosed(socket);
    socket.write(`POST /v2/organizations/org_x/users HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`);
    for (let sent = 0; sent < big.length && !socket.destroyed; sent += 64 * 1024) {
      socket.write(big.subarray(sent, sent + 64 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const raw = await received;
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(raw.split('\r\n\r\n')[1] as string).error.status).toBe(413);

    // Announced with `Expect: 100-continue`: refused at once, never told to continue.
    const asking = await open(server);
    const refused = untilClosed(asking);
    asking.write(
      `POST /v2/organizations/org_x/users HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n` +
        'Expect: 100-continue\r\n\r\n',
    );
    const answer = await refused;
    expect(answer).not.toContain('100 Continue');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('refuses inconsistent limits', async () => {
    await expect(serve('bad', { headersTimeoutMs: 70_000 })).rejects.toThrow(
      'headersTimeoutMs cannot exceed requestTimeoutMs',
    );
    await expect(serve('zero', { maxConnections: 0 })).rejects.toThrow('maxConnections must be a positive integer');
  });
});
