import { describe, expect, it } from 'vitest';
import { sqlOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';
import { bearer, createSession, sessionBearer } from '../helpers/sessions.js';
import { API_ROUTES, buildFixture, exampleBody, pathFor, routeKey } from '../helpers/tour.js';

describe('tenancy matrix', () => {
  it('answers 404 to every route called with another organization’s identifiers, and changes nothing', async () => {
    const t = await testPlatform({ bearer: sessionBearer });
    const other = await t.otherOrg();
    const theirs = await buildFixture(
      (m, p, o) => t.call(m, p, { ...o, key: other.key }),
      t,
      other.orgId,
      other.ownerId,
      'theirs',
    );
    // Our credentials: the owner's multi-organization key (not a member there) and a single-organization key.
    const keys = { multiOrg: t.ownerKey, single: await t.keyFor(t.ownerId) };
    for (const key of Object.values(keys)) await t.call('GET', `/users/${t.ownerId}`, { key });
    // Routes only a user's token may call (enrolling a factor) are tried with the owner's token instead.
    const token = bearer(await createSession(t, t.ownerId));
    const changes = () => sqlOf(t.platform).writes();
    const before = changes();
    const scoped = API_ROUTES.filter((r) => r.path.includes('{'));
    expect(scoped.length).toBeGreaterThan(30);
    for (const route of scoped) {
      const credentials = route.access === 'user' ? { token } : keys;
      for (const [name, credential] of Object.entries(credentials)) {
        const auth = typeof credential === 'string' ? { key: credential } : credential;
        const r = await t.call(route.method, pathFor(route, theirs), { ...auth, body: exampleBody(route, theirs) });
        expect(r.status, `${routeKey(route)} with the ${name} key: ${JSON.stringify(r.body)}`).toBe(404);
        expect(r.body.error.code).toBe('not_found');
        const text = JSON.stringify(r.body);
        for (const id of [theirs.userId, theirs.projectId, theirs.teamId, theirs.keyId]) expect(text).not.toContain(id);
      }
    }
    expect(changes()).toBe(before);
  });

  it('lets a multi-organization key reach the same routes once its owner is a member there', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    const theirs = await buildFixture(
      (m, p, o) => t.call(m, p, { ...o, key: other.key }),
      t,
      other.orgId,
      other.ownerId,
      'theirs',
    );
    await t.addUser({ email: 'owner@acme.test', orgId: other.orgId, role: 'owner' });
    const project = await t.call('GET', `/projects/${theirs.projectId}`, { headers: { 'X-Org-Id': other.orgId } });
    expect(project.status).toBe(200);
    const users = await t.call('GET', `/organizations/${other.orgId}/users`);
    expect(users.status).toBe(200);
    const single = await t.keyFor(t.ownerId);
    expect((await t.call('GET', `/organizations/${other.orgId}/users`, { key: single })).status).toBe(404);
    const header = await t.call('GET', `/projects/${theirs.projectId}`, {
      key: single,
      headers: { 'X-Org-Id': other.orgId },
    });
    expect(header.status).toBe(403);
  });
});
