import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/contract/webhook-signature.js';
import { PlatformError } from '../../src/platform/errors.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { dbCount, dbRows, dbRun } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

/**
 * Webhook endpoints (docs/webhooks.md; docs/api.md, "Errors" for the envelope): the API's records, what it refuses,
 * who may call it, the deliveries each event fans out to in its own transaction, Standard Webhooks signatures (checked
 * with the `standardwebhooks` package), rotation, test events, the deliveries' listing and retries.
 */

const T0 = '2026-01-01T00:00:00.000Z';
const DAY = 24 * 3600_000;
const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;

const hooksPath = (t: TestPlatform, orgId = t.orgId) => `/organizations/${orgId}/webhooks`;

function create(t: TestPlatform, body: unknown, key?: string) {
  return t.call('POST', hooksPath(t), { body, key });
}

/** An endpoint made by the owner (201 asserted), with its secret. */
async function made(t: TestPlatform, body: Record<string, unknown>): Promise<any> {
  const r = await create(t, body);
  expect(r.status).toBe(201);
  return r.body;
}

/** Invites a user: one `user.invited` event. */
async function invite(t: TestPlatform, email: string, key?: string) {
  const r = await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email, name: 'Invitee' }, key });
  expect(r.status).toBe(201);
  return r.body;
}

async function events(t: TestPlatform): Promise<any[]> {
  const r = await t.call('GET', `/organizations/${t.orgId}/events?limit=100`);
  expect(r.status).toBe(200);
  return r.body.data;
}

async function deliveries(t: TestPlatform, webhookId: string, query = ''): Promise<any[]> {
  const r = await t.call('GET', `/webhooks/${webhookId}/deliveries?limit=100${query}`);
  expect(r.status).toBe(200);
  return r.body.data;
}

/** What a report of a claimed delivery names of its claim: which delivery and attempt, and the claim's lease end. */
const claimOf = (c: { id: string; attempt: number; leaseUntil: string }) => ({
  id: c.id,
  attempt: c.attempt,
  leaseUntil: c.leaseUntil,
});

/**
 * Claims every delivery due, as senders would, leased for a minute: a claim takes one per endpoint (each holds one
 * attempt at a time), so after each round the endpoints' turns are ended, as finished attempts end them, and the rest
 * are claimed.
 */
async function claimDue(t: TestPlatform, owner = 'test-sender') {
  const now = t.clock();
  const all = [];
  for (;;) {
    const round = await baseOf(t.platform).stores.webhooks.claim({
      owner,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit: 100,
    });
    if (round.length === 0) return all;
    all.push(...round);
    await dbRun(t.platform, 'UPDATE webhooks SET busy_until = NULL');
  }
}

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

