import { describe, expect, it } from 'vitest';
import { dbRow, dbRows, dbRun } from '../helpers/db.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const SECRET = /^plat_live_[0-9A-Za-z]{38}$/;

/** A project row, seeded directly so these tests do not depend on the projects API. */
async function seedProject(t: TestPlatform, id: string, orgId = t.orgId): Promise<string> {
  await dbRun(
    t.platform,
    `INSERT INTO projects (id, org_id, name, slug, description, status, settings, created_at, updated_at)
     VALUES (?, ?, ?, ?, NULL, 'active', '{}', ?, ?)`,
    id,
    orgId,
    id,
    id,
    T0,
    T0,
  );
  return id;
}

function create(t: TestPlatform, body: unknown, key?: string) {
  return t.call('POST', `/organizations/${t.orgId}/api-keys`, { body, key });
}

async function events(t: TestPlatform, type: string) {
  const r = await t.call('GET', `/organizations/${t.orgId}/events?type=${type}`);
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Every stored event, raw, as one string. */
async function eventsTable(t: TestPlatform): Promise<string> {
  return JSON.stringify(await dbRows(t.platform, 'SELECT * FROM events'));
}

describe('POST /organizations/{orgId}/api-keys', () => {
  it('creates a key of the caller, shows its secret once, and the secret works', async () => {
    const t = await testPlatform();
    const r = await create(t, { name: '  CI deploys ', environment: 'live' });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe('/v2/api-keys/key_0002');
    const secret: string = r.body.key;
    expect(secret).toMatch(SECRET);
    expect(r.body).toEqual({
      id: 'key_0002',
      name: 'CI deploys',
      organizationId: t.orgId,
      userId: t.ownerId,
      environment: 'live',
      prefix: secret.slice(0, 14),
      last4: secret.slice(-4),
      projectIds: null,
      permissions: null,
      multiOrganization: false,
      createdAt: T0,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      key: secret,
    });
    t.clock.advance(5000);
    expect((await t.call('GET', `/users/${t.ownerId}`, { key: secret })).status).toBe(200);
    const got = await t.call('GET', '/api-keys/key_0002');
    const { key: _, ...record } = r.body;
    expect(got.body).toEqual({ ...record, lastUsedAt: '2026-01-01T00:00:05.000Z' });
  });

  it('never shows the secret again: not in get, list or the events table', async () => {
    const t = await testPlatform();
    const r = await create(t, { name: 'ci', environment: 'live' });
    const secret: string = r.body.key;
    const random = secret.slice('plat_live_'.length);
    const get = await t.call('GET', `/api-keys/${r.body.id}`);
    const list = await t.call('GET', `/organizations/${t.orgId}/api-keys`);
    await t.call('DELETE', `/api-keys/${r.body.id}`);
    for (const text of [JSON.stringify(get.body), JSON.stringify(list.body), await eventsTable(t)]) {
      expect(text).not.toContain(random.slice(4, -4));
    }
    expect(get.body).not.toHaveProperty('key');
    expect(list.body.data.every((k: any) => !('key' in k))).toBe(true);
    const stored = await dbRow(t.platform, 'SELECT * FROM api_keys WHERE id = ?', r.body.id);
    expect(JSON.stringify(stored)).not.toContain(random.slice(4, -4));
  });

  it('records api_key.created with actor, target and request id, without the secret', async () => {
    const t = await testPlatform();
    const r = await t.call('POST', `/organizations/${t.orgId}/api-keys`, {
      body: { name: 'ci', environment: 'live', permissions: ['users:read'], expiresAt: '2026-02-01T02:00:00+02:00' },
      headers: { 'X-Request-Id': 'create-key-1' },
    });
    expect(r.status).toBe(201);
    expect(await events(t, 'api_key.created')).toEqual([
      {
        id: 'evt_0002',
        type: 'api_key.created',
        organizationId: t.orgId,
        actor: { type: 'api_key', id: 'key_0001' },
        target: { type: 'api_key', id: 'key_0002' },
        requestId: 'create-key-1',
        createdAt: T0,
        data: {
          name: 'ci',
          userId: t.ownerId,
          environment: 'live',
          projectIds: null,
          permissions: ['users:read'],
          multiOrganization: false,
          expiresAt: '2026-02-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('issues only keys of the instance mode (422 environment)', async () => {
    const live = await testPlatform();
    const wrong = await create(live, { name: 'x', environment: 'test' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'environment', message: 'this live instance issues only live keys' }],
    });
    const sandbox = await testPlatform({ mode: 'sandbox' });
    const bad = await create(sandbox, { name: 'x', environment: 'live' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      { field: 'environment', message: 'this sandbox instance issues only test keys' },
    ]);
    const ok = await create(sandbox, { name: 'x', environment: 'test' });
    expect(ok.status).toBe(201);
    expect(ok.body.key).toMatch(/^plat_test_/);
    expect(ok.body.prefix).toMatch(/^plat_test_[0-9A-Za-z]{4}$/);
    expect((await sandbox.call('GET', `/users/${sandbox.ownerId}`, { key: ok.body.key })).status).toBe(200);
  });

  it('refuses a key of the other mode with 401 naming the mode', async () => {
    const live = await testPlatform();
    const testKey = await live.keyFor(live.ownerId, { environment: 'test' });
    const r = await live.call('GET', `/users/${live.ownerId}`, { key: testKey });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({
      code: 'authentication_failed',
      message: 'a test API key cannot be used with a live instance; use a live key',
    });
    const sandbox = await testPlatform({ mode: 'sandbox' });
    const liveKey = await sandbox.keyFor(sandbox.ownerId, { environment: 'live' });
    const s = await sandbox.call('GET', `/users/${sandbox.ownerId}`, { key: liveKey });
    expect(s.status).toBe(401);
    expect(s.body.error.message).toBe('a live API key cannot be used with a sandbox instance; use a test key');
  });

  it('grants only permissions the caller holds (403 otherwise), and the key is held to them', async () => {
    const t = await testPlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'max@acme.test' });
    const tooMuch = await create(
      t,
      { name: 'x', environment: 'live', permissions: ['users:read', 'sso:write'] },
      admin.key,
    );
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.error.message).toBe('a key cannot hold permissions its creator lacks: sso:write');

    const r = await create(
      t,
      { name: 'reader', environment: 'live', permissions: ['users:read', 'users:read'] },
      admin.key,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ userId: admin.userId, permissions: ['users:read'] });
    const key = r.body.key;
    expect((await t.call('GET', `/users/${member.userId}`, { key })).status).toBe(200);
    expect((await t.call('GET', `/organizations/${t.orgId}/users`, { key })).status).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', `/users/${member.userId}`, { name: 'Maxine' }],
      ['GET', `/organizations/${t.orgId}/api-keys`, undefined],
      ['GET', `/organizations/${t.orgId}/events`, undefined],
      ['POST', `/organizations/${t.orgId}/api-keys`, { name: 'y', environment: 'live' }],
    ] as const) {
      const res = await t.call(method, path, { key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('insufficient_permissions');
    }
  });

  it("narrows a restricted caller's key: never wider, omitted permissions inherited", async () => {
    const t = await testPlatform();
    const p1 = await seedProject(t, 'proj_a1');
    const narrow = await t.keyFor(t.ownerId, { permissions: ['keys:write', 'users:read'] });
    const wider = await create(t, { name: 'x', environment: 'live', permissions: ['users:write'] }, narrow);
    expect(wider.status).toBe(403);
    const inherited = await create(t, { name: 'child', environment: 'live' }, narrow);
    expect(inherited.status).toBe(201);
    expect(inherited.body).toMatchObject({ permissions: ['users:read', 'keys:write'], projectIds: null });
    const same = await create(
      t,
      { name: 'child', environment: 'live', projectIds: [p1], permissions: ['users:read'] },
      narrow,
    );
    expect(same.body).toMatchObject({ permissions: ['users:read'], projectIds: [p1] });
  });

  it('is not made by a key restricted to projects: a key is a change of the organization (403)', async () => {
    const t = await testPlatform();
    const p1 = await seedProject(t, 'proj_a1');
    const restricted = await t.keyFor(t.ownerId, { projectIds: [p1] });
    for (const body of [
      { name: 'x', environment: 'live' },
      { name: 'x', environment: 'live', projectIds: [p1] },
      { name: 'x', environment: 'live', projectIds: ['proj_zz'] },
    ]) {
      const r = await create(t, body, restricted);
      expect(r.status).toBe(403);
      expect(r.body.error.message).toMatch(/restricted to some projects/);
    }
    expect((await t.call('GET', `/organizations/${t.orgId}/api-keys`, { key: restricted })).status).toBe(200);
  });

  it('takes only projects of this organization (422 projectIds)', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const p1 = await seedProject(t, 'proj_a1');
    const p2 = await seedProject(t, 'proj_a2');
    const foreign = await seedProject(t, 'proj_b1', other.orgId);
    for (const projectIds of [[p1, foreign], ['proj_nope']]) {
      const r = await create(t, { name: 'x', environment: 'live', projectIds });
      expect(r.status).toBe(422);
      expect(r.body.error.details[0].field).toBe('projectIds');
    }
    const ok = await create(t, { name: 'x', environment: 'live', projectIds: [p2, p1, p2] });
    expect(ok.status).toBe(201);
    expect(ok.body.projectIds).toEqual([p2, p1]);
  });

  it('makes a multi-organization key only for a multi-organization credential', async () => {
    const t = await testPlatform();
    const single = await t.keyFor(t.ownerId);
    const refused = await create(t, { name: 'x', environment: 'live', multiOrganization: true }, single);
    expect(refused.status).toBe(403);
    const other = await t.otherOrg();
    await t.addUser({ email: 'owner@acme.test', orgId: other.orgId, role: 'admin' });
    const r = await create(t, { name: 'everywhere', environment: 'live', multiOrganization: true });
    expect(r.status).toBe(201);
    expect(r.body.multiOrganization).toBe(true);
    const there = await t.call('GET', `/organizations/${other.orgId}`, {
      key: r.body.key,
      headers: { 'X-Org-Id': other.orgId },
    });
    expect(there.status).toBe(200);
    const plain = await create(t, { name: 'here only', environment: 'live' });
    const notThere = await t.call('GET', `/organizations/${other.orgId}`, {
      key: plain.body.key,
      headers: { 'X-Org-Id': other.orgId },
    });
    expect(notThere.status).toBe(403);
  });

  it('makes the key in the organization it acts in when a multi-organization caller picks another', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    await t.addUser({ email: 'owner@acme.test', orgId: other.orgId, role: 'admin' });
    const r = await t.call('POST', `/organizations/${other.orgId}/api-keys`, {
      body: { name: 'there', environment: 'live' },
      headers: { 'X-Org-Id': other.orgId },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ organizationId: other.orgId, userId: t.ownerId });
    const list = await t.call('GET', `/organizations/${other.orgId}/api-keys`, { key: other.key });
    // key_0002: the other owner's bootstrap key; key_0003: the one addUser made for our owner there.
    expect(list.body.data.map((k: any) => k.id)).toEqual([r.body.id, 'key_0003', 'key_0002']);
  });

  it('takes an expiry in the future only, and the key stops working then', async () => {
    const t = await testPlatform();
    for (const expiresAt of ['2025-12-31T23:59:59.000Z', T0]) {
      const r = await create(t, { name: 'x', environment: 'live', expiresAt });
      expect(r.status).toBe(422);
      expect(r.body.error.details).toEqual([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const r = await create(t, { name: 'x', environment: 'live', expiresAt: '2026-01-01T02:00:00+01:00' });
    expect(r.status).toBe(201);
    expect(r.body.expiresAt).toBe('2026-01-01T01:00:00.000Z');
    t.clock.set('2026-01-01T00:59:59.999Z');
    expect((await t.call('GET', `/users/${t.ownerId}`, { key: r.body.key })).status).toBe(200);
    t.clock.set('2026-01-01T01:00:00.000Z');
    const expired = await t.call('GET', `/users/${t.ownerId}`, { key: r.body.key });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ code: 'authentication_failed', message: 'API key has expired' });
  });

  it('needs keys:write: members get 403; another organization is 404', async () => {
    const t = await testPlatform();
    const member = await t.addUser({ email: 'max@acme.test' });
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await create(t, { name: 'x', environment: 'live' }, member.key)).status).toBe(403);
    expect((await create(t, { name: 'x', environment: 'live' }, admin.key)).status).toBe(201);
    const other = await t.otherOrg();
    const r = await t.call('POST', `/organizations/${other.orgId}/api-keys`, {
      body: { name: 'x', environment: 'live' },
      key: admin.key,
    });
    expect(r.status).toBe(404);
  });

  it('answers 400 for a missing field or bad JSON, 422 for an invalid one, and writes nothing', async () => {
    const t = await testPlatform();
    const cases: [unknown, number, string?][] = [
      [{ environment: 'live' }, 400],
      [{ name: 'x' }, 400],
      ['{"name": ', 400],
      [{ name: 'x', environment: 'prod' }, 422, 'environment'],
      [{ name: '   ', environment: 'live' }, 422, 'name'],
      [{ name: 'x', environment: 'live', permissions: ['users:delete'] }, 422, 'permissions.0'],
      [{ name: 'x', environment: 'live', permissions: [] }, 422, 'permissions'],
      [{ name: 'x', environment: 'live', projectIds: [] }, 422, 'projectIds'],
      [{ name: 'x', environment: 'live', expiresAt: 'tomorrow' }, 422, 'expiresAt'],
      [{ name: 'x', environment: 'live', multiOrganization: 'yes' }, 422, 'multiOrganization'],
      [{ name: 'x', environment: 'live', owner: 'me' }, 422, 'owner'],
    ];
    for (const [body, status, field] of cases) {
      const r = await create(t, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (field) expect(r.body.error.details.map((d: any) => d.field)).toContain(field);
    }
    const list = await t.call('GET', `/organizations/${t.orgId}/api-keys`);
    expect(list.body.data.map((k: any) => k.id)).toEqual(['key_0001']);
    expect(await events(t, 'api_key.created')).toEqual([]);
  });
});

