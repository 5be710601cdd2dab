import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixedClock, sequentialIds } from '../../src/platform/clock.js';
import { createPlatform } from '../../src/platform/index.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { startServer } from '../../src/platform/server.js';
import { LightResponse, useLightFetch } from '../../src/startup/light-fetch.js';
import { testDatabase } from '../helpers/backend.js';
import { dbRows } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { type Reply, send } from '../helpers/platform.js';
import { API_ROUTES, buildFixture, exampleBody, type Fixture, pathFor, routeKey } from '../helpers/tour.js';

const dir = mkdtempSync(join(tmpdir(), 'plat-http-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Values that differ between two instances by design (secrets, signed cursors), masked for comparison. */
function normalize(r: Reply, opts: { headers?: boolean } = {}): unknown {
  const text = JSON.stringify(r.body ?? null)
    .replace(/plat_(live|test)_[0-9A-Za-z]{38}/g, 'plat_$1_<secret>')
    .replace(/"(prefix|last4)":"[^"]*"/g, '"$1":"<masked>"')
    .replace(/"nextCursor":"[^"]*"/g, '"nextCursor":"<cursor>"')
    // A sign-in sent to an identity provider carries a random request id (the SAML request's ID, the OIDC state).
    .replace(/"signInUrl":"[^"]*"/g, '"signInUrl":"<identity provider>"')
    .replace(/"req_[0-9A-Za-z]+"/g, '"<request id>"')
    // A domain claim's DNS token is random.
    .replace(/"plat-verification=[0-9a-f]+"/g, '"plat-verification=<token>"')
    .replace(/"scim_[0-9A-Za-z]{43}"/g, '"scim_<secret>"')
    .replace(/"whsec_[0-9A-Za-z+/=]+"/g, '"whsec_<secret>"')
    // The event stream's starting position: signed with the instance's cursor key, and on PostgreSQL made of the
    // database's transaction ids.
    .replace(/id: pos_[\w.-]+/g, 'id: pos_<position>');
  const headers = opts.headers ? [...r.headers].filter(([name]) => name !== 'x-request-id') : undefined;
  return { status: r.status, location: r.headers.get('location'), body: JSON.parse(text), headers };
}

/** Runs every route once — reads first, then writes, then state moves and deletes — and records the replies. */
async function tour(
  call: (m: string, p: string, o?: { body?: unknown }) => Promise<Reply>,
  t: any,
  orgId: string,
  ownerId: string,
  opts: { headers?: boolean } = {},
) {
  const f: Fixture = await buildFixture(call, t, orgId, ownerId, 'tour');
  const rank = (m: string) => ({ GET: 0, POST: 1, PUT: 1, PATCH: 2, DELETE: 3 })[m] ?? 4;
  const routes = [...API_ROUTES].sort((a, b) => rank(a.method) - rank(b.method));
  const replies: Record<string, unknown> = {};
  for (const route of routes) {
    const r = await call(route.method, pathFor(route, f), { body: exampleBody(route, f) });
    replies[routeKey(route)] = normalize(r, opts);
  }
  return replies;
}

describe('the same cases in-process and over real HTTP on a SQLite file', () => {
  it('gives identical answers on every route', async () => {
    const local = await createPlatform({
      ...(await testDatabase()),
      clock: fixedClock(),
      ids: sequentialIds(),
      logger: () => {},
      publicUrl: 'http://127.0.0.1',
    });
    const localBoot = await bootstrap(baseOf(local), { orgName: 'Acme', email: 'owner@acme.test' });
    const localReplies = await tour(
      (m, p, o) => send(local.fetch, 'http://in-process', localBoot.apiKey, m, p, o),
      { platform: local },
      localBoot.organizationId,
      localBoot.userId,
    );

    const server = await startServer({
      ...(await testDatabase(join(dir, 'http.db'))),
      port: 0,
      clock: fixedClock(),
      ids: sequentialIds(),
      logger: () => {},
      // Nothing is sent: as in-process, where no server delivers, deliveries stay as they were queued.
      webhooks: false,
      publicUrl: 'http://127.0.0.1',
    });
    try {
      const boot = await bootstrap(baseOf(server.platform), { orgName: 'Acme', email: 'owner@acme.test' });
      const remoteReplies = await tour(
        (m, p, o) => send(fetch, server.url, boot.apiKey, m, p, o),
        { platform: server.platform },
        boot.organizationId,
        boot.userId,
      );
      expect(Object.keys(remoteReplies)).toHaveLength(API_ROUTES.length);
      expect(remoteReplies).toEqual(localReplies);
      const statuses = Object.values(remoteReplies).map((r: any) => r.status);
      expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(API_ROUTES.length * 0.7);
    } finally {
      await server.close();
      local.close();
    }
  });

  it("gives the same answers, headers included, with plat's light in-process fetch classes as with Node's", async () => {
    const run = async () => {
      const platform = await createPlatform({
        ...(await testDatabase()),
        clock: fixedClock(),
        ids: sequentialIds(),
        logger: () => {},
      });
      try {
        const boot = await bootstrap(baseOf(platform), { orgName: 'Acme', email: 'owner@acme.test' });
        return await tour(
          (m, p, o) => send(platform.fetch, 'http://embedded.plat', boot.apiKey, m, p, o),
          { platform },
          boot.organizationId,
          boot.userId,
          { headers: true },
        );
      } finally {
        platform.close();
      }
    };
    const node = await run();
    const undo = useLightFetch();
    let light: Awaited<ReturnType<typeof run>>;
    try {
      expect(new Response('x')).toBeInstanceOf(LightResponse);
      light = await run();
    } finally {
      undo();
    }
    expect(new Response('x')).not.toBeInstanceOf(LightResponse);
    expect(Object.keys(light)).toHaveLength(API_ROUTES.length);
    expect(light).toEqual(node);
    // Headers were compared too: the rate-limit ones on every answer, the content type on every body.
    for (const reply of Object.values(light) as { headers: [string, string][] }[]) {
      expect(reply.headers.map(([name]) => name)).toContain('x-ratelimit-remaining');
    }
  });

  it('finishes an in-flight request on close, then closes the database and refuses connections', async () => {
    const server = await startServer({ ...(await testDatabase(join(dir, 'close.db'))), port: 0, logger: () => {} });
    const boot = await bootstrap(baseOf(server.platform));
    // A request whose body is still arriving when close() is called.
    let finish: (() => void) | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
        finish = () => {
          controller.enqueue(new TextEncoder().encode('"Still Here"}'));
          controller.close();
        };
      },
    });
    const reply = fetch(`${server.url}/v2/users/${boot.userId}`, {
      method: 'PATCH',
      headers: { 'X-API-Key': boot.apiKey, 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    for (let i = 0; i < 500 && server.inFlight === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.inFlight).toBe(1);
    const closed = server.close();
    finish?.();
    const res = await reply;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { name: string }).name).toBe('Still Here');
    await closed;
    await expect(dbRows(server.platform, 'SELECT 1')).rejects.toThrow();
    await expect(fetch(`${server.url}/v2/health`)).rejects.toThrow();
  });
});
