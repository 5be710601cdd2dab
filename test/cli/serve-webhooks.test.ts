import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { baseOf } from '../helpers/internals.js';
import { send } from '../helpers/platform.js';
import { freePort } from '../helpers/ports.js';
import { eventually } from '../helpers/smtp-peer.js';
import { cleanUpProcesses, processHome, servePlat } from '../helpers/spawn.js';

// `plat serve` delivering webhooks as its own process (docs/webhooks.md, "Delivery"): what it queued survives a
// SIGKILL and a restart on the same file (at least once), and a SIGTERM finishes the deliveries in flight or leaves
// them to their lease. PLAT_TEST_WEBHOOK_TIMING (internal) shortens the server's timers.

afterAll(cleanUpProcesses);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Retries every 250 ms for 10 s of a server's running time; 5 s to answer, a claim held 6 s; 2 s of grace. */
const TIMING = { pollMs: 20, leaseMs: 6000, timeoutMs: 5000, stopGraceMs: 2000, schedule: Array(40).fill(250) };

/** A request received, and how it was answered (`null`: never, its connection dropped). */
interface Hit {
  id: string;
  answered: number | null;
}

/**
 * A webhook endpoint on a port chosen beforehand (so that an endpoint can name it while it is down), answering by
 * `mode`: `ok` (200), `hang` (never), or a function that is handed the response.
 */
interface Endpoint {
  port: number;
  url: string;
  hits: Hit[];
  mode: 'ok' | 'hang' | ((res: ServerResponse, hit: Hit) => void);
  listen(): Promise<void>;
}

function endpointOn(port: number): Endpoint {
  let server: Server | undefined;
  const e: Endpoint = {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    hits: [],
    mode: 'ok',
    listen: async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        req.resume();
        req.on('end', () => {
          const hit: Hit = { id: req.headers['webhook-id'] as string, answered: null };
          e.hits.push(hit);
          if (e.mode === 'hang') return;
          if (typeof e.mode === 'function') return e.mode(res, hit);
          hit.answered = 200;
          res.end('ok');
        });
      });
      await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
      cleanups.push(
        () =>
          new Promise<void>((resolve) => {
            server?.close(() => resolve());
            server?.closeAllConnections();
          }),
      );
    },
  };
  return e;
}

/** A database file with an organization and an endpoint for each URL (selecting `user.invited`), made in-process. */
async function seeded(dir: string, urls: string[]) {
  const db = join(dir, 'webhooks.db');
  const platform = await createPlatform({ db, logger: () => {}, limits: { enabled: false } });
  const made = await bootstrap(baseOf(platform), { orgName: 'Acme', email: 'owner@acme.test', name: 'O' });
  const key = made.apiKey as string;
  const hooks: string[] = [];
  for (const url of urls) {
    const call = (req: Request) => platform.fetch(req);
    const r = await send(call, 'http://plat.test', key, 'POST', `/organizations/${made.organizationId}/webhooks`, {
      body: { url, events: ['user.invited'] },
    });
    expect(r.status).toBe(201);
    hooks.push(r.body.id);
  }
  await platform.close();
  return { db, key, orgId: made.organizationId, hooks };
}

