import { describe, expect, it } from 'vitest';
import { dbCount, dbRows, dbRun } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';

/** A platform with a handful of users of known names, e-mails, states and login times. */
async function seeded() {
  const t = await testPlatform();
  const base = baseOf(t.platform);
  const people = [
    { email: 'carol@acme.test', name: 'carol', status: 'active', login: '2026-01-05T00:00:00.000Z' },
    { email: 'alice@acme.test', name: 'Alice', status: 'active', login: null },
    { email: 'bob@acme.test', name: 'Bob', status: 'suspended', login: '2026-01-03T00:00:00.000Z' },
    { email: 'dave@other.test', name: null, status: 'pending', login: null },
  ] as const;
  const ids: string[] = [];
  for (const p of people) {
    t.clock.advance(1000);
    const { userId } = await t.addUser({ email: p.email, name: p.name ?? undefined, status: p.status });
    if (p.login) await dbRun(base, 'UPDATE org_users SET last_login_at = ? WHERE user_id = ?', p.login, userId);
    ids.push(userId);
  }
  return { t, ids };
}

describe('GET /organizations/{orgId}/users', () => {
  it('lists newest first with the offset pagination object', async () => {
    const { t } = await seeded();
    const r = await t.call('GET', `/organizations/${t.orgId}/users?per_page=2`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((u: any) => u.email)).toEqual(['dave@other.test', 'bob@acme.test']);
    expect(r.body.pagination).toEqual({ total: 5, page: 1, perPage: 2, totalPages: 3, hasMore: true });
    const last = await t.call('GET', `/organizations/${t.orgId}/users?per_page=2&page=3`);
    expect(last.body.data.map((u: any) => u.email)).toEqual(['owner@acme.test']);
    expect(last.body.pagination.hasMore).toBe(false);
    const past = await t.call('GET', `/organizations/${t.orgId}/users?page=9`);
    expect(past.body).toEqual({
      data: [],
      pagination: { total: 5, page: 9, perPage: 20, totalPages: 1, hasMore: false },
    });
  });

  it('returns every field of a user, null when unset', async () => {
    const { t, ids } = await seeded();
    const r = await t.call('GET', `/users/${ids[3]}`);
    expect(r.body).toEqual({
      id: ids[3],
      email: 'dave@other.test',
      name: null,
      avatarUrl: null,
      status: 'pending',
      emailVerified: false,
      role: 'member',
      createdAt: '2026-01-01T00:00:04.000Z',
      updatedAt: '2026-01-01T00:00:04.000Z',
      lastLoginAt: null,
      metadata: {},
    });
  });

  it('filters by status and by a case-insensitive search of name or e-mail', async () => {
    const { t } = await seeded();
    const active = await t.call('GET', `/organizations/${t.orgId}/users?status=active`);
    expect(active.body.data.map((u: any) => u.email)).toEqual([
      'alice@acme.test',
      'carol@acme.test',
      'owner@acme.test',
    ]);
    const search = await t.call(
      'GET',
      `/organizations/${t.orgId}/users?search=ACME.TEST&status=active&sort=email&order=asc`,
    );
    expect(search.body.data.map((u: any) => u.email)).toEqual([
      'alice@acme.test',
      'carol@acme.test',
      'owner@acme.test',
    ]);
    const byName = await t.call('GET', `/organizations/${t.orgId}/users?search=LIC`);
    expect(byName.body.data.map((u: any) => u.name)).toEqual(['Alice']);
    const wildcard = await t.call('GET', `/organizations/${t.orgId}/users?search=%25`);
    expect(wildcard.body.pagination.total).toBe(0);
  });

  it('sorts names case-insensitively and puts nulls last in both orders', async () => {
    const { t } = await seeded();
    const names = async (q: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/users?${q}`)).body.data.map((u: any) => u.name);
    expect(await names('sort=name&order=asc')).toEqual(['Alice', 'Bob', 'carol', 'Olive Owner', null]);
    expect(await names('sort=name&order=desc')).toEqual(['Olive Owner', 'carol', 'Bob', 'Alice', null]);
    const logins = async (q: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/users?${q}`)).body.data.map((u: any) => u.lastLoginAt);
    expect(await logins('sort=last_login_at&order=asc')).toEqual([
      '2026-01-03T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
      null,
      null,
      null,
    ]);
    expect((await logins('sort=last_login_at&order=desc')).slice(0, 2)).toEqual([
      '2026-01-05T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
    ]);
  });

  it('orders members without a value by id in the direction of the sort, and pages by number across them', async () => {
    const { t } = await seeded();
    for (const [sort, key] of [
      ['name', 'name'],
      ['last_login_at', 'lastLoginAt'],
    ] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const all = (await t.call('GET', `/organizations/${t.orgId}/users?sort=${sort}&order=${order}`)).body.data;
        const without = all.filter((u: any) => u[key] === null).map((u: any) => u.id);
        expect(without.length, `${sort} ${order}`).toBeGreaterThan(0);
        const byId = [...without].sort();
        expect(without, `${sort} ${order}: nulls by id`).toEqual(order === 'asc' ? byId : byId.reverse());
        expect(
          all.slice(-without.length).every((u: any) => u[key] === null),
          `${sort} ${order}: nulls last`,
        ).toBe(true);
        // Pages of 2 and of 3: a page starts or ends where the members without a value begin, or holds both.
        for (const perPage of [2, 3]) {
          const paged: string[] = [];
          for (let page = 1; page <= Math.ceil(5 / perPage) + 1; page++) {
            const r = await t.call(
              'GET',
              `/organizations/${t.orgId}/users?sort=${sort}&order=${order}&per_page=${perPage}&page=${page}`,
            );
            expect(r.body.pagination.total).toBe(5);
            paged.push(...r.body.data.map((u: any) => u.id));
          }
          expect(paged, `${sort} ${order}: pages of ${perPage}`).toEqual(all.map((u: any) => u.id));
        }
      }
    }
  });

  it('pages by cursor through every sort with no duplicates or skips, even as records change', async () => {
    const { t } = await seeded();
    for (const sort of ['created_at', 'name', 'email', 'last_login_at']) {
      for (const order of ['asc', 'desc']) {
        const all = (await t.call('GET', `/organizations/${t.orgId}/users?sort=${sort}&order=${order}`)).body.data.map(
          (u: any) => u.id,
        );
        const seen: string[] = [];
        let r = await t.call('GET', `/organizations/${t.orgId}/users?sort=${sort}&order=${order}&limit=2`);
        for (;;) {
          expect(r.body.pagination.limit).toBe(2);
          seen.push(...r.body.data.map((u: any) => u.id));
          if (!r.body.pagination.nextCursor) break;
          expect(r.body.pagination.hasMore).toBe(true);
          r = await t.call('GET', `/organizations/${t.orgId}/users?cursor=${r.body.pagination.nextCursor}&limit=2`);
        }
        expect(seen).toEqual(all);
      }
    }
  });

  it('keeps a cursor correct when records are inserted and deleted between pages', async () => {
    const { t, ids } = await seeded();
    const first = await t.call('GET', `/organizations/${t.orgId}/users?sort=email&order=asc&limit=2`);
    expect(first.body.data.map((u: any) => u.email)).toEqual(['alice@acme.test', 'bob@acme.test']);
    await t.addUser({ email: 'aaron@acme.test' }); // sorts before the cursor: must not appear
    await t.addUser({ email: 'zed@acme.test' }); // sorts after: must appear
    await t.call('DELETE', `/users/${ids[0]}`); // carol, after the cursor, deleted
    const rest: string[] = [];
    let cursor = first.body.pagination.nextCursor;
    while (cursor) {
      const r = await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}&limit=2`);
      rest.push(...r.body.data.map((u: any) => u.email));
      cursor = r.body.pagination.nextCursor;
    }
    expect(rest).toEqual(['dave@other.test', 'owner@acme.test', 'zed@acme.test']);
  });

  it('finds the matches of a search wherever its sort puts them, far down a large organization or all along it', async () => {
    const t = await testPlatform();
    // Three needles, then 250 others after them: newest first or by name, the needles come last, beyond the stretch
    // of the sort a page tests before it reads a search's matches from their index (store/paging.ts).
    const needles = [1, 2, 3].map((i) => ({ email: `needle${i}@example.test`, name: `Needle ${i}` }));
    const others = Array.from({ length: 250 }, (_, i) => ({ email: `other${i}@example.test`, name: `Other ${i}` }));
    const made = await t.call('POST', `/organizations/${t.orgId}/users/batch`, {
      body: { users: [...needles, ...others] },
    });
    expect(made.body.summary.created).toBe(253);
    const emails = (r: { body: { data: { email: string }[] } }) => r.body.data.map((u) => u.email);
    const list = (query: string) => t.call('GET', `/organizations/${t.orgId}/users?${query}`);
    const newestFirst = ['needle3@example.test', 'needle2@example.test', 'needle1@example.test'];
    for (const perPage of [1, 2]) {
      const paged: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const r = await list(`search=needle&per_page=${perPage}&page=${page}`);
        expect(r.body.pagination.total).toBe(3);
        paged.push(...emails(r));
      }
      expect(paged, `pages of ${perPage}`).toEqual(newestFirst);
    }
    const byName = await list('search=NEEDLE&sort=name&order=asc');
    expect(emails(byName)).toEqual([...newestFirst].reverse());
    const seen: string[] = [];
    let r = await list('search=needle&limit=1');
    for (;;) {
      seen.push(...emails(r));
      if (!r.body.pagination.nextCursor) break;
      r = await list(`cursor=${r.body.pagination.nextCursor}&limit=1`);
    }
    expect(seen).toEqual(newestFirst);
    // A search most members match: its pages are those of the whole listing, filtered.
    const everyone: string[] = [];
    for (let page = 1; page <= 3; page++)
      everyone.push(...emails(await list(`sort=email&order=desc&per_page=100&page=${page}`)));
    const matching = await list('search=example.test&sort=email&order=desc&per_page=100&page=2');
    expect(matching.body.pagination.total).toBe(253);
    expect(emails(matching)).toEqual(everyone.filter((e) => e.endsWith('example.test')).slice(100, 200));
  });

  it('rejects bad query parameters with 400 naming the parameter', async () => {
    const { t } = await seeded();
    const cases: [string, string][] = [
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['status=gone', 'status'],
      ['sort=age', 'sort'],
      ['order=up', 'order'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=forged', 'cursor'],
      ['page=2&limit=5', 'page'],
      ['pagee=2', 'pagee'],
      ['status=active&status=pending', 'status'],
    ];
    for (const [q, field] of cases) {
      const r = await t.call('GET', `/organizations/${t.orgId}/users?${q}`, { headers: { 'X-Request-Id': 'rq-1' } });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.status).toBe(400);
      expect(r.body.error.requestId).toBe('rq-1');
      expect(r.body.error.message, q).toContain(field);
    }
  });

  it('refuses a cursor with different filters, or one from another listing', async () => {
    const { t } = await seeded();
    const r = await t.call('GET', `/organizations/${t.orgId}/users?status=active&limit=1`);
    const cursor = r.body.pagination.nextCursor;
    expect((await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}&status=active`)).status).toBe(200);
    expect((await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}&status=pending`)).status).toBe(400);
    expect((await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}&sort=name`)).status).toBe(400);
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('xx') ? 'yy' : 'xx');
    expect((await t.call('GET', `/organizations/${t.orgId}/users?cursor=${tampered}`)).status).toBe(400);
    const other = await t.otherOrg();
    const foreign = await t.call('GET', `/organizations/${other.orgId}/users?cursor=${cursor}`, { key: other.key });
    expect(foreign.status).toBe(400);
  });

  it('is empty with total 0 and totalPages 0 when nothing matches', async () => {
    const { t } = await seeded();
    const r = await t.call('GET', `/organizations/${t.orgId}/users?search=nobody`);
    expect(r.body).toEqual({ data: [], pagination: { total: 0, page: 1, perPage: 20, totalPages: 0, hasMore: false } });
  });
});

