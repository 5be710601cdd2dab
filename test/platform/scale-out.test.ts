import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_FILE, FileCredentialStore } from '../../src/auth/file-credential-store.js';
import { saveConfig } from '../../src/config/config.js';
import { createPlatform } from '../../src/platform/index.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { baseOf } from '../helpers/internals.js';
import { send } from '../helpers/platform.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';
import { authorizeUrl, FormBrowser, pkce, REDIRECT, signIn } from './auth/helpers.js';

/**
 * Any number of `plat serve` processes on one PostgreSQL behave as one instance (docs/architecture.md). Three real
 * servers, each its own process, behind a round-robin proxy (a load balancer's stand-in), so that consecutive requests
 * of one client land on different servers; every invariant is checked through it.
 */

const OWNER = 'owner@acme.test';
const PASSWORD = 'a password for the scale-out tests';

/** A load balancer's stand-in: each request goes to the next server in turn, bodies and headers passed through. */
interface RoundRobin {
  url: string;
  /** How many requests each server was sent. */
  served: number[];
  route(upstreams: string[]): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function roundRobin(): Promise<RoundRobin> {
  let upstreams: string[] = [];
  let next = 0;
  const served: number[] = [];
  const server: Server = createServer(async (req, res) => {
    const i = next++ % upstreams.length;
    served[i] = (served[i] ?? 0) + 1;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === 'host' || name === 'connection' || value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const payload = await body(req);
    try {
      const answer = await fetch(`${upstreams[i]}${req.url}`, {
        method: req.method,
        headers,
        body: payload.length > 0 ? payload : undefined,
        redirect: 'manual',
      });
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((value, name) => {
        if (name !== 'set-cookie' && name !== 'content-encoding' && name !== 'content-length') out[name] = value;
      });
      const cookies = answer.headers.getSetCookie();
      if (cookies.length > 0) out['set-cookie'] = cookies;
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    route: (list) => {
      upstreams = list;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let cluster: TestPostgres;
let proxy: RoundRobin;
let servers: Awaited<ReturnType<typeof servePlat>>[];
let env: Record<string, string>;
let db: string;
let orgId: string;
let ownerKey: string;

beforeAll(async () => {
  cluster = await startPostgres();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE plat');
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = '/plat';
  db = url.href;
  const secretKey = randomBytes(32).toString('base64');
  const platform = await createPlatform({ db, secretKey, logger: () => {} });
  const made = await bootstrap(baseOf(platform), { orgName: 'Acme', email: OWNER, password: PASSWORD });
  await platform.close();
  orgId = made.organizationId;
  ownerKey = made.apiKey;
  proxy = await roundRobin();
  env = { ...processHome('plat-scale-out'), PLAT_SECRET_KEY: secretKey };
  // One public origin for all three, the proxy's: tokens name it as their issuer, links point at it.
  servers = await Promise.all([0, 1, 2].map(() => servePlat(env, ['--database-url', db, '--public-url', proxy.url])));
  proxy.route(servers.map((s) => s.url));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  cleanUpProcesses();
  cluster?.stop();
});

const call = (method: string, path: string, opts: { key?: string | null; body?: unknown } = {}) =>
  send(fetch, proxy.url, ownerKey, method, path, opts);

describe('three plat serve processes on one PostgreSQL', () => {
  it('spread the requests between them (the round-robin works)', async () => {
    const before = proxy.served.slice();
    for (let i = 0; i < 6; i++) expect((await call('GET', '/health')).status).toBe(200);
    expect(proxy.served.map((n, i) => n - (before[i] ?? 0))).toEqual([2, 2, 2]);
  });

  it('accept one of 50 parallel invitations of one e-mail, and refuse the others as a conflict', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `/organizations/${orgId}/users`, { body: { email: 'twin@example.test', name: 'Twin' } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const listed = await call('GET', `/organizations/${orgId}/users?search=twin@example.test`);
    expect(listed.body.data).toHaveLength(1);
  });

  it('let exactly one of 8 racing redemptions of one code win (the token endpoint allows a burst of 10, shared too)', async () => {
    const { verifier, challenge } = pkce();
    const browser = new FormBrowser((r) => fetch(r));
    const back = await signIn(browser, authorizeUrl(`${proxy.url}/v2/auth`, challenge), OWNER, PASSWORD);
    expect(back.status, back.text).toBe(303);
    const code = new URL(back.location as string).searchParams.get('code') as string;
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'plat-cli',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }).toString();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${proxy.url}/v2/auth/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: form,
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(7);
  });

  it('keep 8 CLIs signed in when they all start with an expired token at once', async () => {
    const { verifier, challenge } = pkce();
    const browser = new FormBrowser((r) => fetch(r));
    const back = await signIn(browser, authorizeUrl(`${proxy.url}/v2/auth`, challenge), OWNER, PASSWORD);
    const code = new URL(back.location as string).searchParams.get('code') as string;
    const tokens = (await (
      await fetch(`${proxy.url}/v2/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: 'plat-cli',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }).toString(),
      })
    ).json()) as { access_token: string; refresh_token: string; scope: string };
    const home = processHome('plat-scale-out-cli');
    await saveConfig(home.PLAT_CONFIG_DIR as string, {
      currentProfile: 'remote',
      profiles: { remote: { baseUrl: `${proxy.url}/v2`, org: orgId } },
    });
    await new FileCredentialStore(join(home.PLAT_CONFIG_DIR as string, CREDENTIALS_FILE)).set('remote', {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      // Expired: each command must refresh before its call.
      expiresAt: new Date(Date.now() - 1000).toISOString(),
      scopes: tokens.scope.split(' '),
      clientId: 'plat-cli',
      issuer: `${proxy.url}/v2/auth`,
    });
    const runs = await Promise.all(
      Array.from({ length: 8 }, () => startPlat(home, ['users', 'list', '-o', 'ids'], { timeoutMs: 60_000 }).done),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^user_\w+\n/);
    }
    // Still signed in afterwards: no refresh was taken for a reuse.
    const later = await startPlat(home, ['whoami', '-o', 'ids']).done;
    expect(later.code, later.stderr).toBe(0);
  }, 90_000);

  it("share one key's rate limit: a free plan's burst of 10 is spent once across the three, not once each", async () => {
    const free = await call('POST', '/organizations', { body: { name: 'Free Tier' } });
    expect(free.status).toBe(201);
    const key = await call('POST', `/organizations/${free.body.id}/api-keys`, {
      body: { name: 'limits', environment: 'live' },
    });
    expect(key.status).toBe(201);
    const answers: number[] = [];
    for (let i = 0; i < 30; i++)
      answers.push((await call('GET', `/organizations/${free.body.id}`, { key: key.body.key })).status);
    const allowed = answers.filter((s) => s === 200).length;
    // 10 at once, and one more a second (60 a minute) while the 30 requests run: never 30.
    expect(allowed).toBeGreaterThanOrEqual(10);
    expect(allowed).toBeLessThanOrEqual(13);
    expect(answers.filter((s) => s === 429)).toHaveLength(30 - allowed);
  });

  it('lose no acknowledged write when a server is killed (SIGKILL) in the middle of writing', async () => {
    const victim = await servePlat(env, ['--database-url', db, '--public-url', proxy.url]);
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const r = await send(fetch, victim.url, ownerKey, 'POST', `/organizations/${orgId}/teams`, {
            body: { name: `team ${w}-${i}` },
          });
          if (r.status === 201) acknowledged.push(r.body.id as string);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    victim.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    for (const id of acknowledged) expect((await call('GET', `/teams/${id}`)).status).toBe(200);
  }, 60_000);
});
