import { beforeEach, describe, expect, it } from 'vitest';
import { dbCount, dbRows } from '../helpers/db.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});

const count = (table: string) => dbCount(t.platform, table);
const snapshot = async () =>
  Object.fromEntries(
    await Promise.all(['teams', 'team_members', 'invitations', 'events'].map(async (x) => [x, await count(x)])),
  );
const events = async (type: string) =>
  (
    (await dbRows(t.platform, 'SELECT * FROM events WHERE type = ? ORDER BY id', type)) as {
      org_id: string;
      actor_type: string;
      actor_id: string;
      target_type: string;
      target_id: string;
      data: string;
    }[]
  ).map((e) => ({
    org: e.org_id,
    actor: `${e.actor_type}:${e.actor_id}`,
    target: `${e.target_type}:${e.target_id}`,
    data: JSON.parse(e.data),
  }));

function create(name: unknown, key?: string, orgId = t.orgId) {
  return t.call('POST', `/organizations/${orgId}/teams`, { body: { name }, ...(key !== undefined && { key }) });
}
const list = (query = '', key?: string) =>
  t.call('GET', `/organizations/${t.orgId}/teams${query}`, { ...(key !== undefined && { key }) });
const names = (body: { data: { name: string }[] }) => body.data.map((x) => x.name);