describe('GET /organizations/{orgId}/users?expand=teams', () => {
  it("adds each user's team ids, A to Z by team name, in every mode; without it the records stay as they are", async () => {
    const { t, ids } = await seeded();
    const team = async (name: string) =>
      (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name } })).body.id as string;
    const [zeta, alpha, mid] = [await team('zeta'), await team('Alpha'), await team('mid')];
    const join = (teamId: string, userId: string) => t.call('POST', `/teams/${teamId}/members`, { body: { userId } });
    for (const teamId of [zeta, alpha, mid]) expect((await join(teamId, ids[0] as string)).status).toBe(201);
    await join(mid, ids[1] as string);

    const teamsOf = (body: any) => Object.fromEntries(body.data.map((u: any) => [u.email, u.teams]));
    const offset = await t.call('GET', `/organizations/${t.orgId}/users?expand=teams&sort=email&order=asc`);
    expect(offset.status).toBe(200);
    expect(teamsOf(offset.body)).toEqual({
      'alice@acme.test': [mid],
      'bob@acme.test': [],
      'carol@acme.test': [alpha, mid, zeta],
      'dave@other.test': [],
      'owner@acme.test': [],
    });
    const plain = await t.call('GET', `/organizations/${t.orgId}/users?sort=email&order=asc`);
    expect(plain.body.data.every((u: any) => !('teams' in u))).toBe(true);
    expect(offset.body.data.map(({ teams, ...u }: any) => u)).toEqual(plain.body.data);

    // Cursor pages: the cursor continues the same listing with or without expand.
    const first = await t.call('GET', `/organizations/${t.orgId}/users?expand=teams&sort=email&order=asc&limit=3`);
    expect(teamsOf(first.body)['carol@acme.test']).toEqual([alpha, mid, zeta]);
    const cursor = first.body.pagination.nextCursor;
    const rest = await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}&expand=teams`);
    expect(teamsOf(rest.body)).toEqual({ 'dave@other.test': [], 'owner@acme.test': [] });
    const restPlain = await t.call('GET', `/organizations/${t.orgId}/users?cursor=${cursor}`);
    expect(restPlain.body.data.map((u: any) => u.email)).toEqual(['dave@other.test', 'owner@acme.test']);
    expect(restPlain.body.data.every((u: any) => !('teams' in u))).toBe(true);
  });

  it('refuses what it cannot expand, naming the parameter', async () => {
    const { t } = await seeded();
    for (const value of ['projects', 'teams,projects', '']) {
      const r = await t.call('GET', `/organizations/${t.orgId}/users?expand=${value}`);
      expect(r.status, value).toBe(400);
      expect(
        r.body.error.details.map((d: any) => d.field),
        value,
      ).toEqual(['expand']);
    }
  });
});

describe('PATCH /users/{id}', () => {
  it('updates name and avatar and merges metadata, null deleting a key', async () => {
    const { t, ids } = await seeded();
    const id = ids[1];
    await t.call('PATCH', `/users/${id}`, { body: { metadata: { team: 'core', level: 3, keep: true } } });
    t.clock.advance(5000);
    const r = await t.call('PATCH', `/users/${id}`, {
      body: { name: 'Alice A.', avatarUrl: 'https://img.test/a.png', metadata: { level: null, team: 'infra' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'Alice A.',
      avatarUrl: 'https://img.test/a.png',
      metadata: { team: 'infra', keep: true },
      updatedAt: '2026-01-01T00:00:09.000Z',
    });
    expect((await t.call('GET', `/users/${id}`)).body).toEqual(r.body);
  });

  it('validates fields: 422 for invalid values and unknown fields, 400 for malformed bodies', async () => {
    const { t, ids } = await seeded();
    const id = ids[1];
    const bad: [unknown, number, string][] = [
      [{ name: '' }, 422, 'name'],
      [{ name: 'x'.repeat(101) }, 422, 'name'],
      [{ role: 'emperor' }, 422, 'role'],
      [{ avatarUrl: 'javascript:alert(1)' }, 422, 'avatarUrl'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, 422, 'metadata'],
      [{ metadata: { k: 'v'.repeat(501) } }, 422, 'metadata.k'],
      [{ metadata: 'nope' }, 422, 'metadata'],
      [{ nickname: 'al' }, 422, 'nickname'],
      ['{"name":', 400, ''],
      ['[]', 400, ''],
    ];
    for (const [body, status, field] of bad) {
      const r = await t.call('PATCH', `/users/${id}`, { body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (status === 422) expect(r.body.error.details.some((d: any) => d.field.startsWith(field))).toBe(true);
    }
    const wrongType = await t.call('PATCH', `/users/${id}`, {
      body: '{"name":"x"}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect((await t.call('PATCH', `/users/${id}`, { body: { metadata: tooMany } })).status).toBe(422);
    const user = (await t.call('GET', `/users/${id}`)).body;
    expect(user.name).toBe('Alice');
    expect(user.metadata).toEqual({});
  });

  it('enforces the metadata key limit on the merged result', async () => {
    const { t, ids } = await seeded();
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect((await t.call('PATCH', `/users/${ids[1]}`, { body: { metadata: fifty } })).status).toBe(200);
    const r = await t.call('PATCH', `/users/${ids[1]}`, { body: { metadata: { one: 'more' } } });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([{ field: 'metadata', message: 'at most 50 keys' }]);
  });

  it('changes roles within the rules: admins cannot touch owners, the last owner cannot be demoted', async () => {
    const t = await testPlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'mo@acme.test' });
    expect((await t.call('PATCH', `/users/${member.userId}`, { key: admin.key, body: { role: 'admin' } })).status).toBe(
      200,
    );
    expect((await t.call('PATCH', `/users/${member.userId}`, { key: admin.key, body: { role: 'owner' } })).status).toBe(
      403,
    );
    expect((await t.call('PATCH', `/users/${t.ownerId}`, { key: admin.key, body: { name: 'x' } })).status).toBe(403);
    const demote = await t.call('PATCH', `/users/${t.ownerId}`, { body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('conflict');
    expect((await t.call('PATCH', `/users/${member.userId}`, { body: { role: 'owner' } })).status).toBe(200);
    expect((await t.call('PATCH', `/users/${t.ownerId}`, { body: { role: 'admin' } })).status).toBe(200);
  });

  it('needs users:write: members get 403 and nothing changes', async () => {
    const t = await testPlatform();
    const member = await t.addUser({ email: 'mo@acme.test', name: 'Mo' });
    const r = await t.call('PATCH', `/users/${member.userId}`, { key: member.key, body: { name: 'Moe' } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_permissions');
    expect((await t.call('GET', `/users/${member.userId}`)).body.name).toBe('Mo');
  });
});

describe('suspend, unsuspend, delete', () => {
  it('suspends from any state idempotently, revoking the user’s API keys in the same transaction', async () => {
    const t = await testPlatform();
    const u = await t.addUser({ email: 'sam@acme.test', role: 'admin' });
    expect((await t.call('GET', `/users/${t.ownerId}`, { key: u.key })).status).toBe(200);
    t.clock.advance(1000);
    const r = await t.call('POST', `/users/${u.userId}/suspend`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: u.userId, status: 'suspended', updatedAt: '2026-01-01T00:00:01.000Z' });
    const again = await t.call('POST', `/users/${u.userId}/suspend`);
    expect(again.body).toEqual(r.body);
    const denied = await t.call('GET', `/users/${t.ownerId}`, { key: u.key });
    expect(denied.status).toBe(401);
    const keys = await dbRows(t.platform, 'SELECT revoked_at FROM api_keys WHERE user_id = ?', u.userId);
    expect(keys).toEqual([{ revoked_at: '2026-01-01T00:00:01.000Z' }]);
  });

  it('unsuspends to active, or to pending for someone who never accepted', async () => {
    const t = await testPlatform();
    const active = await t.addUser({ email: 'a@acme.test' });
    const pending = await t.addUser({ email: 'p@acme.test', status: 'pending' });
    await t.call('POST', `/users/${active.userId}/suspend`);
    await t.call('POST', `/users/${pending.userId}/suspend`);
    expect((await t.call('POST', `/users/${active.userId}/unsuspend`)).body.status).toBe('active');
    expect((await t.call('POST', `/users/${pending.userId}/unsuspend`)).body.status).toBe('pending');
    expect((await t.call('POST', `/users/${active.userId}/unsuspend`)).status).toBe(409);
  });

  it('refuses to suspend or delete yourself or the last owner', async () => {
    const t = await testPlatform();
    for (const action of ['suspend', 'delete']) {
      const r =
        action === 'suspend'
          ? await t.call('POST', `/users/${t.ownerId}/suspend`)
          : await t.call('DELETE', `/users/${t.ownerId}`);
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('yourself');
    }
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await t.call('POST', `/users/${t.ownerId}/suspend`, { key: admin.key })).status).toBe(403);
    const owner2 = await t.addUser({ email: 'o2@acme.test', role: 'owner' });
    expect((await t.call('POST', `/users/${t.ownerId}/suspend`, { key: owner2.key })).status).toBe(200);
    const last = await t.call('DELETE', `/users/${owner2.userId}`, { key: admin.key });
    expect(last.status).toBe(403);
  });

  it('deletes a user with their memberships and keys; the user is then 404', async () => {
    const t = await testPlatform();
    const u = await t.addUser({ email: 'gone@acme.test' });
    const r = await t.call('DELETE', `/users/${u.userId}`);
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.call('GET', `/users/${u.userId}`)).status).toBe(404);
    expect((await t.call('DELETE', `/users/${u.userId}`)).status).toBe(404);
    expect({ n: await dbCount(t.platform, 'api_keys', 'WHERE user_id = ?', u.userId) }).toEqual({
      n: 0,
    });
    expect(await dbCount(t.platform, 'accounts', 'WHERE id = ?', u.userId)).toBe(0);
  });

  it('removes only the membership when the person belongs to another organization too', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const both = await t.addUser({ email: 'both@acme.test' });
    await t.addUser({ email: 'both@acme.test', orgId: other.orgId });
    expect((await t.call('DELETE', `/users/${both.userId}`)).status).toBe(204);
    const there = await t.call('GET', `/users/${both.userId}`, { key: other.key });
    expect(there.status).toBe(200);
    expect(there.body.status).toBe('active');
  });

  it('writes an audit event for each write, in the acting organization', async () => {
    const t = await testPlatform();
    const u = await t.addUser({ email: 'ev@acme.test' });
    await t.call('POST', `/users/${u.userId}/suspend`, { headers: { 'X-Request-Id': 'trace-42' } });
    const rows = await dbRows(
      t.platform,
      "SELECT type, org_id, actor_type, target_id, request_id FROM events WHERE type = 'user.suspended'",
    );
    expect(rows).toEqual([
      { type: 'user.suspended', org_id: t.orgId, actor_type: 'api_key', target_id: u.userId, request_id: 'trace-42' },
    ]);
  });
});

describe('created records', () => {
  it('uses the fixed clock for timestamps', async () => {
    const t = await testPlatform();
    const r = await t.call('GET', `/users/${t.ownerId}`);
    expect(r.body.createdAt).toBe(T0);
  });
});

describe('a person in several organizations', () => {
  it('is pending and unverified in the one they were only invited to, and stays pending after unsuspend', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const invited = await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'boss@other.test' } });
    expect(invited.status).toBe(201);
    const here = await t.call('GET', `/users/${other.ownerId}`);
    expect(here.body).toMatchObject({ status: 'pending', emailVerified: false });
    await t.call('POST', `/users/${other.ownerId}/suspend`);
    expect((await t.call('POST', `/users/${other.ownerId}/unsuspend`)).body.status).toBe('pending');
    const there = await t.call('GET', `/users/${other.ownerId}`, { key: other.key });
    expect(there.body).toMatchObject({ status: 'active', emailVerified: true });
  });
});

describe('short searches beyond ASCII', () => {
  it('folds case for one- and two-character terms too', async () => {
    const t = await testPlatform();
    await t.addUser({ email: 'zoe@acme.test', name: 'Ébène Ωmega' });
    const emails = async (q: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/users?search=${encodeURIComponent(q)}`)).body.data.map(
        (u: { email: string }) => u.email,
      );
    expect(await emails('éB')).toEqual(['zoe@acme.test']);
    expect(await emails('ω')).toEqual(['zoe@acme.test']);
    expect(await emails('_')).toEqual([]);
  });
});
