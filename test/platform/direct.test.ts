import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectRequest } from '../../src/platform/http/direct.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import { bootstrap, type Platform } from '../../src/platform/index.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const HOST = '127.0.0.1:8080';

/** A GET as node:http would hand it over: the target as sent, the headers in turn (Host first). */
function nodeRequest(target: string, headers: Record<string, string> = {}, method = 'GET'): DirectRequest {
  return { method, url: target, rawHeaders: ['Host', HOST, ...Object.entries(headers).flat()] };
}

/** The app's answer to the same request: status, headers as @hono/node-server writes them, body. */
async function throughApp(platform: Platform, target: string, headers: Record<string, string>) {
  const res = await platform.fetch(new Request(`http://${HOST}${target}`, { headers }));
  const body = await res.text();
  return { status: res.status, headers: [...res.headers].flat(), body };
}

/** The direct path's answer, its `Content-Length` checked and set aside (the listener adds it to the app's). */
async function directly(platform: Platform, target: string, headers: Record<string, string>) {
  const reply = await platform.direct(nodeRequest(target, headers));
  if (!reply) throw new Error(`the direct path declined GET ${target}`);
  const at = reply.headers.indexOf('Content-Length');
  expect(reply.headers[at + 1]).toBe(String(Buffer.byteLength(reply.body ?? '')));
  return { status: reply.status, headers: reply.headers.slice(0, at), body: reply.body };
}

describe('the direct path of plat serve (GET on authenticated routes, without the Web request and response)', () => {
  let t: TestPlatform;
  let cases: [string, Record<string, string>][];
  beforeAll(async () => {
    t = await testPlatform();
    const other = await t.otherOrg();
    const member = await t.addUser({ email: 'mia@acme.test', name: 'Mia Member' });
    const multi = await t.keyFor(t.ownerId, { multiOrganization: true });
    const key = { 'X-API-Key': t.ownerKey };
    cases = [
      [`/v2/users/${t.ownerId}`, key],
      [`/v2/users/${member.userId}`, { 'X-API-Key': member.key }],
      [`/v2/users/${other.ownerId}`, key],
      [`/v2/users/not-an-id`, key],
      [`/v2/users/${t.ownerId}`, {}],
      [`/v2/users/${t.ownerId}`, { 'X-API-Key': 'plat_live_nonsense' }],
      [`/v2/users/${t.ownerId}`, { 'X-API-Key': `  ${t.ownerKey}  ` }],
      [`/v2/users/${t.ownerId}`, { ...key, Authorization: 'Bearer x' }],
      [`/v2/users/${t.ownerId}`, { Authorization: 'Basic eDp5' }],
      [`/v2/users/${t.ownerId}`, { ...key, 'X-Org-Id': other.orgId }],
      [`/v2/users/${other.ownerId}`, { 'X-API-Key': multi, 'X-Org-Id': other.orgId }],
      [`/v2/organizations/${other.orgId}/users`, key],
      [`/v2/organizations/${t.orgId}/users?limit=1&sort=email`, key],
      [`/v2/organizations/${t.orgId}/users?limit=0`, key],
      [`/v2/organizations/${t.orgId}/users?limit=1&limit=2`, key],
      [`/v2/organizations/${t.orgId}/users?search=M%C3%ADa+M`, key],
      [`/v2/users/${t.ownerId}?unknown=1`, key],
      [`/v2/users/${t.ownerId}?`, key],
      [`/v2/organizations/${t.orgId}/api-keys`, { 'x-api-key': member.key }],
      [`/v2/auth/whoami`, key],
    ];
  });

  it('answers as the app does: status, headers, envelope, with the request id sent', async () => {
    for (const [target, headers] of cases) {
      const sent = { ...headers, 'X-Request-Id': 'test-request-1' };
      expect(await directly(t.platform, target, sent), target).toEqual(await throughApp(t.platform, target, sent));
    }
  });

  it('finds every GET route of the table as the app does, answering alike', async () => {
    const sent = { 'X-API-Key': t.ownerKey, 'X-Request-Id': 'test-request-2' };
    const gets = ROUTES.filter((r) => r.method === 'GET' && r.kind === 'api');
    expect(gets.length).toBeGreaterThan(20);
    for (const route of gets) {
      const target = `/v2${route.path}`.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'orgId' ? t.orgId : name === 'userId' ? t.ownerId : `${name}_1`,
      );
      expect(await directly(t.platform, target, sent), target).toEqual(await throughApp(t.platform, target, sent));
    }
  });

  it('makes a request id when none or an invalid one is sent, and joins repeated headers as Headers does', async () => {
    for (const sent of [{}, { 'X-Request-Id': 'has space' }] as Record<string, string>[]) {
      const reply = await t.platform.direct(
        nodeRequest(`/v2/users/${t.ownerId}`, { ...sent, 'X-API-Key': t.ownerKey }),
      );
      expect(reply?.status).toBe(200);
      expect(reply?.requestId).toMatch(/^req_\w{20}$/);
      expect(reply?.headers).toContain(reply?.requestId);
    }
    // Two keys are one header of two values: no key at all.
    const twice = await t.platform.direct({
      method: 'GET',
      url: `/v2/users/${t.ownerId}`,
      rawHeaders: ['Host', HOST, 'X-API-Key', t.ownerKey, 'x-api-key', t.ownerKey],
    });
    expect(twice?.status).toBe(401);
  });

  it('refuses a revoked key and a suspended user on the very next request', async () => {
    const { userId, key } = await t.addUser({ email: 'sam@acme.test' });
    const get = async () => {
      const reply = await t.platform.direct(nodeRequest(`/v2/users/${userId}`, { 'X-API-Key': key }));
      return reply?.status === 200 ? 'ok' : JSON.parse(reply?.body ?? '').error.message;
    };
    expect(await get()).toBe('ok');
    // Suspended behind the API's back, the key left as it was: the user's standing is read at each request.
    const stores = t.platform.base().stores;
    const user = await stores.users.get(t.orgId, userId);
    await stores.users.update(t.orgId, { ...(user as NonNullable<typeof user>), status: 'suspended' });
    expect(await get()).toBe('the credential belongs to a user who is no longer active');
    await stores.users.update(t.orgId, { ...(user as NonNullable<typeof user>), status: 'active' });
    expect(await get()).toBe('ok');
    // Suspended through the API, which revokes the user's keys.
    expect((await t.call('POST', `/users/${userId}/suspend`)).status).toBe(200);
    expect(await get()).toBe('API key has been revoked');
  });

  it('leaves to the app what it would read differently: other methods, public routes, unusual targets and hosts', () => {
    const key = { 'X-API-Key': t.ownerKey };
    const user = `/v2/users/${t.ownerId}`;
    const declined: DirectRequest[] = [
      nodeRequest(user, key, 'HEAD'),
      nodeRequest(user, key, 'DELETE'),
      nodeRequest(`/v2/organizations/${t.orgId}/users`, key, 'POST'),
      nodeRequest('/v2/health'),
      nodeRequest('/v2/openapi.json'),
      nodeRequest(`${user}/`, key),
      nodeRequest(`/v2/users/${t.ownerId.replace('_', '%5F')}`, key),
      nodeRequest(`/v2/users/../users/${t.ownerId}`, key),
      nodeRequest(`/v2/./users/${t.ownerId}`, key),
      nodeRequest(`${user}#top`, key),
      nodeRequest(`${user}?q='`, key),
      nodeRequest(`http://${HOST}${user}`, key),
      nodeRequest(`${user}?q=${'a'.repeat(8 * 1024)}`, key),
      { method: 'GET', url: user, rawHeaders: ['X-API-Key', t.ownerKey] },
      { method: 'GET', url: user, rawHeaders: ['Host', 'LOCALHOST:8080', 'X-API-Key', t.ownerKey] },
      { method: 'GET', url: user, rawHeaders: ['Host', '127.0.0.1:80', 'X-API-Key', t.ownerKey] },
      { method: 'GET', url: user, rawHeaders: ['Host', HOST, 'Host', HOST, 'X-API-Key', t.ownerKey] },
    ];
    for (const request of declined) expect(t.platform.direct(request), JSON.stringify(request)).toBeUndefined();
    expect(t.platform.direct(nodeRequest(user, key))).toBeDefined();
  });

  it('leaves every request to the app while rate limits are on (their middleware is the app’s)', async () => {
    const limited = await testPlatform({ limits: { enabled: true } });
    expect(
      limited.platform.direct(nodeRequest(`/v2/users/${limited.ownerId}`, { 'X-API-Key': limited.ownerKey })),
    ).toBeUndefined();
  });
});

