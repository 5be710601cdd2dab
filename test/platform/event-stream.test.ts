import { afterEach, describe, expect, it, vi } from 'vitest';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { STREAM_LIFETIME_MS } from '../../src/platform/operations/event-stream.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { BACKEND, testDatabase } from '../helpers/backend.js';
import { dbColumn } from '../helpers/db.js';
import { readStream, type StreamReader } from '../helpers/event-stream-reader.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

/**
 * `GET /organizations/{orgId}/events/stream` (docs/webhooks.md, "The event stream"; docs/api.md for the envelope):
 * Server-Sent Events in commit order, resumable with `Last-Event-ID` (nothing missed, nothing twice), scoped as the
 * events list is — over a real listener (`plat serve`'s) and in-process through `platform.fetch`.
 */

const EVENT_STREAM = 'text/event-stream; charset=utf-8';
/** What a stream says first: the reconnection delay, and its starting point as an id alone. */
const OPENING = /^retry: 1000\n\nid: pos_[\w.-]+\n\n$/;
const streamPath = (orgId: string) => `/v2/organizations/${orgId}/events/stream`;

/** The error envelope (docs/api.md, "Errors"). */
function envelope(status: number, code: string, details?: unknown) {
  return {
    error: {
      code,
      message: expect.any(String),
      status,
      requestId: expect.stringMatching(/^req_/),
      ...(details !== undefined && { details }),
    },
  };
}

/** The ids of the organization's events in the stream's order: `seq` on SQLite, the transaction then `seq` on PG. */
function inStreamOrder(platform: object, orgId: string): Promise<string[]> {
  const order = BACKEND === 'postgres' ? 'tx, seq' : 'seq';
  return dbColumn<string>(platform, `SELECT id FROM events WHERE org_id = ? ORDER BY ${order}`, orgId);
}

/** The text of one event as the stream writes it. */
const frame = (e: { id: string; type: string }) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