describe('webhook endpoints: create, read, change, remove', () => {
  it('answers each record exactly, the secret on creation only, and logs each change', async () => {
    const t = await testPlatform();
    const c = await create(t, {
      url: 'HTTPS://Hooks.Example.COM/in?x=1',
      events: ['user.invited', 'user.updated', 'user.invited'],
      description: 'CRM sync',
    });
    expect(c.status).toBe(201);
    expect(c.headers.get('location')).toBe('/v2/webhooks/wh_0001');
    const record = {
      id: 'wh_0001',
      organizationId: t.orgId,
      url: 'https://hooks.example.com/in?x=1',
      events: ['user.invited', 'user.updated'],
      description: 'CRM sync',
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: T0,
      updatedAt: T0,
    };
    expect(c.body).toEqual({ ...record, secret: expect.stringMatching(SECRET) });
    const defaults = await made(t, { url: 'http://localhost:8080/hook' });
    expect(defaults).toMatchObject({ id: 'wh_0002', events: [], description: null, enabled: true });

    expect(await t.call('GET', '/webhooks/wh_0001')).toMatchObject({ status: 200, body: record });
    const listed = await t.call('GET', hooksPath(t));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [record, { ...record, ...stripSecret(defaults) }] });

    t.clock.advance(1000);
    const T1 = '2026-01-01T00:00:01.000Z';
    const u = await t.call('PATCH', '/webhooks/wh_0001', {
      body: { url: 'https://hooks.example.com/v2', events: [], description: null, enabled: false },
    });
    expect(u.status).toBe(200);
    const changed = { ...record, url: 'https://hooks.example.com/v2', events: [], description: null, enabled: false };
    expect(u.body).toEqual({ ...changed, updatedAt: T1 });
    expect((await t.call('GET', '/webhooks/wh_0001')).body).toEqual({ ...changed, updatedAt: T1 });
    // A change to nothing new changes nothing, and logs nothing.
    const same = await t.call('PATCH', '/webhooks/wh_0001', { body: { enabled: false } });
    expect(same.body).toEqual({ ...changed, updatedAt: T1 });

    const d = await t.call('DELETE', '/webhooks/wh_0001');
    expect(d.status).toBe(204);
    expect(d.body).toBeUndefined();
    expect((await t.call('GET', '/webhooks/wh_0001')).status).toBe(404);
    expect((await t.call('DELETE', '/webhooks/wh_0001')).status).toBe(404);
    expect((await t.call('GET', hooksPath(t))).body.data.map((w: any) => w.id)).toEqual(['wh_0002']);

    const logged = (await events(t)).filter((e) => e.type.startsWith('webhook.'));
    expect(logged.map((e) => [e.type, e.target, e.data])).toEqual([
      // The URLs' paths and queries masked (see the test below).
      ['webhook.deleted', { type: 'webhook', id: 'wh_0001' }, { url: 'https://hooks.example.com/***' }],
      [
        'webhook.updated',
        { type: 'webhook', id: 'wh_0001' },
        { url: 'https://hooks.example.com/***', events: [], description: null, enabled: false },
      ],
      [
        'webhook.created',
        { type: 'webhook', id: 'wh_0002' },
        { url: 'http://localhost:8080/***', events: [], enabled: true },
      ],
      [
        'webhook.created',
        { type: 'webhook', id: 'wh_0001' },
        { url: 'https://hooks.example.com/***', events: ['user.invited', 'user.updated'], enabled: true },
      ],
    ]);
  });

  it('shows a secret on create and rotate only: never in reads, updates, deliveries, events', async () => {
    const t = await testPlatform();
    const first = await made(t, { url: 'https://hooks.example.com/a' });
    const rotated = await t.call('POST', `/webhooks/${first.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(first.secret);
    const secrets = [first.secret, rotated.body.secret];
    await invite(t, 'ann@acme.test');
    await t.call('POST', `/webhooks/${first.id}/test`);
    const seen = [
      await t.call('GET', `/webhooks/${first.id}`),
      await t.call('GET', hooksPath(t)),
      await t.call('PATCH', `/webhooks/${first.id}`, { body: { description: 'changed' } }),
      await t.call('GET', `/webhooks/${first.id}/deliveries`),
      await t.call('GET', `/organizations/${t.orgId}/events?limit=100`),
    ];
    for (const r of seen) {
      expect(r.status).toBe(200);
      const text = JSON.stringify(r.body);
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('"secret"');
      for (const s of secrets) expect(text).not.toContain(s.slice(6));
    }
    expect((await events(t)).map((e) => e.type)).toContain('webhook.secret_rotated');
    // Sealed at rest (they are read back to sign, so they are not hashes).
    const [row] = await dbRows<{ secret: string; previous_secret: string }>(
      t.platform,
      'SELECT secret, previous_secret FROM webhooks WHERE id = ?',
      first.id,
    );
    for (const s of secrets) expect(`${row?.secret} ${row?.previous_secret}`).not.toContain(s.slice(6));
  });
});

describe('an endpoint URL that carries a token', () => {
  it("is whole to the endpoint's readers only: events (the stream, deliveries) mask its path and query", async () => {
    const t = await testPlatform();
    // Slack and Discord keep their token in the path; others put it in the query.
    const slack = 'https://hooks.slack.com/services/T0PLAT/B0PLAT/pathTokenSecret1';
    const query = 'https://hooks.example.com/in?token=queryTokenSecret2';
    const w = await made(t, { url: slack });
    expect(w.url).toBe(slack);
    const u = await t.call('PATCH', `/webhooks/${w.id}`, { body: { url: query } });
    expect(u.body.url).toBe(query);
    // Back to a bare origin: nothing there to hide, so it is shown as it is.
    expect((await t.call('PATCH', `/webhooks/${w.id}`, { body: { url: 'https://hooks.example.com/' } })).status).toBe(
      200,
    );
    expect((await t.call('PATCH', `/webhooks/${w.id}`, { body: { url: query } })).status).toBe(200);
    expect((await t.call('GET', `/webhooks/${w.id}`)).body.url).toBe(query);
    expect((await t.call('DELETE', `/webhooks/${w.id}`)).status).toBe(204);

    const logged = (await events(t)).filter((e) => e.type.startsWith('webhook.'));
    expect(logged.map((e) => [e.type, e.data.url])).toEqual([
      ['webhook.deleted', 'https://hooks.example.com/***'],
      ['webhook.updated', 'https://hooks.example.com/***'],
      ['webhook.updated', 'https://hooks.example.com/'],
      ['webhook.updated', 'https://hooks.example.com/***'],
      ['webhook.created', 'https://hooks.slack.com/***'],
    ]);
    const text = JSON.stringify(logged);
    for (const secret of ['pathTokenSecret1', 'queryTokenSecret2', 'T0PLAT']) expect(text).not.toContain(secret);
  });
});

function stripSecret(w: Record<string, unknown>) {
  const { secret: _, ...rest } = w;
  return rest;
}

describe('what an endpoint may be', () => {
  it.each([
    ['not a URL', { url: 'not a url' }, 422, 'url'],
    ['ftp', { url: 'ftp://files.example.com/in' }, 422, 'url'],
    ['http to a public name', { url: 'http://hooks.example.com/in' }, 422, 'url'],
    ['http to a name that never resolves', { url: 'http://plat.test/in' }, 422, 'url'],
    ['http to a public address', { url: 'http://93.184.216.34/in' }, 422, 'url'],
    ['http to a private address', { url: 'http://10.1.2.3/in' }, 422, 'url'],
    ['http to the unspecified address', { url: 'http://0.0.0.0:8080/in' }, 422, 'url'],
    ['credentials', { url: 'https://user:pass@hooks.example.com/in' }, 422, 'url'],
    ['a user name alone', { url: 'https://user@hooks.example.com/in' }, 422, 'url'],
    ['an empty URL', { url: '' }, 422, 'url'],
    ['no URL', { events: [] }, 400, 'url'],
    ['a bad event type', { url: 'https://h.example.com/', events: ['User Created'] }, 422, 'events.0'],
    ['an event type of one word', { url: 'https://h.example.com/', events: ['user'] }, 422, 'events.0'],
    ['an unknown field', { url: 'https://h.example.com/', secret: 'whsec_mine' }, 422, 'secret'],
    ['enabled not a boolean', { url: 'https://h.example.com/', enabled: 'yes' }, 422, 'enabled'],
  ])('refuses %s with the envelope naming the field, and writes nothing', async (_, body, status, field) => {
    const t = await testPlatform();
    const before = await events(t);
    const r = await create(t, body);
    expect(r.status).toBe(status);
    const code = status === 400 ? 'invalid_request' : 'validation_error';
    expect(r.body).toEqual(envelope(status, code, [{ field, message: expect.any(String) }]));
    expect(await dbCount(t.platform, 'webhooks')).toBe(0);
    expect(await events(t)).toEqual(before);
  });

  it('refuses a body that is not JSON (400), and a bad URL on PATCH, changing nothing', async () => {
    const t = await testPlatform();
    const bad = await t.call('POST', hooksPath(t), {
      body: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(envelope(400, 'invalid_request'));
    const w = await made(t, { url: 'https://hooks.example.com/in' });
    const before = await events(t);
    for (const url of ['http://hooks.example.com/in', 'https://a:b@hooks.example.com/', 'gopher://x/']) {
      const r = await t.call('PATCH', `/webhooks/${w.id}`, { body: { url, description: 'x' } });
      expect(r.status).toBe(422);
      expect(r.body).toEqual(envelope(422, 'validation_error', [{ field: 'url', message: expect.any(String) }]));
    }
    expect((await t.call('GET', `/webhooks/${w.id}`)).body).toEqual(stripSecret(w));
    expect(await events(t)).toEqual(before);
  });

  it('takes https anywhere, and plain http to loopback addresses and localhost names', async () => {
    const t = await testPlatform();
    const urls = [
      ['https://10.0.0.1/in', 'https://10.0.0.1/in'],
      ['http://127.0.0.1:9000/in', 'http://127.0.0.1:9000/in'],
      ['http://127.8.9.10/in', 'http://127.8.9.10/in'],
      ['http://[::1]:9000/in', 'http://[::1]:9000/in'],
      ['http://LOCALHOST:9000/in', 'http://localhost:9000/in'],
      ['http://app.localhost/in', 'http://app.localhost/in'],
    ];
    for (const [given, stored] of urls) expect((await made(t, { url: given })).url).toBe(stored);
  });

  it('keeps at most 20 endpoints per organization (409), even when asked for 25 at once', async () => {
    const t = await testPlatform();
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => create(t, { url: `https://hooks.example.com/${i}` })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body).toEqual(envelope(409, 'conflict'));
    }
    expect(await dbCount(t.platform, 'webhooks')).toBe(20);
    expect((await events(t)).filter((e) => e.type === 'webhook.created')).toHaveLength(20);
    // Another organization has its own 20; one removed makes room for one more.
    const other = await t.otherOrg();
    expect(
      (await t.call('POST', hooksPath(t, other.orgId), { key: other.key, body: { url: 'https://o.example/' } })).status,
    ).toBe(201);
    expect((await create(t, { url: 'https://hooks.example.com/late' })).status).toBe(409);
    const one = answers.find((r) => r.status === 201)?.body.id;
    expect((await t.call('DELETE', `/webhooks/${one}`)).status).toBe(204);
    expect((await create(t, { url: 'https://hooks.example.com/late' })).status).toBe(201);
  });
});

