import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RETRY_SCHEDULE_MS } from '../../src/contract/webhooks.js';
import { type Clock, fixedClock } from '../../src/platform/clock.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import type { WebhookDeliveryOptions } from '../../src/platform/webhooks/delivery.js';
import { BACKEND, testDatabase } from '../helpers/backend.js';
import { dbRows, dbRun } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { type CallOptions, type Reply, send } from '../helpers/platform.js';
import { freePort } from '../helpers/ports.js';
import { eventually } from '../helpers/smtp-peer.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

// Delivery of webhooks by the server (docs/webhooks.md, "Delivery"): real receivers on loopback, the server's own
// worker, and what it records. Names resolving to a private address need a resolver that says so: `node:dns` answers
// for two test names below, and asks the system for any other.

/** Test names and what they resolve to; a name that changes its answer between the check and the connection. */
const NAMES: Record<string, string> = {
  'private.webhook.test': '0.0.0.0',
  'loopback.webhook.test': '127.0.0.1',
  'rebinding.webhook.test': '192.0.2.1',
};
const FIRST_ANSWER: Record<string, string> = { 'rebinding.webhook.test': '127.0.0.1' };

vi.mock('node:dns', async (original) => {
  const dns = await original<typeof import('node:dns')>();
  const lookup = (host: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const address = NAMES[host];
    if (address === undefined) return (dns.lookup as (...args: unknown[]) => void)(host, options, callback);
    const all = typeof options === 'object' && (options as { all?: boolean } | null)?.all;
    return all
      ? process.nextTick(callback, null, [{ address, family: 4 }])
      : process.nextTick(callback, null, address, 4);
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});
vi.mock('node:dns/promises', async (original) => {
  const dns = await original<typeof import('node:dns/promises')>();
  const lookup = async (host: string, options?: { all?: boolean }) => {
    const address = FIRST_ANSWER[host] ?? NAMES[host];
    if (address === undefined) return dns.lookup(host, options as never);
    return options?.all ? [{ address, family: 4 }] : { address, family: 4 };
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const T0 = '2026-01-01T00:00:00.000Z';

/** A `plat serve` listener in this process, with its organization's owner key and its log lines. */
interface Served {
  server: RunningServer;
  db: string;
  log: string[];
  orgId: string;
  key: string;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
}

/**
 * Starts a server delivering webhooks as `webhooks` says, on a database of its own (in memory on SQLite), or on
 * `share`'s; its platform's organization is made unless it shares one.
 */
async function serve(
  webhooks: WebhookDeliveryOptions | false,
  o: { clock?: Clock; share?: Served; file?: boolean } = {},
): Promise<Served> {
  let sqlite = ':memory:';
  if (o.file) {
    const dir = mkdtempSync(join(tmpdir(), 'plat-webhooks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    sqlite = join(dir, 'platform.db');
  }
  const { db, secretKey } = await testDatabase(o.share?.db ?? sqlite);
  const log: string[] = [];
  const server = await startServer({
    db,
    secretKey,
    port: 0,
    clock: o.clock,
    publicUrl: 'http://plat.test',
    logger: (line) => log.push(line),
    limits: { enabled: false },
    webhooks,
  });
  cleanups.push(() => server.close());
  let owner = o.share && { orgId: o.share.orgId, key: o.share.key };
  if (!owner) {
    const made = await bootstrap(baseOf(server.platform), { orgName: 'Acme', email: 'owner@acme.test', name: 'O' });
    owner = { orgId: made.organizationId, key: made.apiKey as string };
  }
  const { orgId, key } = owner;
  return { server, db, log, orgId, key, call: (m, p, opts) => send(fetch, server.url, key, m, p, opts) };
}

async function receiver(opts: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const r = await startReceiver(opts);
  cleanups.push(() => r.close());
  return r;
}

/** Makes an endpoint through the API: its id and secret. */
async function endpoint(s: Served, url: string, events = ['user.invited']): Promise<{ id: string; secret: string }> {
  const r = await s.call('POST', `/organizations/${s.orgId}/webhooks`, { body: { url, events } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, secret: r.body.secret };
}

/** An event the endpoints select: an invitation (`user.invited`). */
async function invite(s: Served, email: string): Promise<void> {
  const r = await s.call('POST', `/organizations/${s.orgId}/users`, { body: { email } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

async function deliveries(s: Served, webhookId: string): Promise<any[]> {
  const r = await s.call('GET', `/webhooks/${webhookId}/deliveries?limit=100`);
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Waits for the endpoint's deliveries to satisfy `check`, and answers them. */
async function deliveriesWhen(s: Served, webhookId: string, what: string, check: (d: any[]) => boolean) {
  let last: any[] = [];
  const read = async () => {
    last = await deliveries(s, webhookId);
    return check(last);
  };
  await eventually(what, read).catch((err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(last)}`);
  });
  return last;
}

async function events(s: Served, type: string): Promise<any[]> {
  const r = await s.call('GET', `/organizations/${s.orgId}/events?limit=100`);
  expect(r.status).toBe(200);
  return r.body.data.filter((e: { type: string }) => e.type === type);
}

const header = (got: ReceivedRequest, name: string) => got.headers[name] as string;

/** The headers Standard Webhooks' library reads. */
const signed = (got: ReceivedRequest) => ({
  'webhook-id': header(got, 'webhook-id'),
  'webhook-timestamp': header(got, 'webhook-timestamp'),
  'webhook-signature': header(got, 'webhook-signature'),
});

/**
 * Whether the request carries `secret`'s signature, checked with Standard Webhooks' own signing (whatever the
 * timestamp: a test clock's is not today's, which `verify` would refuse as stale).
 */
function signedWith(got: ReceivedRequest, secret: string): boolean {
  const at = new Date(Number(header(got, 'webhook-timestamp')) * 1000);
  const expected = new Webhook(secret).sign(header(got, 'webhook-id'), at, got.body);
  return header(got, 'webhook-signature').split(' ').includes(expected);
}

describe('webhook delivery by the server', () => {
  it('POSTs each selected event once, signed as Standard Webhooks verify, webhook-id being the event id', async () => {
    const r = await receiver();
    const s = await serve({ pollMs: 20 });
    const hook = await endpoint(s, r.url);
    const other = await endpoint(s, r.url, ['user.deleted']);
    await invite(s, 'ada@example.test');
    await invite(s, 'bob@example.test');
    const done = await deliveriesWhen(s, hook.id, 'both delivered', (d) => d.every((x) => x.status === 'delivered'));
    expect(done).toHaveLength(2);
    for (const d of done) {
      expect(d).toMatchObject({
        webhookId: hook.id,
        type: 'user.invited',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
      });
    }
    expect(await deliveries(s, other.id)).toEqual([]);
    const got = await r.waitFor(2);
    expect(got).toHaveLength(2);
    const invited = await events(s, 'user.invited');
    expect(got.map((g) => header(g, 'webhook-id')).sort()).toEqual(invited.map((e) => e.id).sort());
    expect(done.map((d) => d.eventId).sort()).toEqual(invited.map((e) => e.id).sort());
    for (const g of got) {
      expect(g.method).toBe('POST');
      expect(g.path).toBe('/hook');
      expect(g.headers['content-type']).toBe('application/json');
      expect(g.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const payload = new Webhook(hook.secret).verify(g.body, signed(g));
      const event = invited.find((e) => e.id === header(g, 'webhook-id'));
      expect(payload).toEqual({ type: 'user.invited', timestamp: event.createdAt, data: event });
      expect(() => new Webhook(other.secret).verify(g.body, signed(g))).toThrow();
    }
  });

  it('signs with both secrets while a rotated-out one still signs, space-separated', async () => {
    const r = await receiver();
    const s = await serve({ pollMs: 20 });
    const hook = await endpoint(s, r.url);
    const rotated = await s.call('POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    await invite(s, 'ada@example.test');
    const [got] = await r.waitFor(1);
    const g = got as ReceivedRequest;
    expect(header(g, 'webhook-signature').split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.body.secret).verify(g.body, signed(g))).toMatchObject({ type: 'user.invited' });
    expect(new Webhook(hook.secret).verify(g.body, signed(g))).toMatchObject({ type: 'user.invited' });
  });

  it("retries on Standard Webhooks' schedule, the same webhook-id each time, then records it failed", async () => {
    const clock = fixedClock(T0);
    const r = await receiver({ status: 500 });
    const s = await serve({ pollMs: 10 }, { clock });
    const hook = await endpoint(s, r.url);
    await invite(s, 'ada@example.test');
    let due = Date.parse(T0);
    for (const [i, wait] of RETRY_SCHEDULE_MS.entries()) {
      // Each attempt at the clock's time, then due after the schedule's next wait — and not before.
      due += wait;
      const invited = (all: any[]) => all.find((x) => x.type === 'user.invited');
      const d = invited(
        await deliveriesWhen(s, hook.id, `attempt ${i + 1} recorded`, (all) => {
          const x = invited(all);
          return x?.attempts === i + 1 && x.nextAttemptAt !== null;
        }),
      );
      expect(d).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'answered 500' });
      expect(d.nextAttemptAt).toBe(new Date(due).toISOString());
      clock.advance(wait - 1);
      // A delivery due now is sent meanwhile (the worker went past the one not yet due), and that one waits.
      const test = await s.call('POST', `/webhooks/${hook.id}/test`);
      expect(test.status).toBe(202);
      await deliveriesWhen(s, hook.id, 'the test event sent', (all) =>
        all.some((x) => x.id === test.body.id && x.attempts === 1 && x.lastStatusCode === 500),
      );
      expect((await deliveries(s, hook.id)).find((x) => x.id === d.id)).toMatchObject({ attempts: i + 1 });
      clock.advance(1);
    }
    const [last] = await deliveriesWhen(s, hook.id, 'the last attempt', (all) =>
      all.some((x) => x.type === 'user.invited' && x.status === 'failed'),
    ).then((all) => all.filter((x) => x.type === 'user.invited'));
    expect(last).toMatchObject({ status: 'failed', attempts: 8, lastStatusCode: 500, nextAttemptAt: null });
    const attempts = r.received.filter((g) => JSON.parse(g.body).type === 'user.invited');
    expect(attempts).toHaveLength(8);
    expect(new Set(attempts.map((g) => header(g, 'webhook-id')))).toEqual(new Set([last.eventId]));
    expect(attempts.every((g) => signedWith(g, hook.secret))).toBe(true);
    expect((await s.call('GET', `/webhooks/${hook.id}`)).body).toMatchObject({ enabled: true, failingSince: T0 });
  });

  it('follows a shortened schedule: 500, 500, 200 delivers; 500 every time fails after the last wait', async () => {
    const twice = await receiver({ status: (n) => (n <= 2 ? 500 : 200) });
    const never = await receiver({ status: 500 });
    const s = await serve({ pollMs: 10, schedule: [20, 20] });
    const a = await endpoint(s, twice.url);
    const b = await endpoint(s, never.url);
    await invite(s, 'ada@example.test');
    const [ok] = await deliveriesWhen(s, a.id, 'delivered', ([d]) => d?.status === 'delivered');
    expect(ok).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    const [failed] = await deliveriesWhen(s, b.id, 'failed', ([d]) => d?.status === 'failed');
    expect(failed).toMatchObject({ attempts: 3, lastStatusCode: 500, lastError: 'answered 500', nextAttemptAt: null });
    for (const [r, d] of [
      [twice, ok],
      [never, failed],
    ] as const) {
      expect(r.received.map((g) => header(g, 'webhook-id'))).toEqual([d.eventId, d.eventId, d.eventId]);
    }
  });

  it('gives up on an endpoint that does not answer within the time limit, and tries again', async () => {
    const r = await receiver({ hang: true });
    const s = await serve({ pollMs: 10, timeoutMs: 200, schedule: [20] });
    const hook = await endpoint(s, r.url);
    await invite(s, 'ada@example.test');
    const [d] = await deliveriesWhen(s, hook.id, 'failed', ([x]) => x?.status === 'failed');
    expect(d).toMatchObject({ attempts: 2, lastStatusCode: null, lastError: 'no answer within 0.2 s' });
    expect(r.received.map((g) => header(g, 'webhook-id'))).toEqual([d.eventId, d.eventId]);
    // The URL's path masked, as in the events (a URL may carry a token).
    const to = r.url.replace(/\/hook$/, '/***');
    const line = `webhook delivery ${d.id} (${d.eventId}) to ${to}: attempt 2 failed (${d.lastError}); given up`;
    await eventually('logged', () => s.log.includes(line));
  });

  it('holds a claim for as long as an attempt may take, however short the lease asked for', async () => {
    const r = await receiver({ hang: true });
    const s = await serve({ pollMs: 5, timeoutMs: 300, leaseMs: 1, schedule: [] });
    const hook = await endpoint(s, r.url);
    await invite(s, 'ada@example.test');
    const [d] = await deliveriesWhen(s, hook.id, 'failed', ([x]) => x?.status === 'failed');
    // One attempt, sent once: no claim of it ended while it was in flight.
    expect(d).toMatchObject({ attempts: 1, lastError: 'no answer within 0.3 s' });
    expect(r.received).toHaveLength(1);
  });

  it('retries an endpoint that refuses the connection, recording why, and delivers once it has one', async () => {
    const clock = fixedClock(T0);
    const down = `http://127.0.0.1:${await freePort()}/hook`;
    const s = await serve({ pollMs: 10 }, { clock });
    const hook = await endpoint(s, down);
    await invite(s, 'ada@example.test');
    const [d] = await deliveriesWhen(s, hook.id, 'attempt 1', ([x]) => x?.attempts === 1 && x.lastError !== null);
    expect(d).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: 'could not be reached (ECONNREFUSED)',
    });
    expect(d.nextAttemptAt).toBe('2026-01-01T00:00:05.000Z');
    // The endpoint moves to a receiver that is up: the next attempt goes there, with the same webhook-id.
    const r = await receiver();
    expect((await s.call('PATCH', `/webhooks/${hook.id}`, { body: { url: r.url } })).status).toBe(200);
    clock.advance(5000);
    const [ok] = await deliveriesWhen(s, hook.id, 'delivered', ([x]) => x?.status === 'delivered');
    expect(ok).toMatchObject({ attempts: 2, lastStatusCode: 200, lastError: null });
    expect(r.received.map((g) => header(g, 'webhook-id'))).toEqual([d.eventId]);
    expect((await s.call('GET', `/webhooks/${hook.id}`)).body).toMatchObject({ failingSince: null });
  });

  it('answers a write at once while the receiver holds an earlier delivery, the new one already queued', async () => {
    const r = await receiver({ hang: true });
    const s = await serve({ pollMs: 10, timeoutMs: 60_000, stopGraceMs: 50 });
    const hook = await endpoint(s, r.url);
    await invite(s, 'ada@example.test');
    const [held] = await r.waitFor(1);
    // The first delivery is in flight, unanswered: the next write returns, its delivery recorded with it.
    await invite(s, 'bob@example.test');
    const now = await deliveries(s, hook.id);
    expect(now).toHaveLength(2);
    const bob = (await events(s, 'user.invited')).find((e) => e.data.email === 'bob@example.test');
    expect(now.map((d) => d.eventId)).toContain(bob.id);
    expect(now.every((d) => d.status === 'pending')).toBe(true);
    expect(r.received[0]).toBe(held);
    expect(now.find((d) => d.eventId === header(held as ReceivedRequest, 'webhook-id'))).toMatchObject({
      attempts: 1,
      lastStatusCode: null,
      lastError: null,
    });
  });
});

describe('one endpoint at a time', () => {
  it('holds back a hanging endpoint’s own deliveries only: the others’ go on, each endpoint one attempt at once', async () => {
    const slow = await receiver({ hang: true });
    const fast = await receiver();
    // Two senders' worth of room: a hanging endpoint with many events waiting could fill both without a turn each.
    const s = await serve({ pollMs: 10, timeoutMs: 60_000, stopGraceMs: 50, concurrency: 2 });
    await endpoint(s, slow.url);
    const quick = await endpoint(s, fast.url);
    for (const email of ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `${n}@example.test`)) await invite(s, email);
    await fast.waitFor(6);
    await deliveriesWhen(
      s,
      quick.id,
      'all six delivered',
      (d) => d.filter((x) => x.status === 'delivered').length === 6,
    );
    // The hanging endpoint got its first attempt, and nothing more while that one is in flight.
    expect(slow.received).toHaveLength(1);
  });
});

describe('disabling an endpoint that keeps failing', () => {
  it('disables it once after 5 days of failures, with webhook.disabled and why; others keep receiving', async () => {
    const clock = fixedClock(T0);
    const failing = await receiver({ status: 503 });
    const fine = await receiver();
    const s = await serve({ pollMs: 10 }, { clock });
    const bad = await endpoint(s, failing.url);
    const good = await endpoint(s, fine.url, ['user.invited', 'webhook.disabled']);
    // The clock moves only once every attempt so far is recorded: one in flight when it jumps past its lease would be
    // claimed and sent again, which this test does not count on.
    const delivered = (n: number) =>
      deliveriesWhen(
        s,
        good.id,
        `${n} delivered`,
        (all) => all.length === n && all.every((d) => d.status === 'delivered'),
      );
    // Recorded, not only claimed (`attempts` counts claims; a claimed delivery shows no nextAttemptAt): attempts 1 and
    // 2 fail with a retry scheduled, never given up (a given-up or parked delivery has no nextAttemptAt either).
    const recorded = (d: any) => d.attempts >= 1 && d.nextAttemptAt !== null;
    await invite(s, 'ada@example.test');
    await deliveriesWhen(s, bad.id, 'the first failure', ([d]) => d?.attempts === 1 && d.lastStatusCode === 503);
    await delivered(1);
    // The endpoint's failing state is written just after the delivery's (a statement of its own): waited for too.
    await eventually('failing', async () => (await s.call('GET', `/webhooks/${bad.id}`)).body.failingSince === T0);
    expect((await s.call('GET', `/webhooks/${bad.id}`)).body).toMatchObject({ enabled: true, failingSince: T0 });
    // Four days and more later, still failing: not yet.
    clock.advance(4 * 24 * 3600_000);
    await invite(s, 'bob@example.test');
    await deliveriesWhen(s, bad.id, 'bob failed', (all) => all.length === 2 && all.every(recorded));
    await delivered(2);
    expect((await s.call('GET', `/webhooks/${bad.id}`)).body).toMatchObject({ enabled: true, disabledReason: null });
    // Past 5 days since the first failure: the next failed attempts disable it, once.
    clock.advance(24 * 3600_000 + 1000);
    await invite(s, 'cy@example.test');
    await invite(s, 'di@example.test');
    await eventually('disabled', async () => (await s.call('GET', `/webhooks/${bad.id}`)).body.enabled === false);
    const record = (await s.call('GET', `/webhooks/${bad.id}`)).body;
    expect(record).toMatchObject({
      enabled: false,
      failingSince: T0,
      disabledReason: `every attempt failed since ${T0}`,
    });
    const disabled = await events(s, 'webhook.disabled');
    expect(disabled).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'webhooks' },
        target: { type: 'webhook', id: bad.id },
        data: {
          url: failing.url.replace(/\/hook$/, '/***'),
          reason: `every attempt failed since ${T0}`,
          failingSince: T0,
        },
      }),
    ]);
    await eventually('logged', () => s.log.includes(`webhook ${bad.id}: disabled, every attempt failed since ${T0}`));
    // The other endpoint got every invitation, and the news.
    await invite(s, 'ed@example.test');
    const got = await fine.waitFor(6);
    expect(got.map((g) => JSON.parse(g.body).type).sort()).toEqual([
      ...Array(5).fill('user.invited'),
      'webhook.disabled',
    ]);
    expect(JSON.parse(got.find((g) => JSON.parse(g.body).type === 'webhook.disabled')?.body ?? '').data.id).toBe(
      disabled[0].id,
    );
    // The disabled one is sent nothing more: no new delivery, no more attempts.
    const stale = await deliveries(s, bad.id);
    const ed = (await events(s, 'user.invited')).find((e) => e.data.email === 'ed@example.test');
    expect(stale.map((d) => d.eventId)).not.toContain(ed.id);
    const n = failing.received.length;
    await delivered(6);
    clock.advance(24 * 3600_000);
    const test = await s.call('POST', `/webhooks/${good.id}/test`);
    expect(test.status).toBe(202);
    await fine.waitFor(7);
    expect(failing.received.length).toBe(n);
    expect(await events(s, 'webhook.disabled')).toHaveLength(1);
  });
});

/** A TCP listener that counts the connections made to it and drops each (a TLS endpoint's stand-in). */
async function tcpSink(): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const server: TcpServer = createTcpServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as { port: number }).port, connections: () => n };
}