describe('over a real listener (plat serve)', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function served() {
    const { db, secretKey } = await testDatabase();
    server = await startServer({
      db,
      secretKey,
      port: 0,
      logger: () => {},
      limits: { enabled: false },
      webhooks: false,
      streamPollMs: 20,
      // 50 writes at once, each on a connection of its own, beside the streams.
      serverLimits: { maxConnectionsPerAddress: 100 },
    });
    const s = server;
    const { organizationId, apiKey } = await bootstrap(baseOf(s.platform), {
      orgName: 'Acme',
      email: 'owner@acme.test',
      name: 'Olive Owner',
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${s.url}/v2${path}`, {
        method,
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const open = (headers: Record<string, string> = {}) =>
      fetch(`${s.url}${streamPath(organizationId)}`, { headers: { 'X-API-Key': apiKey, ...headers } });
    const invite = async (email: string) =>
      expect((await call('POST', `/organizations/${organizationId}/users`, { email })).status).toBe(201);
    const listed = async (): Promise<any[]> =>
      (await call('GET', `/organizations/${organizationId}/events?limit=100`)).body.data;
    return { server: s, organizationId, call, open, invite, listed };
  }

  it('sends the headers at once, then each event as it commits: id, event, data', async () => {
    const s = await served();
    const res = await s.open();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(EVENT_STREAM);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-store');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const stream = readStream(res.body as ReadableStream<Uint8Array>);
    await stream.until(() => stream.blocks.length > 0, 'the first block');
    expect(stream.text).toMatch(OPENING);

    await s.invite('ann@acme.test');
    await s.invite('bob@acme.test');
    const [bob] = (await s.listed()).filter((e) => e.type === 'user.invited');
    expect((await s.call('PATCH', `/users/${bob.target.id}`, { name: 'Robert' })).status).toBe(200);
    await stream.until(() => stream.events.length >= 3, 'three events');
    // Only what came after the connection, in the order it was committed, as the events list records it.
    const written = (await s.listed()).slice(0, 3).reverse();
    expect(written.map((e) => e.type)).toEqual(['user.invited', 'user.invited', 'user.updated']);
    expect(stream.events.map((e) => ({ id: e.id, event: e.event, data: e.data }))).toEqual(
      written.map((e) => ({ id: e.id, event: e.type, data: e })),
    );
    expect(stream.events.map((e) => e.text)).toEqual(stream.events.map((e) => frame(e.data)));
    await stream.close();
  });

  it('resumes with Last-Event-ID while 50 writes go on: every event once, in the order committed', async () => {
    const s = await served();
    const before = new Set(await inStreamOrder(s.server.platform, s.organizationId));
    const invites = (from: number, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => s.invite(`user${from + i}@acme.test`)));
    const first = readStream((await s.open()).body as ReadableStream<Uint8Array>);
    await first.until(() => first.blocks.length > 0, 'the first block');
    // 25 at once; the first connection goes away once it has read 10 of them…
    const during = invites(0, 25);
    await first.until(() => first.events.length >= 10, 'ten events on the first connection');
    await first.close();
    const seenFirst = first.events.map((e) => e.id as string);
    // …15 more while no connection is open, and 10 while the second one opens.
    await Promise.all([during, invites(25, 15)]);
    const after = invites(40, 10);
    const second = readStream(
      (await s.open({ 'Last-Event-ID': seenFirst.at(-1) as string })).body as ReadableStream<Uint8Array>,
    );
    await after;
    // A last write after all of them: once it is read, everything before it has been.
    await s.call('PATCH', `/organizations/${s.organizationId}`, { name: 'Acme Two' });
    const all = (await inStreamOrder(s.server.platform, s.organizationId)).filter((id) => !before.has(id));
    expect(all).toHaveLength(51);
    await second.until(() => second.events.some((e) => e.id === all.at(-1)), 'the last write on the second');
    const seenSecond = second.events.map((e) => e.id as string);
    expect([...seenFirst, ...seenSecond]).toEqual(all);
    const invited = [...first.events, ...second.events].filter((e) => e.event === 'user.invited');
    expect(new Set(invited.map((e) => e.data.data.email)).size).toBe(50);
    await second.close();
  });

  it('refuses an unknown Last-Event-ID with the envelope, not a stream', async () => {
    const s = await served();
    const res = await s.open({ 'Last-Event-ID': 'evt_nosuchevent' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(
      envelope(400, 'invalid_request', [{ field: 'Last-Event-ID', message: expect.any(String) }]),
    );
  });

  it('ends its open streams when it closes, and close() resolves', async () => {
    const s = await served();
    const [id] = await inStreamOrder(s.server.platform, s.organizationId);
    const streams = [
      readStream((await s.open()).body as ReadableStream<Uint8Array>),
      readStream((await s.open({ 'Last-Event-ID': id as string })).body as ReadableStream<Uint8Array>),
    ];
    for (const stream of streams) await stream.until(() => stream.blocks.length > 0, 'the first block');
    await s.server.close();
    server = undefined;
    for (const stream of streams) {
      await stream.until(() => stream.ended, 'the end of the stream');
      expect(stream.error).toBeUndefined();
    }
  });
});

describe('in-process (platform.fetch)', () => {
  function open(
    t: TestPlatform,
    key: string | null = t.ownerKey,
    headers: Record<string, string> = {},
    orgId = t.orgId,
  ) {
    const h = new Headers(headers);
    if (key) h.set('X-API-Key', key);
    return t.platform.fetch(new Request(`http://plat.test${streamPath(orgId)}`, { headers: h }));
  }
  async function opened(
    t: TestPlatform,
    key?: string,
    headers?: Record<string, string>,
    orgId?: string,
  ): Promise<StreamReader> {
    const res = await open(t, key, headers, orgId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(EVENT_STREAM);
    const stream = readStream(res.body as ReadableStream<Uint8Array>);
    await stream.until(() => stream.blocks.length > 0, 'the first block');
    return stream;
  }
  async function listed(t: TestPlatform): Promise<any[]> {
    return (await t.call('GET', `/organizations/${t.orgId}/events?limit=100`)).body.data;
  }

  it('answers at once, before any event, then streams each write with the record the events list shows', async () => {
    const t = await testPlatform();
    const stream = await opened(t);
    expect(stream.text).toMatch(OPENING);
    const { userId } = await t.addUser({ email: 'max@acme.test' });
    t.clock.advance(1000);
    await t.call('PATCH', `/users/${userId}`, { body: { name: 'Max' } });
    await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Core' } });
    await stream.until(() => stream.events.length >= 2, 'two events');
    const [team, renamed] = await listed(t);
    expect(stream.events.map((e) => e.text)).toEqual([frame(renamed), frame(team)]);
    expect(stream.events.map((e) => e.data)).toEqual([renamed, team]);
    await stream.close();
  });

  it('gives its starting point first: resumed from it, what was written before any event came is not missed', async () => {
    const t = await testPlatform();
    const first = await opened(t);
    const start = first.blocks.find((b) => b.kind === 'position')?.id as string;
    expect(start).toMatch(/^pos_/);
    // The connection is gone before any event; meanwhile an invitation is written.
    await first.close();
    await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'meanwhile@acme.test' } });
    const resumed = await opened(t, t.ownerKey, { 'Last-Event-ID': start });
    await resumed.until(() => resumed.events.length >= 1, 'the event written between');
    expect(resumed.events.map((e) => e.data.data.email)).toEqual(['meanwhile@acme.test']);
    await resumed.close();
    // A position is the organization's, and cannot be altered.
    const other = await t.otherOrg();
    const theirs = await opened(t, other.key, {}, other.orgId);
    const theirStart = theirs.blocks.find((b) => b.kind === 'position')?.id as string;
    await theirs.close();
    for (const id of [theirStart, `${start.slice(0, -2)}xx`, 'pos_', 'pos_a.b']) {
      const res = await open(t, t.ownerKey, { 'Last-Event-ID': id });
      expect(res.status).toBe(400);
      await res.body?.cancel();
    }
  });

  it('resumes after the Last-Event-ID given; refuses one of no event of the organization (400)', async () => {
    const t = await testPlatform();
    for (const email of ['a@acme.test', 'b@acme.test', 'c@acme.test']) {
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email } });
    }
    const ids = (await listed(t)).map((e) => e.id).reverse();
    const resumed = await opened(t, t.ownerKey, { 'Last-Event-ID': ids[1] as string });
    await resumed.until(() => resumed.events.length >= 2, 'the two events after the second');
    expect(resumed.events.map((e) => e.id)).toEqual(ids.slice(2));
    await resumed.close();
    // An empty Last-Event-ID is none: from now on.
    const fresh = await opened(t, t.ownerKey, { 'Last-Event-ID': '' });
    await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'd@acme.test' } });
    await fresh.until(() => fresh.events.length >= 1, 'the new event');
    expect(fresh.events.map((e) => e.data.data.email)).toEqual(['d@acme.test']);
    await fresh.close();

    const other = await t.otherOrg();
    const [theirs] = (await t.call('GET', `/organizations/${other.orgId}/events`, { key: other.key })).body.data;
    for (const id of ['evt_9999', theirs.id, `${ids[0]}x`, 'not an id']) {
      const res = await open(t, t.ownerKey, { 'Last-Event-ID': id });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(
        envelope(400, 'invalid_request', [{ field: 'Last-Event-ID', message: expect.any(String) }]),
      );
    }
  });

  it('never shows a key restricted to some projects an event about another project', async () => {
    const t = await testPlatform();
    const project = async (name: string) =>
      (await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name } })).body.id as string;
    const mine = await project('Mine');
    const theirs = await project('Theirs');
    const restricted = await opened(t, await t.keyFor(t.ownerId, { projectIds: [mine], permissions: ['events:read'] }));
    const everything = await opened(t);
    for (const [id, value] of [
      [theirs, 'x'],
      [mine, 'y'],
      [theirs, 'z'],
    ] as const) {
      const r = await t.call('PATCH', `/projects/${id}/environments/staging`, { body: { config: { K: value } } });
      expect(r.status).toBe(200);
      await t.call('PATCH', `/projects/${id}`, { body: { description: value } });
    }
    const dev = await t.addUser({ email: 'dev@acme.test' });
    await t.call('POST', `/projects/${theirs}/members`, { body: { userId: dev.userId, role: 'developer' } });
    // Last, about Mine: once the restricted stream has it, it has been offered everything before it.
    await t.call('PATCH', `/projects/${mine}`, { body: { description: 'last' } });
    const [last] = await listed(t);
    await everything.until(() => everything.events.some((e) => e.id === last.id), 'the last event');
    await restricted.until(() => restricted.events.some((e) => e.id === last.id), 'the last event');
    const about = (e: any) => (e.target.type === 'project' ? e.target.id : e.target.type);
    const all = everything.events.map((e) => e.data);
    expect(all.filter((e) => e.target.id === theirs || e.type === 'member.added').length).toBeGreaterThan(0);
    const outOfReach = new Set(
      await dbColumn<string>(t.platform, 'SELECT event_id FROM event_projects WHERE project_id = ?', theirs),
    );
    expect(outOfReach.size).toBeGreaterThanOrEqual(5);
    expect(restricted.events.map((e) => e.id)).toEqual(all.filter((e) => !outOfReach.has(e.id)).map((e) => e.id));
    expect(restricted.events.map((e) => about(e.data))).not.toContain(theirs);
    await restricted.close();
    await everything.close();
  });

  it('refuses a member without events:read (403), no credential (401), another organization (404)', async () => {
    const t = await testPlatform();
    const member = await t.addUser({ email: 'mel@acme.test' });
    const r403 = await open(t, member.key);
    expect(r403.status).toBe(403);
    expect(await r403.json()).toEqual(envelope(403, 'insufficient_permissions'));
    const webhooksOnly = await t.keyFor(t.ownerId, { permissions: ['webhooks:read'] });
    expect((await open(t, webhooksOnly)).status).toBe(403);
    const r401 = await open(t, null);
    expect(r401.status).toBe(401);
    expect(await r401.json()).toEqual(envelope(401, expect.any(String)));
    const other = await t.otherOrg();
    const r404 = await open(t, t.ownerKey, {}, other.orgId);
    expect(r404.status).toBe(404);
    expect(await r404.json()).toEqual(envelope(404, 'not_found'));
  });

  describe('keeping alive and ending', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sends a comment when quiet for 15 s', async () => {
      const t = await testPlatform();
      const stream = await opened(t);
      // Only the wall clock moves (the stream measures quiet time by it); timers stay real.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 15_001);
      await stream.until(() => stream.blocks.some((b) => b.kind === 'comment'), 'a comment');
      expect(stream.text).toMatch(new RegExp(`${OPENING.source.slice(0, -1)}: keep-alive\n\n$`));
      await stream.close();
    });

    it('ends a connection after its lifetime; resuming from its last event misses nothing', async () => {
      const t = await testPlatform();
      const stream = await opened(t);
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'a@acme.test' } });
      await stream.until(() => stream.events.length === 1, 'the first event');
      t.clock.advance(STREAM_LIFETIME_MS);
      await stream.until(() => stream.ended, 'the end of the stream');
      expect(stream.error).toBeUndefined();
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'b@acme.test' } });
      const resumed = await opened(t, t.ownerKey, { 'Last-Event-ID': stream.events[0]?.id as string });
      await resumed.until(() => resumed.events.length === 1, 'the event written between');
      expect(resumed.events[0]?.data.data.email).toBe('b@acme.test');
      await resumed.close();
    });

    it('ends every open stream when the platform closes', async () => {
      const t = await testPlatform();
      const streams = [await opened(t), await opened(t)];
      await t.platform.close();
      for (const stream of streams) {
        await stream.until(() => stream.ended, 'the end of the stream');
        // Ended, not failed (as a read on the closed database would make it).
        expect(stream.error).toBeUndefined();
      }
    });
  });
});