describe('who may see and change endpoints', () => {
  type Call = readonly [method: string, path: string, body?: unknown];
  /** Every call of the webhooks API on one endpoint and one delivery. */
  function calls(t: TestPlatform, webhookId: string, deliveryId: string): { reads: Call[]; writes: Call[] } {
    return {
      reads: [
        ['GET', hooksPath(t)],
        ['GET', `/webhooks/${webhookId}`],
        ['GET', `/webhooks/${webhookId}/deliveries`],
      ],
      writes: [
        ['POST', hooksPath(t), { url: 'https://hooks.example.com/new' }],
        ['PATCH', `/webhooks/${webhookId}`, { description: 'x' }],
        ['POST', `/webhooks/${webhookId}/rotate-secret`],
        ['POST', `/webhooks/${webhookId}/test`],
        ['POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/retry`],
        ['DELETE', `/webhooks/${webhookId}`],
      ],
    };
  }

  it('refuses a member everything (403), and lets an admin in', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in' });
    const dlv = (await t.call('POST', `/webhooks/${w.id}/test`)).body.id;
    const member = await t.addUser({ email: 'mel@acme.test', role: 'member' });
    const { reads, writes } = calls(t, w.id, dlv);
    const before = await events(t);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await t.call(method, path, { key: member.key, body });
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expect(r.body).toEqual(envelope(403, 'insufficient_permissions'));
    }
    expect(await events(t)).toEqual(before);
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await create(t, { url: 'https://hooks.example.com/admin' }, admin.key)).status).toBe(201);
    expect((await t.call('GET', `/webhooks/${w.id}/deliveries`, { key: admin.key })).status).toBe(200);
  });

  it('lets a key with webhooks:read read but not write; without it, an endpoint and none look the same', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in' });
    const dlv = (await t.call('POST', `/webhooks/${w.id}/test`)).body.id;
    const reader = await t.keyFor(t.ownerId, { permissions: ['webhooks:read'] });
    const { reads, writes } = calls(t, w.id, dlv);
    for (const [method, path] of reads) expect((await t.call(method, path, { key: reader })).status).toBe(200);
    for (const [method, path, body] of writes) {
      const r = await t.call(method, path, { key: reader, body });
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expect(r.body.error.message).toBe('this operation requires the webhooks:write permission');
    }
    expect((await t.call('GET', `/webhooks/${w.id}`)).body).toEqual(stripSecret(w));

    const blind = await t.keyFor(t.ownerId, { permissions: ['events:read', 'webhooks:write'] });
    const existing = await t.call('GET', `/webhooks/${w.id}`, { key: blind });
    const missing = await t.call('GET', '/webhooks/wh_9999', { key: blind });
    expect(existing.status).toBe(403);
    expect(missing.status).toBe(403);
    expect({ ...existing.body.error, requestId: null }).toEqual({ ...missing.body.error, requestId: null });
    expect(existing.body.error.message).toBe('this operation requires the webhooks:read permission');
  });

  it('refuses a key restricted to some projects any endpoint: it would get every project’s events', async () => {
    const t = await testPlatform();
    const p = await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Mine' } });
    const key = await t.keyFor(t.ownerId, {
      projectIds: [p.body.id],
      permissions: ['webhooks:read', 'webhooks:write'],
    });
    const r = await create(t, { url: 'https://hooks.example.com/in' }, key);
    expect(r.status).toBe(403);
    expect(r.body).toEqual(envelope(403, 'insufficient_permissions'));
    expect(await dbCount(t.platform, 'webhooks')).toBe(0);
  });

  it("answers 404 for another organization's endpoint and deliveries, whatever the call", async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const theirs = await t.call('POST', hooksPath(t, other.orgId), {
      key: other.key,
      body: { url: 'https://other.example.com/in' },
    });
    expect(theirs.status).toBe(201);
    const dlv = (await t.call('POST', `/webhooks/${theirs.body.id}/test`, { key: other.key })).body.id;
    const { reads, writes } = calls(t, theirs.body.id, dlv);
    for (const [method, path, body] of [...reads.slice(1), ...writes.slice(1)]) {
      const r = await t.call(method, path, { body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
      expect(r.body).toEqual(envelope(404, 'not_found'));
    }
    expect((await t.call('GET', hooksPath(t, other.orgId))).status).toBe(404);
    expect((await t.call('POST', hooksPath(t, other.orgId), { body: { url: 'https://x.example/' } })).status).toBe(404);
    // Ours, seen with their key, is just as absent.
    const ours = await made(t, { url: 'https://hooks.example.com/ours' });
    expect((await t.call('GET', `/webhooks/${ours.id}`, { key: other.key })).status).toBe(404);
    const after = await t.call('GET', `/webhooks/${theirs.body.id}`, { key: other.key });
    expect(after.body).toEqual(stripSecret(theirs.body));
    // Its own creation only: nothing of theirs.
    expect((await deliveries(t, ours.id)).map((d) => d.type)).toEqual(['webhook.created']);
  });
});