interface Row {
  webhook_id: string;
  event_id: string;
  attempts: number;
  delivered_at: string | null;
  failed_at: string | null;
  lease_owner: string | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

/** The deliveries as the file holds them (read beside the server, as another process). */
function rows(db: string): Row[] {
  const file = new Database(db, { readonly: true });
  try {
    return file.prepare('SELECT * FROM webhook_deliveries ORDER BY created_at, id').all() as Row[];
  } finally {
    file.close();
  }
}

function invitedIds(db: string): string[] {
  const file = new Database(db, { readonly: true });
  try {
    return file.prepare("SELECT id FROM events WHERE type = 'user.invited' ORDER BY seq").pluck().all() as string[];
  } finally {
    file.close();
  }
}

type Served = Awaited<ReturnType<typeof servePlat>>;

async function stop(server: Served, signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill(signal);
  return exited;
}

function start(env: Record<string, string>, db: string, extra: string[] = []): Promise<Served> {
  return servePlat({ ...env, PLAT_TEST_WEBHOOK_TIMING: JSON.stringify(TIMING) }, ['--db', db, ...extra]).then((s) => {
    cleanups.push(() => stop(s, 'SIGKILL'));
    return s;
  });
}

describe('plat serve delivering webhooks, as its own process', () => {
  it('delivers every event at least once across a SIGKILL and a restart on the same file', async () => {
    const env = processHome('plat-serve-webhooks');
    const down = endpointOn(await freePort());
    const held = endpointOn(await freePort());
    held.mode = 'hang';
    await held.listen();
    const t = await seeded(env.HOME as string, [down.url, held.url]);
    const first = await start(env, t.db);
    // The held endpoint holds its one attempt in flight; the other endpoint's deliveries are tried meanwhile.
    const n = 4;
    for (let i = 0; i < n; i++) {
      const r = await send(fetch, first.url, t.key, 'POST', `/organizations/${t.orgId}/users`, {
        body: { email: `u${i}@example.test` },
      });
      expect(r.status).toBe(201);
    }
    // Every delivery to the endpoint that is down tried once at least (refused); the other holds one attempt in flight,
    // and its other deliveries wait their turn (an endpoint has one attempt in flight at a time). On a loaded machine
    // the held attempt may outlast its 5 s before this is seen, and the endpoint then holds its next one in flight.
    await eventually('all tried', () => {
      const all = rows(t.db);
      const refused = all.filter((d) => d.webhook_id === t.hooks[0]);
      return all.length === 2 * n && refused.every((d) => d.attempts >= 1) && held.hits.length >= 1;
    });
    expect(rows(t.db).filter((d) => d.delivered_at !== null)).toEqual([]);
    expect(held.hits.every((h) => h.answered === null)).toBe(true);
    expect(await stop(first, 'SIGKILL')).toBe(null);
    // Killed with a delivery claimed (the held one): it waits for its lease, then goes again.
    expect(rows(t.db).filter((d) => d.webhook_id === t.hooks[1] && d.lease_owner !== null)).toHaveLength(1);
    await down.listen();
    held.mode = 'ok';
    const second = await start(env, t.db);
    await eventually('all delivered', () => rows(t.db).every((d) => d.delivered_at !== null), 20_000);
    const events = invitedIds(t.db);
    expect(events).toHaveLength(n);
    // The endpoint that was down got each event once; the other got each once answered, and again only those whose
    // earlier request went unanswered (the one the kill cut, and any that timed out before it).
    expect(down.hits.map((h) => h.id).sort()).toEqual([...events].sort());
    expect(down.hits.every((h) => h.answered === 200)).toBe(true);
    const answered = held.hits.filter((h) => h.answered === 200).map((h) => h.id);
    expect(answered.sort()).toEqual([...events].sort());
    const unanswered = held.hits.filter((h) => h.answered === null).map((h) => h.id);
    expect(unanswered.length).toBeGreaterThanOrEqual(1);
    for (const id of unanswered) expect(events).toContain(id);
    expect(held.hits).toHaveLength(n + unanswered.length);
    expect(await stop(second, 'SIGTERM')).toBe(0);
    expect(second.log()).not.toMatch(/could not record|internal error/);
  }, 60_000);

  it('on SIGTERM, finishes a delivery in flight that is answered within the grace', async () => {
    const env = processHome('plat-serve-webhooks');
    const slow = endpointOn(await freePort());
    let server: Served | undefined;
    // Answered only once the server has begun to shut down.
    slow.mode = (res, hit) => {
      void stop(server as Served, 'SIGTERM');
      void eventually('shutting down', () => (server as Served).log().includes('Shutting down')).then(() => {
        hit.answered = 200;
        res.end('ok');
      });
    };
    await slow.listen();
    const t = await seeded(env.HOME as string, [slow.url]);
    server = await start(env, t.db);
    const r = await send(fetch, server.url, t.key, 'POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'ada@example.test' },
    });
    expect(r.status).toBe(201);
    await eventually('exited', () => server?.child.exitCode !== null);
    expect(server.child.exitCode).toBe(0);
    expect(slow.hits).toEqual([{ id: invitedIds(t.db)[0], answered: 200 }]);
    expect(rows(t.db)).toEqual([
      expect.objectContaining({ attempts: 1, lease_owner: null, next_attempt_at: null, failed_at: null }),
    ]);
    expect(rows(t.db)[0]?.delivered_at).not.toBeNull();
  }, 60_000);

  it('on SIGTERM, leaves a delivery unanswered after the grace to its lease; the next server sends it', async () => {
    const env = processHome('plat-serve-webhooks');
    const held = endpointOn(await freePort());
    held.mode = 'hang';
    await held.listen();
    const t = await seeded(env.HOME as string, [held.url]);
    const first = await start(env, t.db);
    const r = await send(fetch, first.url, t.key, 'POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'ada@example.test' },
    });
    expect(r.status).toBe(201);
    await eventually('in flight', () => held.hits.length === 1);
    expect(await stop(first, 'SIGTERM')).toBe(0);
    const [left] = rows(t.db);
    // Not recorded as failed, nor given back: still claimed, until its lease ends.
    expect(left).toMatchObject({ attempts: 1, delivered_at: null, failed_at: null, last_error: null });
    expect(left?.lease_owner).not.toBeNull();
    held.mode = 'ok';
    const second = await start(env, t.db);
    await eventually('delivered', () => rows(t.db)[0]?.delivered_at !== null, 20_000);
    expect(rows(t.db)[0]).toMatchObject({ attempts: 2, lease_owner: null, last_error: null });
    const id = invitedIds(t.db)[0];
    expect(held.hits).toEqual([
      { id, answered: null },
      { id, answered: 200 },
    ]);
    expect(await stop(second, 'SIGTERM')).toBe(0);
  }, 60_000);

