import { beforeEach, describe, expect, it } from 'vitest';
import { dbCount, dbRows } from '../helpers/db.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const P = '/projects/proj_0001';
const E = `${P}/environments`;

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
  expect((await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Web App' } })).status).toBe(201);
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
const envCount = () => dbCount(t.platform, 'environments');

function env(n: number, name: string, config: Record<string, string> = {}, over: Record<string, unknown> = {}) {
  return {
    id: `env_${String(n).padStart(4, '0')}`,
    projectId: 'proj_0001',
    name,
    config,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}
const patch = (name: string, config: Record<string, string | null>, key?: string) =>
  t.call('PATCH', `${E}/${name}`, { key, body: { config } });

describe('environments', () => {
  it('every project starts with development, staging and production, listed in that order', async () => {
    const r = await t.call('GET', E);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [env(1, 'development'), env(2, 'staging'), env(3, 'production')] });
    expect((await t.call('GET', `${E}/staging`)).body).toEqual(env(2, 'staging'));
  });

  it('creates an environment (201, Location) with an optional config, after the defaults', async () => {
    t.clock.advance(1000);
    const r = await t.call('POST', E, {
      body: { name: 'qa-1', config: { API_URL: 'https://qa', DB_PASSWORD: 's3cret' } },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v2${E}/qa-1`);
    const qa = env(4, 'qa-1', { API_URL: 'https://qa', DB_PASSWORD: 's3cret' }, { createdAt: T1, updatedAt: T1 });
    expect(r.body).toEqual(qa);
    expect((await t.call('GET', E)).body.data.map((e: { name: string }) => e.name)).toEqual([
      'development',
      'staging',
      'production',
      'qa-1',
    ]);
    const bare = await t.call('POST', E, { body: { name: 'preview' } });
    expect(bare.body.config).toEqual({});
    expect(await events('environment.')).toEqual([
      {
        type: 'environment.created',
        target: 'env_0004',
        data: { projectId: 'proj_0001', name: 'qa-1', keys: ['API_URL', 'DB_PASSWORD'] },
      },
      { type: 'environment.created', target: 'env_0005', data: { projectId: 'proj_0001', name: 'preview', keys: [] } },
    ]);
  });

  it('refuses a taken name with 409 and bad input with 400/422, writing nothing', async () => {
    const taken = await t.call('POST', E, { body: { name: 'staging' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    const tooMany = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`K${i}`, 'v']));
    const cases: [unknown, number, string][] = [
      [{}, 400, 'name'],
      [{ config: {} }, 400, 'name'],
      [{ name: 'Staging' }, 422, 'name'],
      [{ name: 'qa_1' }, 422, 'name'],
      [{ name: '-qa' }, 422, 'name'],
      [{ name: 'a'.repeat(33) }, 422, 'name'],
      // The promotion endpoint's path: an environment of that name could never be read or changed.
      [{ name: 'promote' }, 422, 'name'],
      [{ name: 'qa', config: { '1BAD': 'x' } }, 422, 'config.1BAD'],
      [{ name: 'qa', config: { OK: 5 } }, 422, 'config.OK'],
      [{ name: 'qa', config: { OK: null } }, 422, 'config.OK'],
      [{ name: 'qa', config: tooMany }, 422, 'config'],
      [{ name: 'qa', color: 'red' }, 422, 'color'],
    ];
    for (const [body, status, field] of cases) {
      const r = await t.call('POST', E, { body });
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await t.call('POST', E, { body: { name: 'a'.repeat(32) } })).status).toBe(201);
    expect(await envCount()).toBe(4);
    expect(await events('environment.')).toHaveLength(1);
  });

  it('PATCH merges config: a string sets a key, null deletes it; events carry keys, never values', async () => {
    await patch('staging', { API_URL: 'https://staging', TOKEN: 'hunter2' });
    t.clock.advance(1000);
    const r = await patch('staging', { TOKEN: null, DEBUG: 'true', NOPE: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(env(2, 'staging', { API_URL: 'https://staging', DEBUG: 'true' }, { updatedAt: T1 }));
    expect((await t.call('GET', `${E}/staging`)).body).toEqual(r.body);
    expect((await events('environment.updated')).map((e) => e.data)).toEqual([
      { projectId: 'proj_0001', name: 'staging', set: ['API_URL', 'TOKEN'], removed: [] },
      { projectId: 'proj_0001', name: 'staging', set: ['DEBUG'], removed: ['TOKEN'] },
    ]);
    const all = JSON.stringify(await dbRows(t.platform, 'SELECT data FROM events'));
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('https://staging');
  });

  it('keeps a config at 200 keys at most (422, nothing written)', async () => {
    const full = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`K${i}`, 'v']));
    expect((await patch('staging', full)).status).toBe(200);
    const r = await patch('staging', { K0: null, ONE: 'x', TWO: 'y' });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([{ field: 'config', message: 'at most 200 keys' }]);
    const stored = (await t.call('GET', `${E}/staging`)).body.config;
    expect(Object.keys(stored)).toHaveLength(200);
    expect(stored.K0).toBe('v');
    expect((await patch('staging', { K0: null, ONE: 'x' })).status).toBe(200);
  });

  it('answers 400/422 for a bad PATCH body and 404 for unknown or malformed names', async () => {
    expect((await t.call('PATCH', `${E}/staging`, { body: {} })).status).toBe(400);
    expect((await t.call('PATCH', `${E}/staging`, { body: { name: 'x', config: {} } })).status).toBe(422);
    expect((await t.call('PATCH', `${E}/staging`, { body: { config: { A: 1 } } })).status).toBe(422);
    for (const name of ['qa', 'Staging', 'a'.repeat(33), 'stag%20ing']) {
      expect((await t.call('GET', `${E}/${name}`)).status, name).toBe(404);
      expect((await patch(name, { A: 'b' })).status, name).toBe(404);
      expect((await t.call('DELETE', `${E}/${name}`)).status, name).toBe(404);
    }
  });

  it('deletes an environment (204), but never the default one (409)', async () => {
    const r = await t.call('DELETE', `${E}/staging`);
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.call('GET', `${E}/staging`)).status).toBe(404);
    const dflt = await t.call('DELETE', `${E}/development`);
    expect(dflt.status).toBe(409);
    expect(dflt.body.error.code).toBe('conflict');
    await t.call('PATCH', P, { body: { settings: { defaultEnvironment: 'production' } } });
    expect((await t.call('DELETE', `${E}/development`)).status).toBe(204);
    expect((await t.call('DELETE', `${E}/production`)).status).toBe(409);
    expect((await t.call('GET', E)).body.data).toEqual([env(3, 'production')]);
    expect((await events('environment.deleted')).map((e) => [e.target, e.data])).toEqual([
      ['env_0002', { projectId: 'proj_0001', name: 'staging' }],
      ['env_0001', { projectId: 'proj_0001', name: 'development' }],
    ]);
    // A deleted name can be created again.
    expect((await t.call('POST', E, { body: { name: 'staging' } })).status).toBe(201);
  });

  it("promote replaces the target's config with the source's and returns the target", async () => {
    await patch('staging', { API_URL: 'https://staging', FEATURE: 'on' });
    await patch('production', { API_URL: 'https://prod', LEGACY: 'yes' });
    t.clock.advance(1000);
    const r = await t.call('POST', `${E}/promote`, { body: { source: 'staging', target: 'production' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(env(3, 'production', { API_URL: 'https://staging', FEATURE: 'on' }, { updatedAt: T1 }));
    expect((await t.call('GET', `${E}/staging`)).body.config).toEqual({ API_URL: 'https://staging', FEATURE: 'on' });
    expect(await events('environment.promoted')).toEqual([
      {
        type: 'environment.promoted',
        target: 'env_0003',
        data: { projectId: 'proj_0001', source: 'staging', target: 'production', keys: ['API_URL', 'FEATURE'] },
      },
    ]);
    // Promoting an empty environment empties the target.
    await t.call('POST', `${E}/promote`, { body: { source: 'development', target: 'production' } });
    expect((await t.call('GET', `${E}/production`)).body.config).toEqual({});
  });

  it('promote: same source and target is 422, unknown names 404, bad bodies 400/422 — nothing written', async () => {
    await patch('production', { KEEP: 'me' });
    const same = await t.call('POST', `${E}/promote`, { body: { source: 'staging', target: 'staging' } });
    expect(same.status).toBe(422);
    expect(same.body.error.details).toEqual([{ field: 'target', message: 'must differ from source' }]);
    for (const body of [
      { source: 'qa', target: 'production' },
      { source: 'staging', target: 'qa' },
    ]) {
      const r = await t.call('POST', `${E}/promote`, { body });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await t.call('POST', `${E}/promote`, { body: { source: 'staging' } })).status).toBe(400);
    expect((await t.call('POST', `${E}/promote`, { body: { source: 'Staging', target: 'x' } })).status).toBe(422);
    expect((await t.call('GET', `${E}/production`)).body.config).toEqual({ KEEP: 'me' });
    expect(await events('environment.promoted')).toEqual([]);
  });

  it('reads are open to every organization role; writes take resources:write or the project admin/developer role', async () => {
    const dev = await t.addUser({ email: 'dev@acme.test' });
    const pAdmin = await t.addUser({ email: 'padmin@acme.test' });
    const viewer = await t.addUser({ email: 'viewer@acme.test' });
    const outsider = await t.addUser({ email: 'outsider@acme.test' });
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    for (const [u, role] of [
      [dev, 'developer'],
      [pAdmin, 'admin'],
      [viewer, 'viewer'],
    ] as const) {
      await t.call('POST', `${P}/members`, { body: { userId: u.userId, role } });
    }
    for (const u of [viewer, outsider]) {
      expect((await t.call('GET', E, { key: u.key })).status).toBe(200);
      expect((await t.call('GET', `${E}/staging`, { key: u.key })).status).toBe(200);
      expect((await t.call('POST', E, { key: u.key, body: { name: 'qa' } })).status).toBe(403);
      expect((await patch('staging', { A: 'b' }, u.key)).status).toBe(403);
      expect((await t.call('DELETE', `${E}/staging`, { key: u.key })).status).toBe(403);
      const promote = { source: 'staging', target: 'production' };
      expect((await t.call('POST', `${E}/promote`, { key: u.key, body: promote })).status).toBe(403);
    }
    expect(await envCount()).toBe(3);
    expect((await t.call('GET', `${E}/staging`)).body.config).toEqual({});
    for (const [u, name] of [
      [dev, 'qa-dev'],
      [pAdmin, 'qa-admin'],
      [admin, 'qa-org-admin'],
    ] as const) {
      expect((await t.call('POST', E, { key: u.key, body: { name } })).status).toBe(201);
      expect((await patch(name, { A: 'b' }, u.key)).status).toBe(200);
      const promote = { source: name, target: 'staging' };
      expect((await t.call('POST', `${E}/promote`, { key: u.key, body: promote })).status).toBe(200);
      expect((await t.call('DELETE', `${E}/${name}`, { key: u.key })).status).toBe(204);
    }
    // A developer's rights stop at the project's edge.
    await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Two' } });
    const r = await t.call('POST', '/projects/proj_0002/environments', { key: dev.key, body: { name: 'qa' } });
    expect(r.status).toBe(403);
    // Keys narrowed by permissions.
    const readOnly = await t.keyFor(t.ownerId, { permissions: ['resources:read'] });
    expect((await t.call('GET', E, { key: readOnly })).status).toBe(200);
    expect((await t.call('POST', E, { key: readOnly, body: { name: 'qa' } })).status).toBe(403);
    const noRead = await t.keyFor(t.ownerId, { permissions: ['projects:read'] });
    expect((await t.call('GET', E, { key: noRead })).status).toBe(403);
    expect((await t.call('GET', `${E}/staging`, { key: noRead })).status).toBe(403);
  });

  it('hides projects from keys restricted to others, and from other organizations (404)', async () => {
    const restricted = await t.keyFor(t.ownerId, { projectIds: ['proj_0009'] });
    const other = await t.otherOrg();
    for (const key of [restricted, other.key]) {
      expect((await t.call('GET', E, { key })).status).toBe(404);
      expect((await t.call('GET', `${E}/staging`, { key })).status).toBe(404);
      expect((await t.call('POST', E, { key, body: { name: 'qa' } })).status).toBe(404);
      expect((await patch('staging', { A: 'b' }, key)).status).toBe(404);
      expect((await t.call('DELETE', `${E}/staging`, { key })).status).toBe(404);
      const promote = { source: 'staging', target: 'production' };
      expect((await t.call('POST', `${E}/promote`, { key, body: promote })).status).toBe(404);
    }
    expect(await envCount()).toBe(3);
    const allowed = await t.keyFor(t.ownerId, { projectIds: ['proj_0001'] });
    expect((await t.call('POST', E, { key: allowed, body: { name: 'qa' } })).status).toBe(201);
  });

  it('refuses a config key named __proto__ with 422, changing nothing and polluting nothing', async () => {
    await patch('staging', { A: 'b' });
    const r = await t.call('PATCH', `${E}/staging`, { body: '{"config":{"__proto__":{"polluted":"yes"},"B":"c"}}' });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { field: 'config.__proto__', message: '"__proto__" cannot be used as a key' },
    ]);
    expect((await t.call('GET', `${E}/staging`)).body.config).toEqual({ A: 'b' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