describe('deliveries made by events', () => {
  it('gives a write a pending delivery per enabled endpoint selecting its type, the event as body', async () => {
    const t = await testPlatform();
    const all = await made(t, { url: 'https://hooks.example.com/all' });
    const invited = await made(t, { url: 'https://hooks.example.com/invited', events: ['user.invited'] });
    const others = await made(t, { url: 'https://hooks.example.com/others', events: ['user.deleted', 'team.created'] });
    const off = await made(t, { url: 'https://hooks.example.com/off', enabled: false });
    const other = await t.otherOrg();
    await t.call('POST', hooksPath(t, other.orgId), { key: other.key, body: { url: 'https://other.example.com/' } });
    const before = await Promise.all([all, invited, others, off].map((w) => deliveries(t, w.id)));
    t.clock.advance(5000);
    await invite(t, 'ann@acme.test');
    // Another organization's event goes to its endpoints only.
    await t.call('POST', `/organizations/${other.orgId}/users`, { key: other.key, body: { email: 'z@other.test' } });
    const event = (await events(t)).find((e) => e.type === 'user.invited');
    const T5 = '2026-01-01T00:00:05.000Z';
    const made5 = (webhookId: string) => ({
      id: expect.stringMatching(/^dlv_/),
      webhookId,
      eventId: event.id,
      type: 'user.invited',
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: T5,
      createdAt: T5,
      deliveredAt: null,
    });
    const after = await Promise.all([all, invited, others, off].map((w) => deliveries(t, w.id)));
    expect(after[0]).toEqual([made5(all.id), ...(before[0] ?? [])]);
    expect(after[1]).toEqual([made5(invited.id), ...(before[1] ?? [])]);
    expect(after[2]).toEqual(before[2]);
    expect(after[3]).toEqual([]);
    // What each sends: the event's type and time, and the audit log's record of it.
    const claimed = (await claimDue(t)).filter((c) => c.eventId === event.id);
    expect(claimed.map((c) => c.webhook.id).sort()).toEqual([all.id, invited.id].sort());
    for (const c of claimed) {
      expect(JSON.parse(c.payload)).toEqual({ type: 'user.invited', timestamp: T5, data: event });
      expect(c.webhook.secrets).toEqual([c.webhook.id === all.id ? all.secret : invited.secret]);
    }
  });

  it('applies a change of events, or enabling, to the events recorded from then on', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.deleted'], enabled: false });
    await invite(t, 'ann@acme.test'); // disabled, and not selected
    t.clock.advance(1000);
    await t.call('PATCH', `/webhooks/${w.id}`, { body: { events: ['user.invited'], enabled: true } });
    t.clock.advance(1000);
    await invite(t, 'bob@acme.test');
    const got = await deliveries(t, w.id);
    expect(got.map((d) => [d.type, d.createdAt])).toEqual([['user.invited', '2026-01-01T00:00:02.000Z']]);
    await t.call('PATCH', `/webhooks/${w.id}`, { body: { enabled: false } });
    await invite(t, 'cyd@acme.test');
    // Disabled: nothing new; its pending delivery waits out of the queue (no time) until the endpoint is enabled.
    expect(await deliveries(t, w.id)).toEqual(got.map((d) => ({ ...d, nextAttemptAt: null })));
    t.clock.advance(1000);
    await t.call('PATCH', `/webhooks/${w.id}`, { body: { enabled: true } });
    const due = '2026-01-01T00:00:03.000Z';
    expect(await deliveries(t, w.id)).toEqual(got.map((d) => ({ ...d, nextAttemptAt: due })));
  });

  it('makes no delivery for a write rolled back: deliveries are in the event’s own transaction', async () => {
    const t = await testPlatform({
      wrapStores: (stores) => {
        const { events: log } = stores;
        const insert: typeof log.insert = async (e) => {
          await log.insert(e);
          if (e.type === 'user.invited') throw new PlatformError('conflict', 'planted: failed after logging');
        };
        return { ...stores, events: { ...log, insert } };
      },
    });
    const w = await made(t, { url: 'https://hooks.example.com/all' });
    const before = await dbCount(t.platform, 'webhook_deliveries');
    const r = await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'doomed@acme.test' } });
    expect(r.status).toBe(409);
    expect(await dbCount(t.platform, 'webhook_deliveries')).toBe(before);
    expect((await deliveries(t, w.id)).map((d) => d.type)).toEqual(['webhook.created']);
    expect((await events(t)).map((e) => e.type)).not.toContain('user.invited');
  });

  it('signs as Standard Webhooks do: the standardwebhooks package verifies, and signs alike', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    await invite(t, 'ann@acme.test');
    const [claimed] = await claimDue(t);
    if (!claimed) throw new Error('no delivery claimed');
    // Now, in seconds: the library refuses a timestamp more than 5 minutes from its clock.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = signedHeaders(claimed.webhook.secrets, claimed.eventId, at.getTime() / 1000, claimed.payload);
    expect(headers['webhook-id']).toMatch(/^evt_/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const lib = new Webhook(w.secret);
    expect(lib.verify(claimed.payload, headers)).toEqual(JSON.parse(claimed.payload));
    expect(lib.sign(claimed.eventId, at, claimed.payload)).toBe(headers['webhook-signature']);
    expect(() => lib.verify(claimed.payload.replace('ann@', 'eve@'), headers)).toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(claimed.payload, headers),
    ).toThrow();
  });
});

