import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/platform/clock.js';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { SCHEMA_VERSION } from '../../src/platform/store/migrations/index.js';
import { dbRow } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { send } from '../helpers/platform.js';
import { cleanUpProcesses, startPlat } from '../helpers/spawn.js';
import { FormBrowser, formFields } from './auth/helpers.js';

/**
 * Databases written by released versions of plat (made by scripts/make-upgrade-fixture.mjs with that release), opened
 * by this one: everything the release answered is still answered, every credential it issued still works, and the
 * upgraded database takes writes. One block per released schema version. A fixture is made once, by its release, and
 * never again: made by later code it would hold what that code writes, and hide what the release's databases lack
 * (0.2.0's was remade twice after the release, and hid that those had no trigger linking events to projects).
 */
const RELEASES = ['0.1.0', '0.2.0'];

const ORIGIN = 'http://plat.test';

interface Manifest {
  version: string;
  madeAt: string;
  organizationId: string;
  secondOrganizationId: string;
  ownerId: string;
  ownerEmail: string;
  ownerPassword: string;
  ownerKey: string;
  restrictedKey: string;
  revokedKey: string;
  projectId: string;
  teamId: string;
  archivedProjectId: string;
  adaUserId: string;
  malloryUserId: string;
  ssoClientSecret: string;
  session: { id: string; refreshToken: string; clientId: string };
  answers: Record<string, any>;
}

/** The key records without `lastUsedAt`, which the requests of the test itself move forward. */
function withoutLastUse(list: { data: Record<string, unknown>[] }) {
  return { ...list, data: list.data.map(({ lastUsedAt: _, ...k }) => k) };
}

