import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineFor } from '../../src/platform/http/pipeline.js';
import type { RouteDef } from '../../src/platform/http/route.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';
import { setPlan } from './limits/helpers.js';

// The one request pipeline (src/platform/http/pipeline.ts) behind its two transports: whatever carries a request, it
// is matched, authenticated, limited, checked and answered alike. The in-process `fetch` and `plat serve`'s node:http
// listener are compared on the same requests, over the same database.

/** One raw HTTP/1.1 exchange with the server; the answer's status, headers (lower-case) and body. */
async function raw(server: RunningServer, request: string) {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(request);
  await new Promise((resolve) => socket.once('close', resolve));
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

/** What must be the same whichever transport answered: status, body without its request id, the headers that matter. */
function comparable(status: number, headers: (name: string) => string | null | undefined, body: unknown) {
  const error = (body as { error?: { requestId?: string } } | undefined)?.error;
  if (error) delete error.requestId;
  const pick = ['content-type', 'allow', 'location', 'x-ratelimit-limit', 'retry-after'];
  return { status, body, headers: Object.fromEntries(pick.map((h) => [h, headers(h) ?? null])) };
}

describe('the two transports', () => {
  let t: TestPlatform;
  let server: RunningServer;
  const file = `/tmp/plat-pipeline-${process.pid}.db`;
  beforeAll(async () => {
    // One database, two platforms over it: the test's, in-process, and plat serve's.
    const db = await testDatabase(file);
    t = await testPlatform({ db: db.db });
    server = await startServer({ ...db, port: 0, logger: () => {}, limits: { enabled: false } });
  });
  afterAll(async () => {
    await server.close();
    await t.platform.close();
    for (const suffix of ['', '-wal', '-shm', '.key', '.limits']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('answer the same requests alike: found, missing, malformed, misdirected', async () => {
    const user = `/v2/users/${t.ownerId}`;
    const cases: { method: string; path: string; headers?: Record<string, string> }[] = [
      { method: 'GET', path: user },
      { method: 'GET', path: `${user}/` }, // a trailing slash is the path without it
      { method: 'GET', path: '/v2/users/user%5F9999' }, // an escaped segment is decoded: a user that is not there
      { method: 'GET', path: `/v2/organizations/${t.orgId}/users?per_page=500` },
      { method: 'PUT', path: user },
      { method: 'GET', path: '/v2/openapi.json/x' },
      { method: 'DELETE', path: '/v2/openapi.json' },
      { method: 'GET', path: '/v2/nothing/here' },
      { method: 'GET', path: user, headers: { 'X-Org-Id': '' } },
      { method: 'GET', path: user, headers: { 'X-API-Key': 'plat_live_wrong' } },
    ];
    for (const c of cases) {
      const headers = { 'X-API-Key': t.ownerKey, ...c.headers };
      const inProcess = await t.platform.fetch(new Request(`http://plat.test${c.path}`, { method: c.method, headers }));
      const text = await inProcess.text();
      const a = comparable(inProcess.status, (h) => inProcess.headers.get(h), text ? JSON.parse(text) : undefined);
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      const r = await raw(
        server,
        `${c.method} ${c.path} HTTP/1.1\r\nHost: x\r\n${lines.join('')}Connection: close\r\n\r\n`,
      );
      const b = comparable(r.status, (h) => r.headers[h], r.body);
      expect(b, `${c.method} ${c.path}`).toEqual(a);
    }
  });

  it('read a repeated header as one value, joined, as the Fetch standard does', async () => {
    // Two X-API-Key headers make one value that is no key: refused, never the first or the last taken alone.
    const r = await raw(
      server,
      `GET /v2/users/${t.ownerId} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.ownerKey}\r\nx-api-key: ${t.ownerKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(r.status).toBe(401);
    const inProcess = await t.call('GET', `/users/${t.ownerId}`, {
      headers: { 'x-api-key': `${t.ownerKey}, ${t.ownerKey}` },
      key: null,
    });
    expect(inProcess.status).toBe(401);
  });
});

describe('the pipeline', () => {
  it('refuses at start a route table whose SCIM route names a bucket no SCIM request is keyed for', () => {
    const scim = ROUTES.find((r) => r.kind === 'scim') as RouteDef;
    expect(() => pipelineFor([...ROUTES])).not.toThrow();
    const swapped = ROUTES.map((r) => (r === scim ? { ...r, limit: 'plan' as const } : r));
    expect(() => pipelineFor(swapped)).toThrow(`${scim.operationId}: a SCIM route's limit is scim or none`);
  });

  it('says where an API key goes when one is sent as a bearer token', async () => {
    const t = await testPlatform();
    const r = await t.call('GET', '/organizations', { key: null, headers: { Authorization: `Bearer ${t.ownerKey}` } });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toBe('API keys go in the X-API-Key header, not in Authorization: Bearer');
  });

  it('refuses an empty X-Org-Id with 400, before anything is read', async () => {
    const t = await testPlatform();
    const r = await t.call('GET', '/organizations', { headers: { 'X-Org-Id': '' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('X-Org-Id') });
  });

  it('answers 405 with Allow on its own addresses too: the OpenAPI document and RFC 8414 metadata', async () => {
    const t = await testPlatform();
    for (const path of ['/v2/openapi.json', '/.well-known/oauth-authorization-server/v2/auth']) {
      const r = await t.platform.fetch(new Request(`http://plat.test${path}`, { method: 'POST' }));
      expect(r.status, path).toBe(405);
      expect(r.headers.get('allow'), path).toBe('GET');
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });

  it('lets a member create an organization when the credential grants org:write: no role of the acting one counts', async () => {
    const t = await testPlatform();
    const { userId } = await t.addUser({ email: 'member@acme.test', role: 'member' });
    const key = await t.keyFor(userId, { multiOrganization: true });
    const r = await t.call('POST', '/organizations', { key, body: { name: 'Side Project' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('spends the bucket of a valid credential that it refuses for where it means to act', async () => {
    const t = await testPlatform({ limits: { enabled: true } });
    await setPlan(t, 'free');
    const other = await t.otherOrg();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await t.call('GET', `/organizations/${other.orgId}/users`, { headers: { 'X-Org-Id': t.orgId } });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([...Array(10).fill(404), 429]);
    expect((await t.call('GET', '/organizations', { headers: { 'X-Org-Id': '' } })).status).toBe(429);
  });

  it('reads a JSON body that starts with a byte-order mark, as Request.text() does', async () => {
    const t = await testPlatform();
    const r = await t.call('POST', `/organizations/${t.orgId}/teams`, { body: '\uFEFF{"name":"Readers"}' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('refuses a flooding key from memory, before reading it: even once revoked, until its bucket refills', async () => {
    const t = await testPlatform({ limits: { enabled: true } });
    await setPlan(t, 'free');
    const key = await t.keyFor(t.ownerId);
    for (let i = 0; i < 10; i++) expect((await t.call('GET', '/organizations', { key })).status).toBe(200);
    expect((await t.call('GET', '/organizations', { key })).status).toBe(429);
    // Revoked now: the refusal is still the bucket's, answered without reading the key (a 429 carries nothing the
    // sender of the key did not know); once the bucket could serve again, the key is read, and refused for what it is.
    const keyId = (await t.call('GET', `/organizations/${t.orgId}/api-keys`)).body.data[0].id;
    expect((await t.call('DELETE', `/api-keys/${keyId}`)).status).toBe(204);
    const refused = await t.call('GET', '/organizations', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    t.clock.advance(1000);
    const after = await t.call('GET', '/organizations', { key });
    expect(after.status).toBe(401);
    expect(after.body.error.message).toBe('API key has been revoked');
  });

  it('refuses an invalid key from an address out of failures from memory: only that key, only until it refills', async () => {
    const t = await testPlatform({ limits: { enabled: true } });
    // Revoked keys: well-formed (a malformed one is refused by its checksum, unread), so each is looked up.
    const keyIds = async () =>
      new Set<string>(
        (await t.call('GET', `/organizations/${t.orgId}/api-keys`)).body.data.map((k: { id: string }) => k.id),
      );
    const owners = await keyIds();
    const [bad, otherBad] = [await t.keyFor(t.ownerId), await t.keyFor(t.ownerId)];
    for (const id of await keyIds()) if (!owners.has(id)) await t.call('DELETE', `/api-keys/${id}`);
    const stores = baseOf(t.platform).stores;
    const byHash = stores.apiKeys.byHash;
    let lookups = 0;
    stores.apiKeys.byHash = (hash) => {
      lookups++;
      return byHash(hash);
    };
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await t.call('GET', '/organizations', { key: bad })).status);
    // The address's failure budget: a burst of 10, then 429 (docs/rate-limits.md).
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect(lookups).toBe(11);
    const again = await t.call('GET', '/organizations', { key: bad });
    expect(again.status).toBe(429);
    expect(again.body.error.message).toMatch(
      /^too many requests with missing or invalid credentials from this address/,
    );
    expect(again.headers.get('retry-after')).toBe('2');
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(lookups, 'the same invalid key again is not looked up').toBe(11);
    // A valid key from the same address is read and served; another invalid one is read, and refused for the address.
    expect((await t.call('GET', '/organizations')).status).toBe(200);
    expect((await t.call('GET', '/organizations', { key: otherBad })).status).toBe(429);
    expect(lookups).toBe(13);
    // Once the address could fail again, the key is read again, and answered for what it is.
    t.clock.advance(2000);
    const later = await t.call('GET', '/organizations', { key: bad });
    expect([later.status, later.body.error.message]).toEqual([401, 'API key has been revoked']);
    expect(lookups).toBe(14);
  });
});