describe('POST /webhooks/{webhookId}/rotate-secret', () => {
  it('signs with both secrets for 24 hours, each verifying on its own; then with the new one only', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    t.clock.advance(60_000);
    const r = await t.call('POST', `/webhooks/${w.id}/rotate-secret`);
    expect(r.status).toBe(200);
    const expires = '2026-01-02T00:01:00.000Z';
    expect(r.body).toEqual({
      ...stripSecret(w),
      previousSecretExpiresAt: expires,
      updatedAt: '2026-01-01T00:01:00.000Z',
      secret: expect.stringMatching(SECRET),
    });
    expect((await t.call('GET', `/webhooks/${w.id}`)).body.previousSecretExpiresAt).toBe(expires);
    const [rotated] = (await events(t)).filter((e) => e.type === 'webhook.secret_rotated');
    expect(rotated.data).toEqual({ previousSecretExpiresAt: expires });

    const old = new Webhook(w.secret);
    const fresh = new Webhook(r.body.secret);
    const stranger = new Webhook(`whsec_${Buffer.alloc(24, 9).toString('base64')}`);
    const signedNow = async () => {
      const [c] = await claimDue(t);
      if (!c) throw new Error('no delivery claimed');
      const headers = signedHeaders(c.webhook.secrets, c.eventId, Math.floor(Date.now() / 1000), c.payload);
      const [first, second] = String(headers['webhook-signature']).split(' ');
      const one = (sig: string | undefined) => ({ ...headers, 'webhook-signature': sig ?? '' });
      return { c, headers, first, second, one };
    };

    t.clock.advance(DAY - 1); // a millisecond before the old secret's end
    await invite(t, 'ann@acme.test');
    const during = await signedNow();
    expect(during.c.webhook.secrets).toEqual([r.body.secret, w.secret]);
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(fresh.verify(during.c.payload, during.one(during.first))).toBeTruthy();
    expect(old.verify(during.c.payload, during.one(during.second))).toBeTruthy();
    expect(() => old.verify(during.c.payload, during.one(during.first))).toThrow();
    expect(old.verify(during.c.payload, during.headers)).toBeTruthy();
    expect(fresh.verify(during.c.payload, during.headers)).toBeTruthy();
    expect(() => stranger.verify(during.c.payload, during.headers)).toThrow();

    t.clock.advance(1); // the old secret's end
    await invite(t, 'bob@acme.test');
    const after = await signedNow();
    expect(after.c.webhook.secrets).toEqual([r.body.secret]);
    expect(after.second).toBeUndefined();
    expect(fresh.verify(after.c.payload, after.headers)).toBeTruthy();
    expect(() => old.verify(after.c.payload, after.headers)).toThrow();
  });

  it('ends the oldest secret at once when rotated again within the 24 hours', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    const second = (await t.call('POST', `/webhooks/${w.id}/rotate-secret`)).body;
    t.clock.advance(3600_000);
    const third = await t.call('POST', `/webhooks/${w.id}/rotate-secret`);
    expect(third.body.previousSecretExpiresAt).toBe('2026-01-02T01:00:00.000Z');
    await invite(t, 'ann@acme.test');
    const [c] = await claimDue(t);
    expect(c?.webhook.secrets).toEqual([third.body.secret, second.secret]);
    expect(c?.webhook.secrets).not.toContain(w.secret);
  });

  it('signs plat serve’s real deliveries as standardwebhooks verifies, with both secrets in rotation', async () => {
    const receiver = await startReceiver();
    const { db, secretKey } = await testDatabase();
    const server = await startServer({
      db,
      secretKey,
      port: 0,
      logger: () => {},
      limits: { enabled: false },
      webhooks: { pollMs: 20 },
    });
    try {
      const { organizationId, apiKey } = await bootstrap(baseOf(server.platform), {
        orgName: 'Acme',
        email: 'owner@acme.test',
        name: 'Olive Owner',
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${server.url}/v2${path}`, {
          method,
          headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const w = await call('POST', `/organizations/${organizationId}/webhooks`, {
        url: receiver.url,
        events: ['user.invited'],
      });
      expect(w.status).toBe(201);
      await call('POST', `/organizations/${organizationId}/users`, { email: 'ann@acme.test' });
      const [first] = await receiver.waitFor(1);
      if (!first) throw new Error('nothing received');
      const logged = (await call('GET', `/organizations/${organizationId}/events?type=user.invited`)).body.data;
      expect(first.method).toBe('POST');
      expect(first.headers['content-type']).toBe('application/json');
      expect(first.headers['webhook-id']).toBe(logged[0].id);
      const verified = new Webhook(w.body.secret).verify(first.body, first.headers as Record<string, string>);
      expect(verified).toEqual({ type: 'user.invited', timestamp: logged[0].createdAt, data: logged[0] });

      const rotated = await call('POST', `/webhooks/${w.body.id}/rotate-secret`);
      await call('POST', `/organizations/${organizationId}/users`, { email: 'bob@acme.test' });
      const [, second] = await receiver.waitFor(2);
      if (!second) throw new Error('nothing received');
      const signatures = String(second.headers['webhook-signature']).split(' ');
      expect(signatures).toHaveLength(2);
      const only = (sig: string | undefined) => ({
        ...(second.headers as Record<string, string>),
        'webhook-signature': sig ?? '',
      });
      expect(new Webhook(rotated.body.secret).verify(second.body, only(signatures[0]))).toMatchObject({
        type: 'user.invited',
      });
      expect(new Webhook(w.body.secret).verify(second.body, only(signatures[1]))).toMatchObject({
        type: 'user.invited',
      });
      // Recorded as delivered, with the endpoint's status.
      let list: any[] = [];
      for (let i = 0; i < 200; i++) {
        list = (await call('GET', `/webhooks/${w.body.id}/deliveries?status=delivered`)).body.data;
        if (list.length === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(list.map((d) => [d.status, d.attempts, d.lastStatusCode, d.nextAttemptAt])).toEqual([
        ['delivered', 1, 200, null],
        ['delivered', 1, 200, null],
      ]);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});

describe('POST /webhooks/{webhookId}/test', () => {
  it('answers 202 with a pending webhook.test delivery to this endpoint only, logged nowhere', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.deleted'] });
    const bystander = await made(t, { url: 'https://hooks.example.com/all' });
    const logBefore = await events(t);
    const bystanderBefore = await deliveries(t, bystander.id);
    t.clock.advance(2000);
    const T2 = '2026-01-01T00:00:02.000Z';
    const r = await t.call('POST', `/webhooks/${w.id}/test`);
    expect(r.status).toBe(202);
    const delivery = {
      id: expect.stringMatching(/^dlv_/),
      webhookId: w.id,
      eventId: expect.stringMatching(/^evt_/),
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: T2,
      createdAt: T2,
      deliveredAt: null,
    };
    expect(r.body).toEqual(delivery);
    expect(await deliveries(t, w.id)).toEqual([r.body]);
    expect(await deliveries(t, bystander.id)).toEqual(bystanderBefore);
    expect(await events(t)).toEqual(logBefore);
    expect(await dbCount(t.platform, 'events', 'WHERE id = ?', r.body.eventId)).toBe(0);
    const [claimed] = (await claimDue(t)).filter((c) => c.id === r.body.id);
    expect(JSON.parse(claimed?.payload ?? 'null')).toEqual({
      type: 'webhook.test',
      timestamp: T2,
      data: {
        id: r.body.eventId,
        type: 'webhook.test',
        organizationId: t.orgId,
        actor: { type: 'api_key', id: 'key_0001' },
        target: { type: 'webhook', id: w.id },
        requestId: r.headers.get('x-request-id'),
        createdAt: T2,
        data: expect.any(Object),
      },
    });
  });
});

describe('GET /webhooks/{webhookId}/deliveries', () => {
  /** An endpoint for user.updated and `n` renames a second apart: `n` deliveries, oldest first. */
  async function renamed(t: TestPlatform, n: number) {
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.updated'] });
    const { userId } = await t.addUser({ email: 'max@acme.test' });
    for (let i = 1; i <= n; i++) {
      t.clock.advance(1000);
      expect((await t.call('PATCH', `/users/${userId}`, { body: { name: `Name ${i}` } })).status).toBe(200);
    }
    const ids = (await events(t)).filter((e) => e.type === 'user.updated').map((e) => e.id);
    return { w, eventIds: ids.reverse() };
  }

  it('pages newest first with limit and cursor', async () => {
    const t = await testPlatform();
    const { w, eventIds } = await renamed(t, 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const q: string = cursor ? `limit=2&cursor=${encodeURIComponent(cursor)}` : 'limit=2';
      const r = await t.call('GET', `/webhooks/${w.id}/deliveries?${q}`);
      expect(r.status).toBe(200);
      pages.push(r.body.data.length);
      seen.push(...r.body.data.map((d: any) => d.eventId));
      expect(Object.keys(r.body.pagination).sort()).toEqual(['hasMore', 'limit', 'nextCursor']);
      expect(r.body.pagination.limit).toBe(2);
      expect(r.body.pagination.hasMore).toBe(r.body.pagination.nextCursor !== null);
      cursor = r.body.pagination.nextCursor;
    } while (cursor);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual([...eventIds].reverse());
    const first = await t.call('GET', `/webhooks/${w.id}/deliveries`);
    expect(first.body.pagination).toEqual({ limit: 20, nextCursor: null, hasMore: false });
    const bad = await t.call('GET', `/webhooks/${w.id}/deliveries?limit=101`);
    expect(bad.status).toBe(400);
    expect((await t.call('GET', `/webhooks/${w.id}/deliveries?status=lost`)).status).toBe(400);
    expect((await t.call('GET', '/webhooks/wh_9999/deliveries')).status).toBe(404);
  });

  it('filters by status, and refuses a cursor of another filter', async () => {
    const t = await testPlatform();
    const { w, eventIds } = await renamed(t, 5);
    const now = t.clock().toISOString();
    const claimed = await claimDue(t);
    const byEvent = (id: string | undefined) => claimed.find((c) => c.eventId === id) as (typeof claimed)[number];
    const report = { owner: 'test-sender', webhookId: w.id, now };
    const store = baseOf(t.platform).stores.webhooks;
    await store.delivered({ ...report, ...claimOf(byEvent(eventIds[0])), statusCode: 204 });
    await store.failed({
      ...report,
      ...claimOf(byEvent(eventIds[1])),
      at: null,
      statusCode: 500,
      error: 'answered 500',
    });
    const later = '2026-01-01T01:00:00.000Z';
    await store.failed({ ...report, ...claimOf(byEvent(eventIds[2])), at: later, statusCode: null, error: 'refused' });
    const line = (d: any) => [d.eventId, d.status, d.attempts, d.lastStatusCode, d.lastError, d.nextAttemptAt];
    expect((await deliveries(t, w.id, '&status=delivered')).map(line)).toEqual([
      [eventIds[0], 'delivered', 1, 204, null, null],
    ]);
    expect((await deliveries(t, w.id, '&status=delivered'))[0].deliveredAt).toBe(now);
    expect((await deliveries(t, w.id, '&status=failed')).map(line)).toEqual([
      [eventIds[1], 'failed', 1, 500, 'answered 500', null],
    ]);
    expect((await deliveries(t, w.id, '&status=pending')).map(line)).toEqual([
      // Claimed and in flight: its lease's end is no scheduled attempt.
      [eventIds[4], 'pending', 1, null, null, null],
      [eventIds[3], 'pending', 1, null, null, null],
      [eventIds[2], 'pending', 1, null, 'refused', later],
    ]);
    const page = await t.call('GET', `/webhooks/${w.id}/deliveries?status=pending&limit=1`);
    const cursor = encodeURIComponent(page.body.pagination.nextCursor);
    const next = await t.call('GET', `/webhooks/${w.id}/deliveries?status=pending&limit=1&cursor=${cursor}`);
    expect(next.body.data.map((d: any) => d.eventId)).toEqual([eventIds[3]]);
    const mixed = await t.call('GET', `/webhooks/${w.id}/deliveries?status=failed&limit=1&cursor=${cursor}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body).toEqual(envelope(400, 'invalid_request', [{ field: 'status', message: expect.any(String) }]));
  });
});