  it('sends to a private address only with --allow-private-webhooks', async () => {
    const env = processHome('plat-serve-webhooks');
    // A TLS endpoint's stand-in: it counts the connections made to it, and drops each.
    let connections = 0;
    const sink = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => sink.close(resolve)));
    const url = `https://0.0.0.0:${(sink.address() as AddressInfo).port}/hook`;
    const t = await seeded(env.HOME as string, [url]);
    const first = await start(env, t.db);
    const r = await send(fetch, first.url, t.key, 'POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'ada@example.test' },
    });
    expect(r.status).toBe(201);
    const refused = '0.0.0.0 is a private address (plat serve --allow-private-webhooks sends there)';
    await eventually('refused', () => rows(t.db)[0]?.last_error === refused);
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(connections).toBe(0);
    const second = await start(env, t.db, ['--allow-private-webhooks']);
    await eventually('connected', () => connections > 0);
    await eventually('recorded', () => rows(t.db)[0]?.last_error?.startsWith('could not be reached') === true);
    expect(await stop(second, 'SIGTERM')).toBe(0);
  });

  it('refuses a PLAT_TEST_WEBHOOK_TIMING that is not its JSON, before anything starts', async () => {
    const env = processHome('plat-serve-webhooks');
    const bad = servePlat({ ...env, PLAT_TEST_WEBHOOK_TIMING: '{"pollMs":"fast"}' }, [
      '--db',
      join(env.HOME as string, 'x.db'),
    ]);
    await expect(bad).rejects.toThrow(
      'plat serve exited (2): plat: PLAT_TEST_WEBHOOK_TIMING (internal, for tests) is not valid timing JSON',
    );
  });
});
