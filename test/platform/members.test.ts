import { beforeEach, describe, expect, it } from 'vitest';
import { dbCount, dbRows } from '../helpers/db.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const P = '/projects/proj_0001';

let t: TestPlatform;
let dana: { userId: string; key: string };
beforeEach(async () => {
  t = await testPlatform();
  expect((await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Web App' } })).status).toBe(201);
  dana = await t.addUser({ email: 'dana@acme.test', name: 'Dana Dev' });
});

/** Audit events whose type starts with `prefix`, oldest first. */
async function events(prefix: string) {
  const rows = await dbRows<{ type: string; target_id: string; data: string }>(
    t.platform,
    'SELECT type, target_id, data FROM events WHERE type LIKE ? ORDER BY id',
    `${prefix}%`,
  );
  return rows.map((r) => ({ type: r.type, target: r.target_id, data: JSON.parse(r.data) }));
}
const memberCount = () => dbCount(t.platform, 'project_members');

const add = (userId: string, role: string, key?: string, project = P) =>
  t.call('POST', `${project}/members`, { key, body: { userId, role } });

function member(userId: string, role: string, over: Record<string, unknown> = {}) {
  const people: Record<string, { name: string | null; email: string }> = {
    [t.ownerId]: { name: 'Olive Owner', email: 'owner@acme.test' },
    [dana.userId]: { name: 'Dana Dev', email: 'dana@acme.test' },
  };
  const who = people[userId] ?? { name: null, email: '?' };
  return { user: { id: userId, ...who, avatarUrl: null }, role, createdAt: T0, ...over };
}

describe('project members', () => {
  it('adds a member (201, Location), reads, lists, changes the role and removes them', async () => {
    const r = await add(dana.userId, 'developer');
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v2${P}/members/${dana.userId}`);
    expect(r.body).toEqual(member(dana.userId, 'developer'));
    expect((await t.call('GET', `${P}/members/${dana.userId}`)).body).toEqual(member(dana.userId, 'developer'));
    expect((await t.call('GET', `${P}/members`)).body).toEqual({
      data: [member(dana.userId, 'developer')],
      pagination: { total: 1, page: 1, perPage: 20, totalPages: 1, hasMore: false },
    });
    const patched = await t.call('PATCH', `${P}/members/${dana.userId}`, { body: { role: 'admin' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(member(dana.userId, 'admin'));
    const removed = await t.call('DELETE', `${P}/members/${dana.userId}`);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeUndefined();
    expect((await t.call('GET', `${P}/members/${dana.userId}`)).status).toBe(404);
    expect((await t.call('DELETE', `${P}/members/${dana.userId}`)).status).toBe(404);
    expect(await events('member.')).toEqual([
      { type: 'member.added', target: 'proj_0001', data: { userId: dana.userId, role: 'developer' } },
      {
        type: 'member.updated',
        target: 'proj_0001',
        data: { userId: dana.userId, role: { from: 'developer', to: 'admin' } },
      },
      { type: 'member.removed', target: 'proj_0001', data: { userId: dana.userId, role: 'admin' } },
    ]);
  });

  it("shows the member's profile as the organization knows it", async () => {
    await add(dana.userId, 'viewer');
    await t.call('PATCH', `/users/${dana.userId}`, {
      body: { name: 'Dana D.', avatarUrl: 'https://img.test/d.png' },
    });
    expect((await t.call('GET', `${P}/members/${dana.userId}`)).body).toEqual({
      user: { id: dana.userId, name: 'Dana D.', email: 'dana@acme.test', avatarUrl: 'https://img.test/d.png' },
      role: 'viewer',
      createdAt: T0,
    });
  });

  it('setting the same role again writes nothing', async () => {
    await add(dana.userId, 'viewer');
    const r = await t.call('PATCH', `${P}/members/${dana.userId}`, { body: { role: 'viewer' } });
    expect(r.body).toEqual(member(dana.userId, 'viewer'));
    expect(await events('member.updated')).toEqual([]);
  });

  it('pages newest first by offset and by cursor', async () => {
    const ids = [dana.userId];
    for (const n of [1, 2, 3]) {
      t.clock.advance(1000);
      const u = await t.addUser({ email: `u${n}@acme.test` });
      ids.push(u.userId);
    }
    for (const id of ids) {
      await add(id, 'viewer');
      t.clock.advance(1000);
    }
    const page = await t.call('GET', `${P}/members?per_page=3`);
    expect(page.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual(ids.slice(1).reverse());
    expect(page.body.pagination).toEqual({ total: 4, page: 1, perPage: 3, totalPages: 2, hasMore: true });
    const first = await t.call('GET', `${P}/members?limit=2`);
    expect(first.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([ids[3], ids[2]]);
    const next = encodeURIComponent(first.body.pagination.nextCursor);
    const second = await t.call('GET', `${P}/members?cursor=${next}`);
    expect(second.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([ids[1], ids[0]]);
    expect(second.body.pagination).toEqual({ limit: 20, nextCursor: null, hasMore: false });
    expect((await t.call('GET', `${P}/members?per_page=101`)).status).toBe(400);
    expect((await t.call('GET', `${P}/members?role=admin`)).status).toBe(400);
    // A cursor of one project's members is no cursor for another's.
    await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Two' } });
    expect((await t.call('GET', `/projects/proj_0002/members?cursor=${next}`)).status).toBe(400);
  });

  it('accepts only users of the organization (422 userId) and refuses an existing member (409)', async () => {
    const other = await t.otherOrg();
    for (const userId of [other.ownerId, 'user_9999', 'nonsense']) {
      const r = await add(userId, 'viewer');
      expect(r.status, userId).toBe(422);
      expect(r.body.error.details).toEqual([{ field: 'userId', message: 'is not a user of this organization' }]);
    }
    expect((await add(dana.userId, 'viewer')).status).toBe(201);
    const again = await add(dana.userId, 'admin');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await t.call('GET', `${P}/members/${dana.userId}`)).body.role).toBe('viewer');
    expect(await memberCount()).toBe(1);
    expect(await events('member.')).toHaveLength(1);
  });

  it('answers 400 for a missing field and 422 for an invalid one', async () => {
    const cases: [unknown, number, string][] = [
      [{ userId: dana.userId }, 400, 'role'],
      [{ role: 'viewer' }, 400, 'userId'],
      [{ userId: dana.userId, role: 'owner' }, 422, 'role'],
      [{ userId: dana.userId, role: 'member' }, 422, 'role'],
      [{ userId: 5, role: 'viewer' }, 422, 'userId'],
      [{ userId: dana.userId, role: 'viewer', extra: true }, 422, 'extra'],
    ];
    for (const [body, status, field] of cases) {
      const r = await t.call('POST', `${P}/members`, { body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
    await add(dana.userId, 'viewer');
    expect((await t.call('PATCH', `${P}/members/${dana.userId}`, { body: {} })).status).toBe(400);
    expect((await t.call('PATCH', `${P}/members/${dana.userId}`, { body: { role: 'boss' } })).status).toBe(422);
    expect((await t.call('GET', `${P}/members/${dana.userId}`)).body.role).toBe('viewer');
    expect(await memberCount()).toBe(1);
  });

  it('reads are open to every organization role; writes take members:write or the project admin role', async () => {
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const pAdmin = await t.addUser({ email: 'padmin@acme.test' });
    const dev = await t.addUser({ email: 'dev@acme.test' });
    const viewer = await t.addUser({ email: 'viewer@acme.test' });
    const outsider = await t.addUser({ email: 'outsider@acme.test' });
    await add(pAdmin.userId, 'admin');
    await add(dev.userId, 'developer');
    await add(viewer.userId, 'viewer');
    for (const u of [outsider, viewer, dev]) {
      expect((await t.call('GET', `${P}/members`, { key: u.key })).body.data).toHaveLength(3);
      expect((await t.call('GET', `${P}/members/${dev.userId}`, { key: u.key })).status).toBe(200);
      expect((await add(dana.userId, 'viewer', u.key)).status).toBe(403);
      expect(
        (await t.call('PATCH', `${P}/members/${viewer.userId}`, { key: u.key, body: { role: 'admin' } })).status,
      ).toBe(403);
      expect((await t.call('DELETE', `${P}/members/${viewer.userId}`, { key: u.key })).status).toBe(403);
    }
    expect(await memberCount()).toBe(3);
    // A project admin manages the members of their project…
    expect((await add(dana.userId, 'developer', pAdmin.key)).status).toBe(201);
    const r = await t.call('PATCH', `${P}/members/${dana.userId}`, { key: pAdmin.key, body: { role: 'viewer' } });
    expect(r.body.role).toBe('viewer');
    expect((await t.call('DELETE', `${P}/members/${dana.userId}`, { key: pAdmin.key })).status).toBe(204);
    // …and the new role takes effect at once: a developer promoted to admin may add members.
    await t.call('PATCH', `${P}/members/${dev.userId}`, { key: admin.key, body: { role: 'admin' } });
    expect((await add(dana.userId, 'viewer', dev.key)).status).toBe(201);
    // …but not in another project.
    await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Two' } });
    expect((await add(dana.userId, 'viewer', pAdmin.key, '/projects/proj_0002')).status).toBe(403);
    // Keys narrowed by permissions lose what they lack.
    const readOnly = await t.keyFor(t.ownerId, { permissions: ['members:read'] });
    expect((await t.call('GET', `${P}/members`, { key: readOnly })).status).toBe(200);
    expect((await add(outsider.userId, 'viewer', readOnly)).status).toBe(403);
    const noRead = await t.keyFor(t.ownerId, { permissions: ['projects:read'] });
    expect((await t.call('GET', `${P}/members`, { key: noRead })).status).toBe(403);
  });

  it('hides projects from keys restricted to others, and from other organizations (404)', async () => {
    await add(dana.userId, 'viewer');
    const restricted = await t.keyFor(t.ownerId, { projectIds: ['proj_0002'] });
    const other = await t.otherOrg();
    for (const key of [restricted, other.key]) {
      expect((await t.call('GET', `${P}/members`, { key })).status).toBe(404);
      expect((await t.call('GET', `${P}/members/${dana.userId}`, { key })).status).toBe(404);
      expect((await add(t.ownerId, 'viewer', key)).status).toBe(404);
      expect((await t.call('PATCH', `${P}/members/${dana.userId}`, { key, body: { role: 'admin' } })).status).toBe(404);
      expect((await t.call('DELETE', `${P}/members/${dana.userId}`, { key })).status).toBe(404);
    }
    const allowed = await t.keyFor(t.ownerId, { projectIds: ['proj_0001'] });
    expect((await add(t.ownerId, 'admin', allowed)).body).toEqual(member(t.ownerId, 'admin'));
    expect((await t.call('GET', `${P}/members/not-a-user`)).status).toBe(404);
    expect((await t.call('GET', `${P}/members/${t.ownerId.replace('0001', '0777')}`)).status).toBe(404);
  });

  it('a user removed from the organization leaves every project', async () => {
    await add(dana.userId, 'developer');
    t.clock.advance(1000);
    await add(t.ownerId, 'admin');
    expect((await t.call('DELETE', `/users/${dana.userId}`)).status).toBe(204);
    expect((await t.call('GET', `${P}/members`)).body.data).toEqual([member(t.ownerId, 'admin', { createdAt: T1 })]);
  });
});