describe('POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry', () => {
  it('never sends an attempt in flight twice: 409 while a sender holds it, 202 once its lease is over', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    await invite(t, 'a@acme.test');
    const now = t.clock();
    const [held] = await baseOf(t.platform).stores.webhooks.claim({
      owner: 'a-sender',
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit: 10,
    });
    if (!held) throw new Error('a delivery expected');
    const inFlight = await t.call('POST', `/webhooks/${w.id}/deliveries/${held.id}/retry`);
    expect(inFlight.status).toBe(409);
    expect(inFlight.body.error.message).toMatch(/in flight/);
    // Nobody else may take it meanwhile: the endpoint's one attempt is the sender's.
    expect(await claimDue(t, 'another-sender')).toEqual([]);
    t.clock.advance(60_000); // the sender is gone: its lease is over
    const retried = await t.call('POST', `/webhooks/${w.id}/deliveries/${held.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: t.clock().toISOString() });
  });

  it('refuses a test event to a disabled endpoint (409): it could not be sent', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', enabled: false });
    const r = await t.call('POST', `/webhooks/${w.id}/test`);
    expect(r.status).toBe(409);
    expect(await deliveries(t, w.id)).toEqual([]);
  });

  it('makes a pending or failed delivery due now (202); delivered, or endpoint disabled: 409', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    const w2 = await made(t, { url: 'https://hooks.example.com/two', events: ['user.invited'] });
    for (const email of ['a@acme.test', 'b@acme.test', 'c@acme.test']) await invite(t, email);
    const claimed = (await claimDue(t)).filter((c) => c.webhook.id === w.id);
    const [ok, bad, later] = claimed;
    if (!ok || !bad || !later) throw new Error('three deliveries expected');
    const store = baseOf(t.platform).stores.webhooks;
    const report = { owner: 'test-sender', webhookId: w.id, now: t.clock().toISOString() };
    await store.delivered({ ...report, ...claimOf(ok), statusCode: 200 });
    await store.failed({ ...report, ...claimOf(bad), at: null, statusCode: 503, error: 'answered 503' });
    await store.failed({ ...report, ...claimOf(later), at: '2026-01-01T05:00:00.000Z', statusCode: 500, error: 'x' });
    t.clock.advance(7000);
    const T7 = '2026-01-01T00:00:07.000Z';
    const retry = (id: string, webhookId = w.id) => t.call('POST', `/webhooks/${webhookId}/deliveries/${id}/retry`);

    const delivered = await retry(ok.id);
    expect(delivered.status).toBe(409);
    expect(delivered.body).toEqual(envelope(409, 'conflict'));
    const failed = await retry(bad.id);
    expect(failed.status).toBe(202);
    expect(failed.body).toMatchObject({ id: bad.id, status: 'pending', attempts: 1, nextAttemptAt: T7 });
    const pending = await retry(later.id);
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ id: later.id, status: 'pending', nextAttemptAt: T7 });
    // Due now: a server claims both at once, as second attempts.
    const again = (await claimDue(t)).filter((c) => c.webhook.id === w.id);
    expect(again.map((c) => [c.id, c.attempt]).sort()).toEqual(
      [
        [bad.id, 2],
        [later.id, 2],
      ].sort(),
    );
    const logged = (await events(t)).filter((e) => e.type === 'webhook.delivery_retried');
    expect(logged.map((e) => e.data.deliveryId).sort()).toEqual([bad.id, later.id].sort());

    expect((await retry('dlv_missing')).status).toBe(404);
    expect((await retry(bad.id, w2.id)).status).toBe(404);
    expect((await t.call('PATCH', `/webhooks/${w.id}`, { body: { enabled: false } })).status).toBe(200);
    const disabled = await retry(later.id);
    expect(disabled.status).toBe(409);
    expect(disabled.body).toEqual(envelope(409, 'conflict'));
  });
});

describe("an endpoint's turn: one attempt in flight at a time", () => {
  it('an attempt that outlived its lease, reported after the delivery was claimed again, strands no turn', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    await invite(t, 'a@acme.test');
    const store = baseOf(t.platform).stores.webhooks;
    const claim = (owner: string) => {
      const now = t.clock();
      const leaseUntil = new Date(now.getTime() + 60_000).toISOString();
      return store.claim({ owner, now: now.toISOString(), leaseUntil, limit: 10 });
    };
    const [slow] = await claim('slow-sender');
    if (!slow) throw new Error('a delivery expected');
    t.clock.advance(60_000); // the slow sender's lease is over, its attempt still in flight
    const [again] = await claim('other-sender');
    expect(again).toMatchObject({ id: slow.id, attempt: 2 });
    if (!again) throw new Error('the delivery claimed again expected');
    const report = { webhookId: w.id, now: t.clock().toISOString(), statusCode: 200 };
    // The slow attempt answers first: delivered (at least once), and the later claim still holds the endpoint.
    await store.delivered({ ...report, ...claimOf(slow), owner: 'slow-sender' });
    await invite(t, 'b@acme.test');
    expect(await claim('third-sender')).toEqual([]);
    // The later attempt's report ends its turn: the next delivery is due at once, not when that lease ends.
    await store.delivered({ ...report, ...claimOf(again), owner: 'other-sender' });
    expect(await claim('third-sender')).toMatchObject([{ attempt: 1 }]);
  });
});

describe('failing endpoints and removal', () => {
  it('clears the failing state when an endpoint the platform disabled is enabled again', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in', events: ['user.invited'] });
    await invite(t, 'ann@acme.test');
    const [c] = await claimDue(t);
    if (!c) throw new Error('no delivery claimed');
    const store = baseOf(t.platform).stores.webhooks;
    const since = t.clock().toISOString();
    await store.failed({
      ...claimOf(c),
      owner: 'test-sender',
      webhookId: w.id,
      now: since,
      at: null,
      statusCode: 500,
      error: 'x',
    });
    expect((await t.call('GET', `/webhooks/${w.id}`)).body).toMatchObject({ enabled: true, failingSince: since });
    t.clock.advance(5 * DAY);
    const now = t.clock().toISOString();
    expect(await store.disableFailing(w.id, now, now, 'every attempt failed')).toBe(true);
    expect((await t.call('GET', `/webhooks/${w.id}`)).body).toMatchObject({
      enabled: false,
      disabledReason: 'every attempt failed',
      failingSince: since,
    });
    t.clock.advance(1000);
    const r = await t.call('PATCH', `/webhooks/${w.id}`, { body: { enabled: true } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    expect((await t.call('GET', `/webhooks/${w.id}`)).body).toEqual(r.body);
    // Disabled by hand: no reason of the platform's.
    const off = await t.call('PATCH', `/webhooks/${w.id}`, { body: { enabled: false } });
    expect(off.body).toMatchObject({ enabled: false, disabledReason: null });
  });

  it('removes an endpoint with its deliveries', async () => {
    const t = await testPlatform();
    const w = await made(t, { url: 'https://hooks.example.com/in' });
    const kept = await made(t, { url: 'https://hooks.example.com/kept' });
    await invite(t, 'ann@acme.test');
    await t.call('POST', `/webhooks/${w.id}/test`);
    expect(await dbCount(t.platform, 'webhook_deliveries', 'WHERE webhook_id = ?', w.id)).toBe(4);
    const keptBefore = await deliveries(t, kept.id);
    t.clock.advance(1000);
    expect((await t.call('DELETE', `/webhooks/${w.id}`)).status).toBe(204);
    expect(await dbCount(t.platform, 'webhook_deliveries', 'WHERE webhook_id = ?', w.id)).toBe(0);
    expect((await t.call('GET', `/webhooks/${w.id}/deliveries`)).status).toBe(404);
    // The other endpoint keeps its own, and hears of the removal.
    expect((await deliveries(t, kept.id)).map((d) => d.type)).toEqual([
      'webhook.deleted',
      ...keptBefore.map((d) => d.type),
    ]);
    await invite(t, 'bob@acme.test');
    expect(await dbCount(t.platform, 'webhook_deliveries', 'WHERE webhook_id = ?', w.id)).toBe(0);
  });
});
