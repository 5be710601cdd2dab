import { beforeEach, describe, expect, it } from 'vitest';
import { dbCount, dbRows } from '../helpers/db.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const DEFAULT_SETTINGS = { defaultEnvironment: 'development', autoScaling: false, notificationsEnabled: true };

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});

/** Audit events whose type starts with `prefix`, oldest first. */
async function events(prefix: string) {
  const rows = await dbRows<{ type: string; actor_id: string; target_id: string; data: string }>(
    t.platform,
    'SELECT type, actor_id, target_id, data FROM events WHERE type LIKE ? ORDER BY id',
    `${prefix}%`,
  );
  return rows.map((r) => ({ type: r.type, actor: r.actor_id, target: r.target_id, data: JSON.parse(r.data) }));
}
const count = (table: string) => dbCount(t.platform, table);

async function create(body: Record<string, unknown>, key?: string) {
  const r = await t.call('POST', `/organizations/${t.orgId}/projects`, { body, key });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; slug: string; name: string };
}

function project(over: Record<string, unknown> = {}) {
  return {
    id: 'proj_0001',
    name: 'Web App',
    slug: 'web-app',
    description: null,
    organizationId: t.orgId,
    status: 'active',
    settings: DEFAULT_SETTINGS,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

describe('POST /organizations/{orgId}/projects', () => {
  it('creates an active project with default settings, a Location, the three environments and an event', async () => {
    const r = await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Web App' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe('/v2/projects/proj_0001');
    expect(r.body).toEqual(project());
    const envs = await t.call('GET', '/projects/proj_0001/environments');
    expect(envs.body.data.map((e: { name: string }) => e.name)).toEqual(['development', 'staging', 'production']);
    expect(await events('project.')).toEqual([
      {
        type: 'project.created',
        actor: 'key_0001',
        target: 'proj_0001',
        data: { name: 'Web App', slug: 'web-app', environments: ['development', 'staging', 'production'] },
      },
    ]);
  });

  it('takes a description and a partial settings object', async () => {
    const r = await t.call('POST', `/organizations/${t.orgId}/projects`, {
      body: { name: 'Api', description: 'The API', settings: { defaultEnvironment: 'staging', autoScaling: true } },
    });
    expect(r.body).toEqual(
      project({
        name: 'Api',
        slug: 'api',
        description: 'The API',
        settings: { defaultEnvironment: 'staging', autoScaling: true, notificationsEnabled: true },
      }),
    );
  });

  it('derives slugs: accents folded, symbols collapsed, at most 48 characters, -2/-3 when taken', async () => {
    expect((await create({ name: 'Café Crème — Déjà Vu!' })).slug).toBe('cafe-creme-deja-vu');
    expect((await create({ name: '  __Hello,   World__  ' })).slug).toBe('hello-world');
    expect((await create({ name: '!!!' })).slug).toBe('project');
    // Letters that decompose to nothing ASCII are spelled in ASCII, not dropped.
    expect((await create({ name: 'Søren Kierkegård' })).slug).toBe('soren-kierkegard');
    expect((await create({ name: 'Æble Œuvre' })).slug).toBe('aeble-oeuvre');
    expect((await create({ name: 'Straße' })).slug).toBe('strasse');
    expect((await create({ name: 'Łódź Þing Đakovo' })).slug).toBe('lodz-thing-dakovo');
    const long = `${'A'.repeat(30)} ${'b'.repeat(30)}`;
    const first = await create({ name: long });
    expect(first.slug).toBe(`${'a'.repeat(30)}-${'b'.repeat(17)}`);
    expect(first.slug).toHaveLength(48);
    const second = await create({ name: long });
    expect(second.slug).toBe(`${'a'.repeat(30)}-${'b'.repeat(15)}-2`);
    expect(second.slug).toHaveLength(48);
    expect((await create({ name: 'Hello World' })).slug).toBe('hello-world-2');
    expect((await create({ name: 'hello world' })).slug).toBe('hello-world-3');
  });

  it('makes slugs unique per organization only', async () => {
    const other = await t.otherOrg();
    await create({ name: 'Shared' });
    const r = await t.call('POST', `/organizations/${other.orgId}/projects`, {
      key: other.key,
      body: { name: 'Shared' },
    });
    expect(r.status).toBe(201);
    expect(r.body.slug).toBe('shared');
  });

  it('answers 400 for a missing or malformed body and 422 for an invalid field, writing nothing', async () => {
    const path = `/organizations/${t.orgId}/projects`;
    const cases: [unknown, number, string | undefined][] = [
      [{}, 400, 'name'],
      [{ description: 'x' }, 400, 'name'],
      ['{"name":', 400, undefined],
      [{ name: '' }, 422, 'name'],
      [{ name: 'x'.repeat(101) }, 422, 'name'],
      [{ name: 'A', color: 'red' }, 422, 'color'],
      [{ name: 'A', description: 5 }, 422, 'description'],
      [{ name: 'A', settings: { autoScaling: 'yes' } }, 422, 'settings.autoScaling'],
      [{ name: 'A', settings: { theme: 'dark' } }, 422, 'settings.theme'],
      [{ name: 'A', settings: { defaultEnvironment: 'Not A Slug' } }, 422, 'settings.defaultEnvironment'],
      [{ name: 'A', settings: { defaultEnvironment: 'qa' } }, 422, 'settings.defaultEnvironment'],
    ];
    for (const [body, status, field] of cases) {
      const r = await t.call('POST', path, { body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error.code).toBe(status === 400 ? 'invalid_request' : 'validation_error');
      if (field) expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const r = await t.call('POST', path, { body: { name: 'A', settings: { defaultEnvironment: 'qa' } } });
    expect(r.body.error).toEqual({
      code: 'validation_error',
      status: 422,
      message:
        'settings.defaultEnvironment: must name an environment of the project (development, staging, production)',
      requestId: expect.any(String),
      details: [
        {
          field: 'settings.defaultEnvironment',
          message: 'must name an environment of the project (development, staging, production)',
        },
      ],
    });
    expect([await count('projects'), await count('environments'), (await events('project.')).length]).toEqual([
      0, 0, 0,
    ]);
  });

  it('is for organization owners and admins; members, read-only keys and project-restricted keys get 403', async () => {
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'member@acme.test', role: 'member' });
    const path = `/organizations/${t.orgId}/projects`;
    expect((await t.call('POST', path, { key: admin.key, body: { name: 'By Admin' } })).status).toBe(201);
    for (const key of [
      member.key,
      await t.keyFor(t.ownerId, { permissions: ['projects:read'] }),
      await t.keyFor(t.ownerId, { projectIds: ['proj_0001'] }),
    ]) {
      const r = await t.call('POST', path, { key, body: { name: 'Nope' } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('insufficient_permissions');
    }
    expect(await count('projects')).toBe(1);
  });

  it("answers 404 for another organization's path", async () => {
    const other = await t.otherOrg();
    const r = await t.call('POST', `/organizations/${other.orgId}/projects`, {
      key: await t.keyFor(t.ownerId),
      body: { name: 'X' },
    });
    expect(r.status).toBe(404);
    const viaHeader = await t.call('POST', `/organizations/${other.orgId}/projects`, {
      key: other.key,
      headers: { 'X-Org-Id': t.orgId },
      body: { name: 'X' },
    });
    expect(viaHeader.status).toBe(403);
    expect(await count('projects')).toBe(0);
  });
});

describe('GET /organizations/{orgId}/projects', () => {
  async function seed() {
    await create({ name: 'Alpha', description: 'First BIG thing' });
    t.clock.advance(1000);
    await create({ name: 'Beta' });
    t.clock.advance(1000);
    await create({ name: 'Gamma', description: 'the big one' });
    t.clock.advance(1000);
    await create({ name: '50% off_sale' });
  }
  const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((p) => p.name);
  const list = (query = '', key?: string) => t.call('GET', `/organizations/${t.orgId}/projects${query}`, { key });

  it('lists newest first with offset pagination', async () => {
    await seed();
    const r = await list('?per_page=3');
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['50% off_sale', 'Gamma', 'Beta']);
    expect(r.body.pagination).toEqual({ total: 4, page: 1, perPage: 3, totalPages: 2, hasMore: true });
    expect(r.body.data[2]).toEqual(
      project({
        id: 'proj_0002',
        name: 'Beta',
        slug: 'beta',
        createdAt: '2026-01-01T00:00:01.000Z',
        updatedAt: '2026-01-01T00:00:01.000Z',
      }),
    );
    const page2 = await list('?per_page=3&page=2');
    expect(names(page2)).toEqual(['Alpha']);
    expect(page2.body.pagination).toEqual({ total: 4, page: 2, perPage: 3, totalPages: 2, hasMore: false });
    const past = await list('?page=9');
    expect(past.body).toEqual({
      data: [],
      pagination: { total: 4, page: 9, perPage: 20, totalPages: 1, hasMore: false },
    });
  });

  it('an empty organization lists nothing', async () => {
    expect((await list()).body).toEqual({
      data: [],
      pagination: { total: 0, page: 1, perPage: 20, totalPages: 0, hasMore: false },
    });
  });

  it('filters by status, by search over name or description (case-insensitive, literal %/_), and by exact slug', async () => {
    await seed();
    await t.call('POST', '/projects/proj_0002/archive');
    expect(names(await list('?status=archived'))).toEqual(['Beta']);
    expect(names(await list('?status=active'))).toEqual(['50% off_sale', 'Gamma', 'Alpha']);
    expect(names(await list('?search=BiG'))).toEqual(['Gamma', 'Alpha']);
    expect(names(await list('?search=amm'))).toEqual(['Gamma']);
    expect(names(await list('?search=%25'))).toEqual(['50% off_sale']);
    expect(names(await list('?search=_'))).toEqual(['50% off_sale']);
    expect(names(await list('?slug=gamma'))).toEqual(['Gamma']);
    expect(names(await list('?slug=gam'))).toEqual([]);
    expect(names(await list('?search=big&status=archived'))).toEqual([]);
  });

  it('pages by cursor, keeping its filters, with no duplicates when projects are added between pages', async () => {
    await seed();
    const first = await list('?limit=2&search=a');
    expect(names(first)).toEqual(['50% off_sale', 'Gamma']);
    expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String), hasMore: true });
    t.clock.advance(1000);
    await create({ name: 'Delta' });
    const cursor = encodeURIComponent(first.body.pagination.nextCursor);
    const second = await list(`?cursor=${cursor}&limit=2`);
    expect(names(second)).toEqual(['Beta', 'Alpha']);
    expect(second.body.pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false });
    const same = await list(`?cursor=${cursor}&search=a`);
    expect(same.status).toBe(200);
    const other = await list(`?cursor=${cursor}&search=b`);
    expect(other.status).toBe(400);
    expect(other.body.error.details).toEqual([
      { field: 'search', message: 'differs from the listing the cursor belongs to' },
    ]);
  });

  it('rejects bad query parameters with 400', async () => {
    for (const q of [
      '?status=deleted',
      '?per_page=101',
      '?page=0',
      '?limit=0',
      '?cursor=forged',
      '?page=1&limit=5',
      '?sort=name',
      '?slug=',
    ]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  it('is readable by every organization role; not with a key lacking projects:read', async () => {
    await seed();
    const member = await t.addUser({ email: 'member@acme.test', role: 'member' });
    expect(names(await list('', member.key))).toHaveLength(4);
    const r = await list('', await t.keyFor(t.ownerId, { permissions: ['users:read'] }));
    expect(r.status).toBe(403);
  });

  it('shows a project-restricted key only its projects', async () => {
    await seed();
    const key = await t.keyFor(t.ownerId, { projectIds: ['proj_0001', 'proj_0003'] });
    const r = await list('', key);
    expect(names(r)).toEqual(['Gamma', 'Alpha']);
    expect(r.body.pagination.total).toBe(2);
    expect(names(await list('?limit=1', key))).toEqual(['Gamma']);
  });

  it("answers 404 for another organization's list", async () => {
    const other = await t.otherOrg();
    expect(
      (await t.call('GET', `/organizations/${other.orgId}/projects`, { key: await t.keyFor(t.ownerId) })).status,
    ).toBe(404);
  });
});

describe('GET /projects/{projectId}', () => {
  it('reads a project; unknown, malformed, invisible and foreign ids are 404', async () => {
    await create({ name: 'Web App' });
    expect((await t.call('GET', '/projects/proj_0001')).body).toEqual(project());
    const member = await t.addUser({ email: 'm@acme.test' });
    expect((await t.call('GET', '/projects/proj_0001', { key: member.key })).status).toBe(200);
    const other = await t.otherOrg();
    const foreign = await t.call('POST', `/organizations/${other.orgId}/projects`, {
      key: other.key,
      body: { name: 'X' },
    });
    for (const [path, key] of [
      ['/projects/proj_9999', undefined],
      ['/projects/nope', undefined],
      [`/projects/${foreign.body.id}`, undefined],
      ['/projects/proj_0001', other.key],
      ['/projects/proj_0001', await t.keyFor(t.ownerId, { projectIds: ['proj_0002'] })],
    ] as const) {
      const r = await t.call('GET', path, { key });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect(
      (await t.call('GET', '/projects/proj_0001', { key: await t.keyFor(t.ownerId, { projectIds: ['proj_0001'] }) }))
        .status,
    ).toBe(200);
    expect(
      (await t.call('GET', '/projects/proj_0001', { key: await t.keyFor(t.ownerId, { permissions: ['users:read'] }) }))
        .status,
    ).toBe(403);
  });
});

describe('PATCH /projects/{projectId}', () => {
  it('updates name and description, merges settings, keeps the slug, and records the fields', async () => {
    await create({ name: 'Web App', description: 'old' });
    t.clock.advance(5000);
    const r = await t.call('PATCH', '/projects/proj_0001', {
      body: { name: 'Web Site', description: null, settings: { autoScaling: true, defaultEnvironment: 'production' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(
      project({
        name: 'Web Site',
        settings: { defaultEnvironment: 'production', autoScaling: true, notificationsEnabled: true },
        updatedAt: '2026-01-01T00:00:05.000Z',
      }),
    );
    expect((await t.call('GET', '/projects/proj_0001')).body).toEqual(r.body);
    const again = await t.call('PATCH', '/projects/proj_0001', { body: { settings: { notificationsEnabled: false } } });
    expect(again.body.settings).toEqual({
      defaultEnvironment: 'production',
      autoScaling: true,
      notificationsEnabled: false,
    });
    expect((await events('project.updated')).map((e) => e.data)).toEqual([
      { fields: ['name', 'description', 'settings'], settings: ['defaultEnvironment', 'autoScaling'] },
      { fields: ['settings'], settings: ['notificationsEnabled'] },
    ]);
  });

  it('accepts as default only an environment of the project (422 otherwise, nothing written)', async () => {
    await create({ name: 'Web App' });
    const bad = await t.call('PATCH', '/projects/proj_0001', {
      body: { name: 'Renamed', settings: { defaultEnvironment: 'qa' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      {
        field: 'settings.defaultEnvironment',
        message: 'must name an environment of the project (development, staging, production)',
      },
    ]);
    expect((await t.call('GET', '/projects/proj_0001')).body).toEqual(project());
    expect(await events('project.updated')).toEqual([]);
    await t.call('POST', '/projects/proj_0001/environments', { body: { name: 'qa' } });
    const ok = await t.call('PATCH', '/projects/proj_0001', { body: { settings: { defaultEnvironment: 'qa' } } });
    expect(ok.body.settings.defaultEnvironment).toBe('qa');
  });

  it('answers 400 for a missing body and 422 for invalid fields', async () => {
    await create({ name: 'Web App' });
    const cases: [unknown, number][] = [
      ['', 400],
      [{ slug: 'x' }, 422],
      [{ name: '' }, 422],
      [{ settings: { defaultEnvironment: 5 } }, 422],
      [{ settings: null }, 422],
      [{ status: 'archived' }, 422],
    ];
    for (const [body, status] of cases) {
      expect((await t.call('PATCH', '/projects/proj_0001', { body })).status, JSON.stringify(body)).toBe(status);
    }
    expect((await t.call('GET', '/projects/proj_0001')).body).toEqual(project());
  });

  it('is for owners, admins and project admins; developers, viewers and other members get 403', async () => {
    await create({ name: 'Web App' });
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const pAdmin = await t.addUser({ email: 'padmin@acme.test' });
    const dev = await t.addUser({ email: 'dev@acme.test' });
    const viewer = await t.addUser({ email: 'viewer@acme.test' });
    const outsider = await t.addUser({ email: 'outsider@acme.test' });
    for (const [u, role] of [
      [pAdmin, 'admin'],
      [dev, 'developer'],
      [viewer, 'viewer'],
    ] as const) {
      expect((await t.call('POST', '/projects/proj_0001/members', { body: { userId: u.userId, role } })).status).toBe(
        201,
      );
    }
    const patch = (key: string) =>
      t.call('PATCH', '/projects/proj_0001', { key, body: { description: key.slice(-4) } });
    for (const u of [admin, pAdmin]) expect((await patch(u.key)).status).toBe(200);
    for (const u of [dev, viewer, outsider]) expect((await patch(u.key)).status).toBe(403);
    // A project admin's key narrowed to projects:read loses the write.
    expect((await patch(await t.keyFor(pAdmin.userId, { permissions: ['projects:read'] }))).status).toBe(403);
    // The project role counts only in its own project.
    await create({ name: 'Other' });
    const r = await t.call('PATCH', '/projects/proj_0002', { key: pAdmin.key, body: { description: 'x' } });
    expect(r.status).toBe(403);
  });

  it('answers 403 before reading anything for a credential without the permission, 404 for a project it may not see', async () => {
    await create({ name: 'Web App' });
    await create({ name: 'Second' });
    // Without projects:write, the answer is the same whether the project exists, is out of reach, or is missing.
    const reader = await t.keyFor(t.ownerId, { projectIds: ['proj_0001'], permissions: ['projects:read'] });
    for (const id of ['proj_0001', 'proj_0002', 'proj_9999']) {
      expect((await t.call('PATCH', `/projects/${id}`, { key: reader, body: { name: 'x' } })).status).toBe(403);
    }
    // With it, a project outside the key's projects is as missing as one that does not exist.
    const writer = await t.keyFor(t.ownerId, { projectIds: ['proj_0001'], permissions: ['projects:write'] });
    expect((await t.call('PATCH', '/projects/proj_0002', { key: writer, body: { name: 'x' } })).status).toBe(404);
    expect((await t.call('PATCH', '/projects/proj_9999', { key: writer, body: { name: 'x' } })).status).toBe(404);
    const other = await t.otherOrg();
    expect((await t.call('PATCH', '/projects/proj_0001', { key: other.key, body: { name: 'x' } })).status).toBe(404);
  });
});

describe('status moves', () => {
  const move = (m: string, key?: string) => t.call('POST', `/projects/proj_0001/${m}`, { key });

  it('archive, unarchive, suspend and resume move between the allowed states and answer the project', async () => {
    await create({ name: 'Web App' });
    t.clock.advance(1000);
    const archived = await move('archive');
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual(project({ status: 'archived', updatedAt: '2026-01-01T00:00:01.000Z' }));
    expect((await move('unarchive')).body.status).toBe('active');
    expect((await move('suspend')).body.status).toBe('suspended');
    expect((await move('resume')).body).toEqual(project({ updatedAt: '2026-01-01T00:00:01.000Z' }));
    expect((await events('project.')).slice(1)).toEqual(
      [
        ['project.archived', 'active', 'archived'],
        ['project.unarchived', 'archived', 'active'],
        ['project.suspended', 'active', 'suspended'],
        ['project.resumed', 'suspended', 'active'],
      ].map(([type, from, to]) => ({ type, actor: 'key_0001', target: 'proj_0001', data: { from, to } })),
    );
  });

  it('refuses a move the current state does not allow with 409', async () => {
    await create({ name: 'Web App' });
    for (const m of ['unarchive', 'resume']) expect((await move(m)).status).toBe(409);
    await move('archive');
    for (const m of ['archive', 'suspend', 'resume']) {
      const r = await move(m);
      expect(r.status, m).toBe(409);
      expect(r.body.error.code).toBe('conflict');
    }
    await move('unarchive');
    await move('suspend');
    for (const m of ['archive', 'unarchive', 'suspend']) expect((await move(m)).status, m).toBe(409);
    expect((await t.call('GET', '/projects/proj_0001')).body.status).toBe('suspended');
  });

  it('suspend and resume are for owners only; archive needs organization-level projects:write', async () => {
    await create({ name: 'Web App' });
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const pAdmin = await t.addUser({ email: 'padmin@acme.test', role: 'member' });
    await t.call('POST', '/projects/proj_0001/members', { body: { userId: pAdmin.userId, role: 'admin' } });
    const r = await move('suspend', admin.key);
    expect(r.status).toBe(403);
    expect(r.body.error.message).toBe('only owners can suspend a project');
    expect((await move('archive', pAdmin.key)).status).toBe(403);
    expect((await move('archive', await t.keyFor(t.ownerId, { permissions: ['projects:read'] }))).status).toBe(403);
    expect((await move('archive', admin.key)).status).toBe(200);
    expect((await move('unarchive', admin.key)).status).toBe(200);
    expect((await move('suspend', await t.keyFor(t.ownerId, { permissions: ['projects:read'] }))).status).toBe(403);
    expect((await move('suspend')).status).toBe(200);
    expect((await move('resume', admin.key)).status).toBe(403);
    expect((await move('resume')).status).toBe(200);
    expect((await move('archive', await t.keyFor(t.ownerId, { projectIds: ['proj_0002'] }))).status).toBe(404);
  });

  it('archived and suspended projects refuse writes with 409 but can still be read and deleted', async () => {
    await create({ name: 'Web App' });
    const dev = await t.addUser({ email: 'dev@acme.test' });
    await t.call('POST', '/projects/proj_0001/members', { body: { userId: dev.userId, role: 'developer' } });
    for (const [m, back] of [
      ['archive', 'unarchive'],
      ['suspend', 'resume'],
    ] as const) {
      await move(m);
      const writes: [string, string, unknown][] = [
        ['PATCH', '/projects/proj_0001', { name: 'x' }],
        ['POST', '/projects/proj_0001/members', { userId: t.ownerId, role: 'viewer' }],
        ['PATCH', `/projects/proj_0001/members/${dev.userId}`, { role: 'viewer' }],
        ['DELETE', `/projects/proj_0001/members/${dev.userId}`, undefined],
        ['POST', '/projects/proj_0001/environments', { name: 'qa' }],
        ['PATCH', '/projects/proj_0001/environments/staging', { config: { A: '1' } }],
        ['DELETE', '/projects/proj_0001/environments/staging', undefined],
        ['POST', '/projects/proj_0001/environments/promote', { source: 'staging', target: 'production' }],
      ];
      for (const [method, path, body] of writes) {
        const r = await t.call(method, path, { body });
        expect(r.status, `${m}: ${method} ${path}`).toBe(409);
        expect(r.body.error.code).toBe('conflict');
      }
      expect((await t.call('GET', '/projects/proj_0001')).status).toBe(200);
      expect((await t.call('GET', '/projects/proj_0001/members')).body.data).toHaveLength(1);
      expect((await t.call('GET', '/projects/proj_0001/environments')).body.data).toHaveLength(3);
      await move(back);
    }
    await move('archive');
    expect((await t.call('DELETE', '/projects/proj_0001')).status).toBe(204);
  });
});

describe('DELETE /projects/{projectId}', () => {
  it('removes the project with its environments and members', async () => {
    await create({ name: 'Web App' });
    await create({ name: 'Keep' });
    const dev = await t.addUser({ email: 'dev@acme.test' });
    await t.call('POST', '/projects/proj_0001/members', { body: { userId: dev.userId, role: 'developer' } });
    await t.call('POST', '/projects/proj_0002/members', { body: { userId: dev.userId, role: 'viewer' } });
    const r = await t.call('DELETE', '/projects/proj_0001');
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.call('GET', '/projects/proj_0001')).status).toBe(404);
    expect((await t.call('GET', '/projects/proj_0001/environments')).status).toBe(404);
    expect((await t.call('DELETE', '/projects/proj_0001')).status).toBe(404);
    expect([await count('projects'), await count('environments'), await count('project_members')]).toEqual([1, 3, 1]);
  });

  it("takes the project out of every key's projectIds and revokes keys left with none", async () => {
    await create({ name: 'Web App' });
    await create({ name: 'Keep' });
    const both = await t.keyFor(t.ownerId, { projectIds: ['proj_0001', 'proj_0002'] }); // key_0002
    const only = await t.keyFor(t.ownerId, { projectIds: ['proj_0001'] }); // key_0003
    expect((await t.call('DELETE', '/projects/proj_0001', { key: only })).status).toBe(204);
    const keys = await dbRows(t.platform, 'SELECT id, project_ids, revoked_at FROM api_keys ORDER BY id');
    expect(keys).toEqual([
      { id: 'key_0001', project_ids: null, revoked_at: null },
      { id: 'key_0002', project_ids: '["proj_0002"]', revoked_at: null },
      { id: 'key_0003', project_ids: '[]', revoked_at: T0 },
    ]);
    expect((await t.call('GET', '/projects/proj_0002', { key: both })).status).toBe(200);
    const revoked = await t.call('GET', '/projects/proj_0002', { key: only });
    expect(revoked.status).toBe(401);
    expect(await events('api_key.')).toEqual([
      {
        type: 'api_key.revoked',
        actor: 'key_0003',
        target: 'key_0003',
        data: { reason: 'project_deleted', projectId: 'proj_0001' },
      },
    ]);
    expect(await events('project.deleted')).toEqual([
      {
        type: 'project.deleted',
        actor: 'key_0003',
        target: 'proj_0001',
        data: { name: 'Web App', slug: 'web-app', revokedKeyIds: ['key_0003'] },
      },
    ]);
  });

  it('needs organization-level projects:write: project admins and members get 403, nothing removed', async () => {
    await create({ name: 'Web App' });
    const pAdmin = await t.addUser({ email: 'padmin@acme.test' });
    await t.call('POST', '/projects/proj_0001/members', { body: { userId: pAdmin.userId, role: 'admin' } });
    for (const key of [pAdmin.key, await t.keyFor(t.ownerId, { permissions: ['projects:read'] })]) {
      expect((await t.call('DELETE', '/projects/proj_0001', { key })).status).toBe(403);
    }
    expect(
      (await t.call('DELETE', '/projects/proj_0001', { key: await t.keyFor(t.ownerId, { projectIds: ['proj_0009'] }) }))
        .status,
    ).toBe(404);
    expect((await t.call('DELETE', '/projects/proj_0001', { key: (await t.otherOrg()).key })).status).toBe(404);
    expect([await count('projects'), await count('environments'), await count('project_members')]).toEqual([1, 3, 1]);
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    expect((await t.call('DELETE', '/projects/proj_0001', { key: admin.key })).status).toBe(204);
  });
});

describe('search beyond ASCII', () => {
  it('matches name or description case-insensitively for any script', async () => {
    const t = await testPlatform();
    await t.call('POST', `/organizations/${t.orgId}/projects`, {
      body: { name: 'Pâtisserie', description: 'Éclairs' },
    });
    await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'ΑΘΗΝΑ' } });
    const names = async (q: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/projects?search=${encodeURIComponent(q)}`)).body.data.map(
        (p: { name: string }) => p.name,
      );
    expect(await names('écl')).toEqual(['Pâtisserie']);
    expect(await names('PÂT')).toEqual(['Pâtisserie']);
    expect(await names('αθ')).toEqual(['ΑΘΗΝΑ']);
    expect(await names('%')).toEqual([]);
  });
});