describe('GET /organizations/{orgId}/api-keys and /api-keys/{keyId}', () => {
  async function threeKeys(t: TestPlatform) {
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      t.clock.advance(1000);
      ids.push((await create(t, { name, environment: 'live' })).body.id);
    }
    return ids;
  }

  it('lists active and revoked keys newest first with offset paging', async () => {
    const t = await testPlatform();
    const [one, two, three] = await threeKeys(t);
    await t.call('DELETE', `/api-keys/${two}`);
    const r = await t.call('GET', `/organizations/${t.orgId}/api-keys?per_page=2`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((k: any) => [k.id, k.revokedAt])).toEqual([
      [three, null],
      [two, '2026-01-01T00:00:03.000Z'],
    ]);
    expect(r.body.pagination).toEqual({ total: 4, page: 1, perPage: 2, totalPages: 2, hasMore: true });
    const page2 = await t.call('GET', `/organizations/${t.orgId}/api-keys?per_page=2&page=2`);
    expect(page2.body.data.map((k: any) => k.id)).toEqual([one, 'key_0001']);
    expect(page2.body.data[1]).toMatchObject({
      name: 'plat local',
      multiOrganization: true,
      prefix: expect.any(String),
    });
  });

  it('pages by cursor too, and rejects bad paging parameters with 400', async () => {
    const t = await testPlatform();
    const [one, two, three] = await threeKeys(t);
    const first = await t.call('GET', `/organizations/${t.orgId}/api-keys?limit=2`);
    expect(first.body.data.map((k: any) => k.id)).toEqual([three, two]);
    expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String), hasMore: true });
    const next = await t.call(
      'GET',
      `/organizations/${t.orgId}/api-keys?cursor=${encodeURIComponent(first.body.pagination.nextCursor)}&limit=2`,
    );
    expect(next.body).toEqual({
      data: [expect.objectContaining({ id: one }), expect.objectContaining({ id: 'key_0001' })],
      pagination: { limit: 2, nextCursor: null, hasMore: false },
    });
    for (const q of ['per_page=101', 'page=0', 'limit=0', 'cursor=forged', 'page=1&limit=2', 'status=active']) {
      const r = await t.call('GET', `/organizations/${t.orgId}/api-keys?${q}`);
      expect(r.status, q).toBe(400);
    }
  });

  it('gets one key; 404 for unknown, malformed or another organization’s', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const own = await t.call('GET', '/api-keys/key_0001');
    expect(own.body).toEqual({
      id: 'key_0001',
      name: 'plat local',
      organizationId: t.orgId,
      userId: t.ownerId,
      environment: 'live',
      prefix: expect.stringMatching(/^plat_live_[0-9A-Za-z]{4}$/),
      last4: t.ownerKey.slice(-4),
      projectIds: null,
      permissions: null,
      multiOrganization: true,
      createdAt: T0,
      expiresAt: null,
      lastUsedAt: T0,
      revokedAt: null,
    });
    expect(own.body.prefix).toBe(t.ownerKey.slice(0, 14));
    for (const path of ['/api-keys/key_9999', '/api-keys/nonsense', '/api-keys/key_0002']) {
      const r = await t.call('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await t.call('GET', '/api-keys/key_0001', { key: other.key })).status).toBe(404);
    expect((await t.call('GET', `/organizations/${other.orgId}/api-keys`)).status).toBe(404);
  });

  it('needs keys:read: members get 403, admins see everyone’s keys', async () => {
    const t = await testPlatform();
    const member = await t.addUser({ email: 'max@acme.test' });
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await t.call('GET', `/organizations/${t.orgId}/api-keys`, { key: member.key })).status).toBe(403);
    expect((await t.call('GET', '/api-keys/key_0002', { key: member.key })).status).toBe(403);
    const r = await t.call('GET', `/organizations/${t.orgId}/api-keys`, { key: admin.key });
    expect(r.body.data.map((k: any) => k.userId)).toEqual([admin.userId, member.userId, t.ownerId]);
  });
});