describe('POST /organizations/{orgId}/teams', () => {
  it('creates a team: 201, Location, the whole record, an event', async () => {
    const res = await create('Platform');
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/v2/teams/team_0001');
    expect(res.body).toEqual({ id: 'team_0001', organizationId: t.orgId, name: 'Platform', createdAt: T0 });
    expect((await t.call('GET', '/teams/team_0001')).body).toEqual(res.body);
    expect(await events('team.created')).toEqual([
      { org: t.orgId, actor: 'api_key:key_0001', target: 'team:team_0001', data: { name: 'Platform' } },
    ]);
  });

  it('trims the name', async () => {
    expect((await create('  Ops  ')).body.name).toBe('Ops');
  });

  it('409 for a name taken in the organization, compared case-insensitively; nothing written', async () => {
    await create('Platform');
    const before = await snapshot();
    for (const name of ['Platform', 'PLATFORM', ' platform ']) {
      const res = await create(name);
      expect(res.status, name).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'conflict',
        message: 'a team named "Platform" already exists in this organization',
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('the same name is free in another organization', async () => {
    const other = await t.otherOrg();
    await create('Platform');
    const res = await create('Platform', other.key, other.orgId);
    expect(res.status).toBe(201);
    expect(res.body.organizationId).toBe(other.orgId);
  });

  it('400 for a missing name, malformed JSON or a wrong content type; 422 for an invalid or unknown field', async () => {
    const path = `/organizations/${t.orgId}/teams`;
    const before = await snapshot();
    const missing = await t.call('POST', path, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', message: 'missing required field: name' });
    expect((await t.call('POST', path, { body: '{"name"' })).status).toBe(400);
    const wrongType = await t.call('POST', path, {
      body: JSON.stringify({ name: 'X' }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toBe('Content-Type must be application/json');
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 7 }]) {
      const res = await t.call('POST', path, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['name']);
    }
    const unknown = await t.call('POST', path, { body: { name: 'X', members: [] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ field: 'members', message: 'unknown field' }]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('roles, keys and tenancy', () => {
  it('admins write; members and users:read keys only read; keys without users:read cannot read', async () => {
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'member@acme.test' });
    const readOnly = await t.keyFor(t.ownerId, { permissions: ['users:read'] });
    const noUsers = await t.keyFor(t.ownerId, { permissions: ['projects:read', 'projects:write'] });
    expect((await create('By Admin', admin.key)).status).toBe(201);
    const before = await snapshot();
    for (const key of [member.key, readOnly]) {
      const res = await create('Nope', key);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'insufficient_permissions',
        message: 'this operation requires the users:write permission',
      });
      expect((await t.call('DELETE', '/teams/team_0001', { key })).status).toBe(403);
      expect((await list('', key)).status).toBe(200);
      expect((await t.call('GET', '/teams/team_0001', { key })).status).toBe(200);
      expect((await t.call('GET', '/teams/team_0001/members', { key })).status).toBe(200);
    }
    expect((await list('', noUsers)).status).toBe(403);
    expect((await t.call('GET', '/teams/team_0001', { key: noUsers })).status).toBe(403);
    expect((await t.call('GET', '/teams/team_0001/members', { key: noUsers })).status).toBe(403);
    expect((await create('Nope', noUsers)).status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await t.call('DELETE', '/teams/team_0001', { key: admin.key })).status).toBe(204);
  });

  it("another organization's teams answer 404, and its team list too", async () => {
    const other = await t.otherOrg();
    const theirs = (await create('Theirs', other.key, other.orgId)).body.id;
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const before = await snapshot();
    for (const key of [t.ownerKey, admin.key]) {
      expect((await t.call('GET', `/teams/${theirs}`, { key })).status).toBe(404);
      expect((await t.call('GET', `/teams/${theirs}/members`, { key })).status).toBe(404);
      expect((await t.call('DELETE', `/teams/${theirs}`, { key })).status).toBe(404);
      expect((await t.call('GET', `/organizations/${other.orgId}/teams`, { key })).status).toBe(404);
      expect((await create('Mine', key, other.orgId)).status).toBe(404);
    }
    expect(await snapshot()).toEqual(before);
    expect((await list()).body.data).toEqual([]);
  });

  it('unknown and malformed team ids answer 404', async () => {
    for (const path of ['/teams/team_9999', '/teams/inv_0001', '/teams/team_$', '/teams/team_9999/members']) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await t.call('DELETE', '/teams/team_9999')).status).toBe(404);
  });
});

describe('GET /organizations/{orgId}/teams', () => {
  it('lists by name, case-insensitively, with offset pagination', async () => {
    for (const name of ['beta', 'Alpha', 'gamma', 'Delta']) await create(name);
    const all = await list();
    expect(all.body).toEqual({
      data: [
        { id: 'team_0002', organizationId: t.orgId, name: 'Alpha', createdAt: T0 },
        { id: 'team_0001', organizationId: t.orgId, name: 'beta', createdAt: T0 },
        { id: 'team_0004', organizationId: t.orgId, name: 'Delta', createdAt: T0 },
        { id: 'team_0003', organizationId: t.orgId, name: 'gamma', createdAt: T0 },
      ],
      pagination: { total: 4, page: 1, perPage: 20, totalPages: 1, hasMore: false },
    });
    const page = await list('?page=2&per_page=3');
    expect(page.body).toEqual({
      data: [{ id: 'team_0003', organizationId: t.orgId, name: 'gamma', createdAt: T0 }],
      pagination: { total: 4, page: 2, perPage: 3, totalPages: 2, hasMore: false },
    });
  });

  it('an empty list has total 0 and totalPages 0', async () => {
    expect((await list()).body).toEqual({
      data: [],
      pagination: { total: 0, page: 1, perPage: 20, totalPages: 0, hasMore: false },
    });
  });

  it('pages by cursor, and stays correct when teams are added or removed between pages', async () => {
    for (const name of ['A', 'B', 'C', 'D', 'E']) await create(name);
    const first = await list('?limit=2');
    expect(names(first.body)).toEqual(['A', 'B']);
    expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String), hasMore: true });
    await create('Aa'); // sorts before the cursor: not seen
    expect((await t.call('DELETE', '/teams/team_0003')).status).toBe(204); // C
    const second = await list(`?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(names(second.body)).toEqual(['D', 'E']);
    expect(second.body.pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false });
  });

  it('400 for bad paging parameters or a forged cursor', async () => {
    for (const q of ['?per_page=101', '?page=0', '?limit=0', '?cursor=abc', '?page=1&limit=2', '?sort=name']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('DELETE /teams/{teamId}', () => {
  it('removes the team and its memberships, keeps the users, drops it from invitations; 204 and an event', async () => {
    const keep = (await create('Keep')).body.id;
    const gone = (await create('Gone')).body.id;
    const inv = await t.call('POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'bob@example.test', teams: [gone, keep] },
    });
    expect(inv.status).toBe(201);
    const res = await t.call('DELETE', `/teams/${gone}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe(undefined);
    expect((await t.call('GET', `/teams/${gone}`)).status).toBe(404);
    expect(await dbRows(t.platform, 'SELECT team_id, user_id FROM team_members ORDER BY team_id, user_id')).toEqual([
      { team_id: keep, user_id: inv.body.userId },
    ]);
    expect((await t.call('GET', `/users/${inv.body.userId}`)).status).toBe(200);
    expect((await t.call('GET', `/invitations/${inv.body.id}`)).body.teams).toEqual([keep]);
    expect(await events('team.deleted')).toEqual([
      { org: t.orgId, actor: 'api_key:key_0001', target: `team:${gone}`, data: { name: 'Gone' } },
    ]);
    // The name is free again.
    expect((await create('gone')).status).toBe(201);
    expect((await t.call('DELETE', `/teams/${gone}`)).status).toBe(404);
  });
});