/** Puts an endpoint in place through the store, as the API would refuse its URL. */
async function storedEndpoint(s: Served, url: string): Promise<string> {
  const base = baseOf(s.server.platform);
  const id = base.ids('webhook');
  const now = base.now();
  await base.stores.webhooks.insert({
    id,
    organizationId: s.orgId,
    url,
    events: ['user.invited'],
    description: null,
    enabled: true,
    disabledReason: null,
    failingSince: null,
    secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

describe('how long deliveries are kept', () => {
  it('removes a delivery that ended 30 days after it was made, once an hour; a pending one stays', async () => {
    const DAY = 24 * 3600_000;
    const clock = fixedClock(T0);
    const fine = await receiver();
    const failing = await receiver({ status: (n) => (n === 1 ? 503 : 200) });
    // One attempt each: the first delivery to the failing endpoint fails at once (the next ones are answered).
    const s = await serve({ pollMs: 10, schedule: [] }, { clock });
    const good = await endpoint(s, fine.url);
    const bad = await endpoint(s, failing.url);
    await invite(s, 'ada@example.test');
    await deliveriesWhen(s, good.id, 'delivered', ([d]) => d?.status === 'delivered');
    await deliveriesWhen(s, bad.id, 'failed', ([d]) => d?.status === 'failed');
    // A delivery still pending as old as those (its endpoint's next attempt far off): it has not ended.
    await dbRun(
      s.server.platform,
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, payload, attempts, next_attempt_at, created_at)
       VALUES ('dlv_pending', ?, 'evt_pending', 'user.invited', '{}', 1, '2099-01-01T00:00:00.000Z', ?)`,
      bad.id,
      T0,
    );
    const delivered = async (id: string) => (await deliveries(s, id)).filter((d) => d.status === 'delivered').length;
    const both = (onGood: number, onBad: number) => async () =>
      (await delivered(good.id)) === onGood && (await delivered(bad.id)) === onBad;

    // 29 days on, an hour's pass removes nothing: everything is younger than 30 days (the log below would say so).
    clock.advance(29 * DAY);
    await invite(s, 'bob@example.test');
    await eventually('bob delivered', both(2, 1));
    // 30 days and a minute after the first ones: those two go; the pending one, as old, and the newer ones stay.
    clock.advance(DAY + 60_000);
    await invite(s, 'cy@example.test');
    const cutoff = new Date(Date.parse(T0) + 60_000).toISOString();
    await eventually('removed', () => s.log.some((line) => line.startsWith('webhooks: removed')));
    expect(s.log.filter((line) => line.startsWith('webhooks: removed'))).toEqual([
      `webhooks: removed 2 deliveries that ended and were made before ${cutoff}`,
    ]);
    await eventually('cy delivered', both(2, 2));
    const types = async (id: string) =>
      (await deliveries(s, id)).map((d) => [d.createdAt.slice(0, 10), d.status, d.id === 'dlv_pending']);
    expect(await types(good.id)).toEqual([
      ['2026-01-31', 'delivered', false],
      ['2026-01-30', 'delivered', false],
    ]);
    expect(await types(bad.id)).toEqual([
      ['2026-01-31', 'delivered', false],
      ['2026-01-30', 'delivered', false],
      ['2026-01-01', 'pending', true],
    ]);
  });
});

describe('private addresses, checked again at delivery', () => {
  it('refuses a private address literal or a name resolving to one; loopback stays allowed', async () => {
    const sink = await tcpSink();
    const r = await receiver();
    const s = await serve({ pollMs: 10, schedule: [], timeoutMs: 2000 });
    const refused = {
      'https://10.0.0.1/hook': '10.0.0.1 is a private address (plat serve --allow-private-webhooks sends there)',
      'https://169.254.169.254/latest':
        '169.254.169.254 is a private address (plat serve --allow-private-webhooks sends there)',
      'https://[fd00::1]/hook': 'fd00::1 is a private address (plat serve --allow-private-webhooks sends there)',
      'https://[::ffff:10.1.2.3]/':
        '::ffff:a01:203 is a private address (plat serve --allow-private-webhooks sends there)',
      [`https://0.0.0.0:${sink.port}/`]:
        '0.0.0.0 is a private address (plat serve --allow-private-webhooks sends there)',
      [`https://private.webhook.test:${sink.port}/`]: 'private.webhook.test resolves to a private address',
      'http://10.0.0.1/hook': 'plain http goes only to this machine',
      // Loopback when checked, elsewhere when connected to: refused as it connects.
      [`http://rebinding.webhook.test:${sink.port}/`]:
        'plain http goes only to this machine; rebinding.webhook.test is not',
    };
    const ids = new Map<string, string>();
    for (const url of Object.keys(refused)) ids.set(url, await storedEndpoint(s, url));
    const viaName = await storedEndpoint(s, `${r.url.replace('127.0.0.1', 'loopback.webhook.test')}`);
    await invite(s, 'ada@example.test');
    for (const [url, error] of Object.entries(refused)) {
      const [d] = await deliveriesWhen(s, ids.get(url) as string, url, ([x]) => x?.status === 'failed');
      expect(d, url).toMatchObject({ attempts: 1, lastStatusCode: null, lastError: error });
    }
    expect(sink.connections()).toBe(0);
    // A name of this machine's loopback: sent.
    const [ok] = await deliveriesWhen(s, viaName, 'sent by name', ([x]) => x?.status === 'delivered');
    expect(r.received.map((g) => header(g, 'webhook-id'))).toEqual([ok.eventId]);
  });

  it('sends to private addresses with allowPrivate (plat serve --allow-private-webhooks)', async () => {
    const sink = await tcpSink();
    const s = await serve({ pollMs: 10, schedule: [], allowPrivate: true });
    const literal = await storedEndpoint(s, `https://0.0.0.0:${sink.port}/`);
    const named = await storedEndpoint(s, `https://private.webhook.test:${sink.port}/`);
    await invite(s, 'ada@example.test');
    for (const id of [literal, named]) {
      const [d] = await deliveriesWhen(s, id, id, ([x]) => x?.status === 'failed');
      // It connected (to a listener that is no TLS server): not refused for its address.
      expect(d.lastError).toMatch(/^could not be reached/);
    }
    expect(sink.connections()).toBe(2);
  });
});

describe(`servers sharing one database (${BACKEND})`, () => {
  it('hand each attempt to one server: three servers, many events, each received exactly once', async () => {
    const counts = new Map<string, number>();
    const r = await receiver();
    const first = await serve({ pollMs: 5, concurrency: 4 }, { file: true });
    const hook = await endpoint(first, r.url);
    const others = [await serve({ pollMs: 5, concurrency: 4 }, { share: first })];
    others.push(await serve({ pollMs: 5, concurrency: 4 }, { share: first }));
    const servers = [first, ...others];
    const n = 60;
    // Writes through every server, in parallel batches.
    for (let i = 0; i < n; i += 6) {
      await Promise.all(
        Array.from({ length: 6 }, (_, j) => invite(servers[(i + j) % 3] as Served, `u${i + j}@example.test`)),
      );
    }
    await r.waitFor(n, 30_000);
    await deliveriesWhen(
      first,
      hook.id,
      'all delivered',
      (d) => d.length === n && d.every((x) => x.status === 'delivered'),
    );
    for (const g of r.received) counts.set(header(g, 'webhook-id'), (counts.get(header(g, 'webhook-id')) ?? 0) + 1);
    const invited = await events(first, 'user.invited');
    expect(invited).toHaveLength(n);
    expect([...counts.keys()].sort()).toEqual(invited.map((e) => e.id).sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const rows = await dbRows<{ attempts: number | string }>(
      first.server.platform,
      'SELECT attempts FROM webhook_deliveries WHERE webhook_id = ?',
      hook.id,
    );
    expect(rows.map((x) => Number(x.attempts))).toEqual(Array(n).fill(1));
  }, 60_000);
});