describe('DELETE /api-keys/{keyId}', () => {
  it('revokes at once: 204, the key gets 401, revokedAt is set, one event; again is 204 with no event', async () => {
    const t = await testPlatform();
    const created = await create(t, { name: 'ci', environment: 'live' });
    t.clock.advance(1000);
    const r = await t.call('DELETE', `/api-keys/${created.body.id}`, { headers: { 'X-Request-Id': 'rev-1' } });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const use = await t.call('GET', `/users/${t.ownerId}`, { key: created.body.key });
    expect(use.status).toBe(401);
    expect(use.body.error).toMatchObject({ code: 'authentication_failed', message: 'API key has been revoked' });
    expect((await t.call('GET', `/api-keys/${created.body.id}`)).body.revokedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(await events(t, 'api_key.revoked')).toEqual([
      {
        id: 'evt_0003',
        type: 'api_key.revoked',
        organizationId: t.orgId,
        actor: { type: 'api_key', id: 'key_0001' },
        target: { type: 'api_key', id: created.body.id },
        requestId: 'rev-1',
        createdAt: '2026-01-01T00:00:01.000Z',
        data: { name: 'ci', userId: t.ownerId },
      },
    ]);
    t.clock.advance(1000);
    expect((await t.call('DELETE', `/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await t.call('GET', `/api-keys/${created.body.id}`)).body.revokedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(await events(t, 'api_key.revoked')).toHaveLength(1);
  });

  it('lets a key revoke itself', async () => {
    const t = await testPlatform();
    const key = await t.keyFor(t.ownerId);
    expect((await t.call('DELETE', '/api-keys/key_0002', { key })).status).toBe(204);
    expect((await t.call('GET', '/api-keys/key_0002', { key })).status).toBe(401);
  });

  it("needs keys:write, and owner rank for an owner's key; nothing changes on refusal", async () => {
    const t = await testPlatform();
    const member = await t.addUser({ email: 'max@acme.test' });
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const byMember = await t.call('DELETE', '/api-keys/key_0003', { key: member.key });
    expect(byMember.status).toBe(403);
    const onOwner = await t.call('DELETE', '/api-keys/key_0001', { key: admin.key });
    expect(onOwner.status).toBe(403);
    expect(onOwner.body.error.message).toBe("only owners can revoke an owner's API key");
    const reader = await t.keyFor(admin.userId, { permissions: ['keys:read'] });
    expect((await t.call('DELETE', '/api-keys/key_0002', { key: reader })).status).toBe(403);
    expect(await events(t, 'api_key.revoked')).toEqual([]);
    expect((await t.call('GET', '/api-keys/key_0001')).body.revokedAt).toBeNull();
    expect((await t.call('DELETE', '/api-keys/key_0002', { key: admin.key })).status).toBe(204);
    expect((await t.call('GET', `/users/${member.userId}`, { key: member.key })).status).toBe(401);
  });

  it('answers 404 for an unknown key or another organization’s', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    expect((await t.call('DELETE', '/api-keys/key_9999')).status).toBe(404);
    expect((await t.call('DELETE', '/api-keys/key_0001', { key: other.key })).status).toBe(404);
    expect((await t.call('DELETE', '/api-keys/key_0002')).status).toBe(404);
    expect((await t.call('GET', `/users/${other.ownerId}`, { key: other.key })).status).toBe(200);
  });
});