describe('GET /teams/{teamId}/members', () => {
  it('lists members earliest first as { user, createdAt }, paged', async () => {
    const team = (await create('Crew')).body.id;
    const other = (await create('Other')).body.id;
    const invited = [];
    for (const [i, email] of ['a@x.test', 'b@x.test', 'c@x.test'].entries()) {
      const res = await t.call('POST', `/organizations/${t.orgId}/users`, {
        body: { email, name: `User ${i}`, teams: i === 1 ? [other] : [team] },
      });
      invited.push(res.body.userId);
      t.clock.advance(1000);
    }
    const res = await t.call('GET', `/teams/${team}/members`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { user: { id: invited[0], name: 'User 0', email: 'a@x.test', avatarUrl: null }, createdAt: T0 },
        {
          user: { id: invited[2], name: 'User 2', email: 'c@x.test', avatarUrl: null },
          createdAt: '2026-01-01T00:00:02.000Z',
        },
      ],
      pagination: { total: 2, page: 1, perPage: 20, totalPages: 1, hasMore: false },
    });
    const first = await t.call('GET', `/teams/${team}/members?limit=1`);
    expect(first.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([invited[0]]);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await t.call('GET', `/teams/${team}/members?cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([invited[2]]);
    expect(second.body.pagination).toEqual({ limit: 20, nextCursor: null, hasMore: false });
    // A cursor of one team's members is not valid for another's.
    expect((await t.call('GET', `/teams/${other}/members?cursor=${first.body.pagination.nextCursor}`)).status).toBe(
      400,
    );
  });

  it('shows the profile the organization sees, and forgets removed users', async () => {
    const team = (await create('Crew')).body.id;
    const inv = await t.call('POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'bob@example.test', teams: [team] },
    });
    await t.call('PATCH', `/users/${inv.body.userId}`, {
      body: { name: 'Bob', avatarUrl: 'https://img.test/bob.png' },
    });
    expect((await t.call('GET', `/teams/${team}/members`)).body.data).toEqual([
      {
        user: { id: inv.body.userId, name: 'Bob', email: 'bob@example.test', avatarUrl: 'https://img.test/bob.png' },
        createdAt: T0,
      },
    ]);
    expect((await t.call('DELETE', `/users/${inv.body.userId}`)).status).toBe(204);
    expect((await t.call('GET', `/teams/${team}/members`)).body.data).toEqual([]);
  });
});

describe('team membership', () => {
  it('adds a user of the organization to a team and takes them out again', async () => {
    const t = await testPlatform();
    const u = await t.addUser({ email: 'tm@acme.test', name: 'Tee Em' });
    const team = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Core' } })).body;
    const added = await t.call('POST', `/teams/${team.id}/members`, { body: { userId: u.userId } });
    expect(added.status).toBe(201);
    expect(added.headers.get('location')).toBe(`/v2/teams/${team.id}/members/${u.userId}`);
    expect(added.body).toEqual({
      user: { id: u.userId, name: 'Tee Em', email: 'tm@acme.test', avatarUrl: null },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    // The Location leads to the member.
    const got = await t.call('GET', (added.headers.get('location') as string).slice('/v2'.length));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(added.body);
    expect((await t.call('POST', `/teams/${team.id}/members`, { body: { userId: u.userId } })).status).toBe(409);
    const members = await t.call('GET', `/teams/${team.id}/members`);
    expect(members.body.data.map((m: any) => m.user.id)).toEqual([u.userId]);
    expect((await t.call('DELETE', `/teams/${team.id}/members/${u.userId}`)).status).toBe(204);
    expect((await t.call('DELETE', `/teams/${team.id}/members/${u.userId}`)).status).toBe(404);
    expect((await t.call('GET', `/teams/${team.id}/members/${u.userId}`)).status).toBe(404);
    expect((await t.call('GET', `/teams/${team.id}/members`)).body.data).toEqual([]);
  });

  it('shows one member to a reader of the organization, and no one across organizations', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const reader = await t.addUser({ email: 'rd@acme.test' });
    const readOnly = await t.keyFor(reader.userId, { permissions: ['users:read'] });
    const team = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Core' } })).body;
    await t.call('POST', `/teams/${team.id}/members`, { body: { userId: reader.userId } });
    const path = `/teams/${team.id}/members/${reader.userId}`;
    expect((await t.call('GET', path, { key: readOnly })).body.user.id).toBe(reader.userId);
    const noRead = await t.keyFor(reader.userId, { permissions: ['projects:read'] });
    expect((await t.call('GET', path, { key: noRead })).status).toBe(403);
    // Another organization's owner sees no such team.
    const foreign = await t.call('GET', path, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toMatch(/team/);
    // A user of the organization who is not in the team.
    expect((await t.call('GET', `/teams/${team.id}/members/${t.ownerId}`)).status).toBe(404);
  });

  it('refuses users of other organizations and callers without users:write', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const member = await t.addUser({ email: 'mo@acme.test' });
    const team = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Core' } })).body;
    const foreign = await t.call('POST', `/teams/${team.id}/members`, { body: { userId: other.ownerId } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details).toEqual([{ field: 'userId', message: 'no such user in this organization' }]);
    const denied = await t.call('POST', `/teams/${team.id}/members`, {
      key: member.key,
      body: { userId: member.userId },
    });
    expect(denied.status).toBe(403);
    expect((await t.call('GET', `/teams/${team.id}/members`)).body.data).toEqual([]);
  });
});