describe('plat serve with the direct path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plat-direct-'));
  let server: RunningServer;
  let made: { userId: string; apiKey: string };
  const log: string[] = [];
  beforeAll(async () => {
    server = await startServer({
      ...(await testDatabase(join(dir, 'direct.db'))),
      port: 0,
      limits: { enabled: false },
      logger: () => {},
      accessLog: (line) => log.push(line),
    });
    made = await bootstrap(server.platform.base(), { orgName: 'Acme', email: 'o@acme.test', name: 'Olive' });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The raw response to one request on a connection of its own, its `Date` left out. */
  async function exchange(host: string, target: string, headers: string): Promise<string> {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${headers}Connection: close\r\n\r\n`);
    await new Promise((resolve) => socket.on('close', resolve));
    return received.replace(/\r\nDate: [^\r]+/, '');
  }

  it('writes the same bytes as the app would, and one access-log line', async () => {
    const { port } = new URL(server.url);
    for (const [target, headers] of [
      [`/v2/users/${made.userId}`, `X-API-Key: ${made.apiKey}\r\n`],
      [`/v2/users/${made.userId}`, 'X-API-Key: plat_live_nonsense\r\n'],
      [`/v2/users/${made.userId}?x=1`, `X-API-Key: ${made.apiKey}\r\n`],
    ] as const) {
      const sent = `${headers}X-Request-Id: test-${log.length}\r\n`;
      // An upper-case Host goes the whole way (@hono/node-server parses it); the same in lower case, directly.
      const direct = await exchange(`127.0.0.1:${port}`, target, sent);
      const whole = await exchange(`LOCALHOST:${port}`, target, sent);
      expect(direct).toBe(whole);
      expect(direct).toMatch(/^HTTP\/1\.1 \d{3} /);
    }
    expect(log.filter((l) => l.startsWith(`GET /v2/users/${made.userId} 200 `))).toHaveLength(2);
    expect(log).toContainEqual(expect.stringMatching(/^GET \/v2\/users\/\w+ 401 \d+\.\dms test-2$/));
    expect(server.inFlight).toBe(0);
  });
});