describe.each(RELEASES)('a database made by plat %s', (release) => {
  const fixture = new URL(`../fixtures/upgrade/${release}/`, import.meta.url).pathname;
  const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as Manifest;
  let dir: string;
  let db: string;
  let platform: Platform;
  const call = (method: string, path: string, opts: Parameters<typeof send>[5] = {}, key: string | null = m.ownerKey) =>
    send(platform.fetch, ORIGIN, key, method, path, opts);
  const org = `/organizations/${m.organizationId}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `plat-upgrade-${release}-`));
    db = join(dir, 'local.db');
    // A copy: opening the fixture itself would migrate it.
    for (const file of ['local.db', 'local.db.limits', 'local.db.key']) {
      if (existsSync(join(fixture, file))) copyFileSync(join(fixture, file), join(dir, file));
    }
    // An hour after the fixture was made: its session (30 days) and refresh token are still valid.
    const clock = fixedClock(new Date(Date.parse(m.madeAt) + 3_600_000).toISOString());
    // The public URL an embedded platform has, as the release had when it answered (the SP addresses follow it).
    platform = await createPlatform({ db, clock, logger: () => {} });
  });
  afterAll(() => {
    platform.close();
    cleanUpProcesses();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is migrated to the current schema version', async () => {
    expect(await dbRow(platform, 'PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });
  });

  it('answers everything the release answered', async () => {
    const a = m.answers;
    const reads: [string, string][] = [
      ['organizations', '/organizations'],
      ['organization', org],
      ['users', `${org}/users?per_page=100&sort=email&order=asc`],
      ['invitations', `${org}/invitations?per_page=100`],
      ['teams', `${org}/teams?per_page=100`],
      ['teamMembers', `/teams/${m.teamId}/members?per_page=100`],
      ['projects', `${org}/projects?per_page=100`],
      ['environments', `/projects/${m.projectId}/environments`],
      ['members', `/projects/${m.projectId}/members?per_page=100`],
      ['sso', `${org}/sso`],
      ['sessions', `/users/${m.ownerId}/sessions`],
    ];
    for (const [name, path] of reads) {
      const r = await call('GET', path);
      expect(r.status, name).toBe(200);
      expect(r.body, name).toMatchObject(a[name]);
    }
    const keys = await call('GET', `${org}/api-keys?per_page=100`);
    expect(withoutLastUse(keys.body)).toMatchObject(withoutLastUse(a.apiKeys));
    const events = await call('GET', `${org}/events?limit=100`);
    expect(events.body.data).toMatchObject(a.events);
    expect(await baseOf(platform).stores.outbox.list({})).toMatchObject(a.mail);
  });

  it('holds its single sign-on domains as legacy claims (migration 10): routed as before, until verified', async () => {
    const domains = await call('GET', `${org}/domains`);
    expect(domains.status).toBe(200);
    expect(domains.body.data).toEqual([
      {
        id: expect.stringMatching(/^dom_[0-9a-f]{20}$/),
        organizationId: m.organizationId,
        domain: 'example.com',
        status: 'legacy',
        verification: {
          type: 'dns_txt',
          name: '_plat-challenge.example.com',
          value: expect.stringMatching(/^plat-verification=[0-9a-f]{32}$/),
        },
        createdAt: m.answers.sso.createdAt,
        verifiedAt: null,
      },
    ]);
    expect((await call('GET', `${org}/sso`)).body.domains).toEqual(['example.com']);
    expect((await baseOf(platform).stores.domains.holder('example.com'))?.organizationId).toBe(m.organizationId);
  });

  it('counts the members it had, in each status (migration 7 fills the counts the users list reads)', async () => {
    const users = m.answers.users.data as { status: string }[];
    for (const status of ['active', 'pending', 'suspended']) {
      const r = await call('GET', `${org}/users?status=${status}`);
      expect(r.body.pagination.total, status).toBe(users.filter((u) => u.status === status).length);
    }
    const raw = new Database(db, { readonly: true });
    const kept = raw.prepare('SELECT org_id, status, members FROM member_counts ORDER BY org_id, status').all();
    const counted = raw
      .prepare(
        'SELECT org_id, status, count(*) AS members FROM org_users GROUP BY org_id, status ORDER BY org_id, status',
      )
      .all();
    raw.close();
    expect(kept).toEqual(counted);
    expect(kept.length).toBeGreaterThan(3);
  });

  it('never sends by SMTP the mails it had queued for the local mailbox: they are given up, saying why', async () => {
    const outbox = baseOf(platform).stores.outbox;
    const mails = await outbox.list({});
    expect(mails.length).toBeGreaterThan(0);
    expect(await outbox.waiting()).toBe(0);
    const raw = new Database(db, { readonly: true });
    const reasons = raw.prepare('SELECT DISTINCT last_error FROM outbox WHERE sent_at IS NULL').pluck().all();
    raw.close();
    expect(reasons).toEqual(['queued before plat delivered mail by SMTP: kept in the local mailbox only']);
  });

  it('keeps the secrets sealed (those 0.1.0 kept in clear, by migration 3), and still reads them', async () => {
    const raw = new Database(db, { readonly: true });
    const clientSecret = raw.prepare('SELECT client_secret FROM sso_configs').pluck().get() as string;
    const privateKeys = raw.prepare('SELECT private_jwk FROM signing_keys').pluck().all() as string[];
    raw.close();
    expect(clientSecret).toMatch(/^enc:v1:/);
    expect(privateKeys.length).toBeGreaterThan(0);
    for (const k of privateKeys) expect(k).toMatch(/^enc:v1:/);
    expect(await baseOf(platform).stores.sso.clientSecret(m.organizationId)).toBe(m.ssoClientSecret);
  });

  it('still authenticates the keys it issued, and still refuses the revoked one', async () => {
    expect((await call('GET', '/auth/whoami')).body).toMatchObject({ type: 'api_key', user: { id: m.ownerId } });
    const restricted = await call('GET', `/projects/${m.projectId}`, {}, m.restrictedKey);
    expect(restricted).toMatchObject({ status: 200, body: { id: m.projectId } });
    // Restrictions survived: the restricted key may not read users, and sees only its project.
    expect((await call('GET', `${org}/users`, {}, m.restrictedKey)).status).toBe(403);
    const projects = await call('GET', `${org}/projects`, {}, m.restrictedKey);
    expect(projects.body.data.map((p: { id: string }) => p.id)).toEqual([m.projectId]);
    expect((await call('GET', '/auth/whoami', {}, m.revokedKey)).status).toBe(401);
  });

  it('shows the restricted key only the logged events within its reach (filled in by migration 2)', async () => {
    const all = m.answers.events as { id: string; target: { type: string; id: string } | null; data: any }[];
    const other = all.filter((e) => JSON.stringify(e).includes(m.archivedProjectId));
    expect(other.map((e: any) => e.type).sort()).toEqual(['project.archived', 'project.created']);
    const seen = (await call('GET', `${org}/events?limit=100`, {}, m.restrictedKey)).body.data as { id: string }[];
    expect(seen.map((e) => e.id)).toEqual(all.filter((e) => !other.includes(e)).map((e) => e.id));
  });

  it('shows the restricted key no event logged since about another project, and those about its own', async () => {
    // What migration 8 is for: 0.2.0's migration 2 had no trigger (0.2.0 linked each event to its projects itself),
    // and an event linked to no project is within every key's reach.
    const outside = await call('POST', `${org}/projects`, { body: { name: 'Out Of Reach' } });
    expect(outside.status).toBe(201);
    const inside = await call('PATCH', `/projects/${m.projectId}/environments/preview`, {
      body: { config: { B: '2' } },
    });
    expect(inside.status).toBe(200);
    const all = (await call('GET', `${org}/events?limit=100`)).body.data as { id: string; type: string; data: any }[];
    const created = all.find((e) => e.type === 'project.created' && e.data.slug === 'out-of-reach');
    const updated = all.find((e) => e.type === 'environment.updated' && e.data.set?.includes('B'));
    expect(created && updated).toBeTruthy();
    const seen = (await call('GET', `${org}/events?limit=100`, {}, m.restrictedKey)).body.data as { id: string }[];
    expect(seen.map((e) => e.id)).toContain(updated?.id);
    expect(seen.map((e) => e.id)).not.toContain(created?.id);
  });

  it("keeps the release's session: its refresh token rotates, and the new access token works", async () => {
    const r = await call(
      'POST',
      '/auth/refresh',
      { body: { refreshToken: m.session.refreshToken, clientId: m.session.clientId } },
      null,
    );
    expect(r.status).toBe(200);
    const me = await send(platform.fetch, ORIGIN, null, 'GET', '/auth/whoami', {
      headers: { Authorization: `Bearer ${r.body.accessToken}` },
    });
    expect(me.body).toMatchObject({ type: 'user', user: { id: m.ownerId }, sessionId: m.session.id });
    // Migration 4 tells how the release's session was signed in: with the owner's password.
    const sessions = await call('GET', `/users/${m.ownerId}/sessions`);
    expect(sessions.body.data).toEqual([expect.objectContaining({ id: m.session.id, method: 'password' })]);
  });

  it('signs the owner in with the password set by the release', async () => {
    const browser = new FormBrowser(platform.fetch);
    const authorize = `${ORIGIN}/v2/auth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: 'plat-cli',
      redirect_uri: 'http://127.0.0.1:49152/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`;
    const page = await browser.get(authorize);
    const signedIn = await browser.post(`${ORIGIN}/v2/auth/authorize`, {
      ...formFields(page.text),
      email: m.ownerEmail,
      password: m.ownerPassword,
    });
    // The owner belongs to two organizations: a correct password leads to the organization picker.
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain('Choose an organization');
  });

  it('keeps its rate-limit file: the buckets it held are still there, and requests are counted in it', async () => {
    const buckets = () => {
      const limits = new Database(join(dir, 'local.db.limits'), { readonly: true });
      try {
        return (limits.prepare('SELECT key FROM buckets').all() as { key: string }[]).map((b) => b.key);
      } finally {
        limits.close();
      }
    };
    copyFileSync(join(fixture, 'local.db.limits'), join(dir, 'fixture.limits'));
    const fixtureBuckets = new Database(join(dir, 'fixture.limits'), { readonly: true });
    const before = (fixtureBuckets.prepare('SELECT key FROM buckets').all() as { key: string }[]).map((b) => b.key);
    fixtureBuckets.close();
    expect(before.length).toBeGreaterThan(0);
    const r = await call('GET', org);
    expect(r.headers.get('x-ratelimit-limit')).toBe('6000');
    expect(buckets()).toEqual(expect.arrayContaining(before));
  });

  it('takes writes: a project with environments, an invitation, a key', async () => {
    const project = await call('POST', `${org}/projects`, { body: { name: 'After The Upgrade' } });
    expect(project).toMatchObject({ status: 201, body: { slug: 'after-the-upgrade' } });
    const env = await call('PATCH', `/projects/${project.body.id}/environments/staging`, {
      body: { config: { A: '1' } },
    });
    expect(env).toMatchObject({ status: 200, body: { config: { A: '1' } } });
    const invited = await call('POST', `${org}/users`, { body: { email: 'new@example.com', name: 'New Person' } });
    expect(invited).toMatchObject({ status: 201, body: { status: 'pending' } });
    const key = await call('POST', `${org}/api-keys`, { body: { name: 'after', environment: 'live' } });
    expect(key.status).toBe(201);
    expect((await call('GET', '/auth/whoami', {}, key.body.key)).status).toBe(200);
    const users = await call('GET', `${org}/users?per_page=100`);
    expect(users.body.pagination.total).toBe(m.answers.users.pagination.total + 1);
    // A slug the release already used is still taken.
    const again = await call('POST', `${org}/projects`, { body: { name: 'Payments API' } });
    expect(again.body.slug).toBe('payments-api-2');
  });

  it('works for the CLI: plat users list on the upgraded file, as a spawned process', async () => {
    const home = mkdtempSync(join(tmpdir(), 'plat-upgrade-cli-'));
    try {
      copyFileSync(join(fixture, 'local.db'), join(home, 'local.db'));
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        PLAT_DATA_DIR: home,
        PLAT_CONFIG_DIR: join(home, 'config'),
        PLAT_CREDENTIAL_STORE: 'file',
        PLAT_API_KEY: m.ownerKey,
      };
      const run = await startPlat(env, ['users', 'list', '--org', m.organizationId, '--sort', 'email', '-o', 'ids'])
        .done;
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout.trim().split('\n').sort()).toEqual(
        m.answers.users.data.map((u: { id: string }) => u.id).sort(),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('single sign-on saved by plat 0.1.0, enabled, and a domain two organizations claimed', () => {
  // 0.1.0 took any configuration as it came and let domains be claimed twice; none was ever read from its identity
  // provider. Made here from the 0.1.0 fixture by the SQL 0.1.0 would have written.
  const fixture = new URL('../fixtures/upgrade/0.1.0/', import.meta.url).pathname;
  const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as Manifest;
  let dir: string;
  let platform: Platform;
  const call = (method: string, path: string) => send(platform.fetch, ORIGIN, m.ownerKey, method, path);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plat-upgrade-sso-'));
    for (const file of ['local.db', 'local.db.limits']) copyFileSync(join(fixture, file), join(dir, file));
    const raw = new Database(join(dir, 'local.db'));
    raw.prepare('UPDATE sso_configs SET enabled = 1').run();
    raw
      .prepare(
        `INSERT INTO sso_configs (org_id, protocol, provider, enabled, metadata_url, metadata_xml, issuer, client_id,
           client_secret, attribute_mapping, domains, created_at, updated_at)
         VALUES (?, 'saml', 'okta', 1, 'https://idp.second.test/metadata', NULL, NULL, NULL, NULL, '{"email":"email"}',
           '["second.test","Example.com"]', '2026-11-24T03:06:53.000Z', '2026-11-24T03:06:53.000Z')`,
      )
      .run(m.secondOrganizationId);
    raw.close();
    const clock = fixedClock(new Date(Date.parse(m.madeAt) + 3_600_000).toISOString());
    platform = await createPlatform({ db: join(dir, 'local.db'), clock, logger: () => {} });
  });
  afterAll(() => {
    platform.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('disables each configuration, saying why in an sso.updated event, until an owner saves or refreshes it', async () => {
    for (const orgId of [m.organizationId, m.secondOrganizationId]) {
      const sso = await call('GET', `/organizations/${orgId}/sso`);
      expect(sso.status).toBe(200);
      expect(sso.body.enabled).toBe(false);
      const events = await call('GET', `/organizations/${orgId}/events?type=sso.updated&limit=100`);
      const byUpgrade = (events.body.data as any[]).filter((e) => e.actor.id === 'upgrade');
      expect(byUpgrade).toHaveLength(1);
      expect(byUpgrade[0]).toMatchObject({
        id: expect.stringMatching(/^evt_[0-9a-f]{20}$/),
        type: 'sso.updated',
        actor: { type: 'system', id: 'upgrade' },
        target: { type: 'organization', id: orgId },
        data: { enabled: false, reason: expect.stringContaining('save or refresh it, then enable it') },
      });
    }
  });

  it('refuses plat sso test until the configuration is read from its identity provider (409)', async () => {
    const test = await call('POST', `/organizations/${m.organizationId}/sso/tests`);
    expect(test.status).toBe(409);
    expect(test.body.error.message).toMatch(/save or refresh it first/);
  });

  it('leaves a domain claimed twice to the older configuration; the other keeps the rest of its list', async () => {
    const first = await call('GET', `/organizations/${m.organizationId}/sso`);
    expect(first.body.domains).toEqual(['example.com']);
    const second = await call('GET', `/organizations/${m.secondOrganizationId}/sso`);
    expect(second.body.domains).toEqual(['second.test']);
  });

  it('makes each domain left in a configuration a legacy claim of its organization, and no other', async () => {
    const first = await call('GET', `/organizations/${m.organizationId}/domains`);
    expect(first.body.data.map((d: any) => [d.domain, d.status])).toEqual([['example.com', 'legacy']]);
    const second = await call('GET', `/organizations/${m.secondOrganizationId}/domains`);
    expect(second.body.data.map((d: any) => [d.domain, d.status])).toEqual([['second.test', 'legacy']]);
  });

  it('still offers members of the domain their password', async () => {
    const browser = new FormBrowser(platform.fetch);
    const page = await browser.get(
      `${ORIGIN}/v2/auth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'plat-cli',
        redirect_uri: 'http://127.0.0.1:49152/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        login_hint: 'grace@example.com',
      })}`,
    );
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="password"');
  });
});
