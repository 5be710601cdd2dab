import { describe, expect, it } from 'vitest';
import { ORG_ROLE_PERMISSIONS, PERMISSIONS, type Permission } from '../../src/contract/permissions.js';
import type { RouteDef } from '../../src/platform/http/route.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import { baseOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';
import { bearer, createSession, sessionBearer } from '../helpers/sessions.js';
import { API_ROUTES, buildFixture, exampleBody, type Fixture, pathFor, routeKey } from '../helpers/tour.js';

// The permission each endpoint declares (src/contract/endpoints/) is what the request pipeline enforces, before it
// reads anything for the request: route by route, a key of the owner holding every permission but that one is refused
// — for an existing resource and a missing one alike — and a key holding only that one is served. The matrix caught
// `POST /organizations` declared for any credential while it checks `org:write`.

async function world() {
  const t = await testPlatform({ bearer: sessionBearer });
  const fixture = await buildFixture((m, p, o) => t.call(m, p, o), t, t.orgId, t.ownerId, 'perm');
  // The platform's own count of rows written (what a batch checks to tell whether an item wrote).
  const base = baseOf(t.platform);
  const changes = () => base.writes();
  return { t, fixture, changes };
}

type T = Awaited<ReturnType<typeof testPlatform>>;

function call(t: T, route: RouteDef, f: Fixture, key: string | null, body: unknown) {
  return t.call(route.method, pathFor(route, f), { key, body });
}

/** The fixture's (invited) member made active: an organization sees the factors of its active members only. */
async function activeMember(t: T, f: Fixture): Promise<void> {
  const base = baseOf(t.platform);
  const user = await base.stores.users.get(f.orgId, f.userId);
  if (user) await base.stores.users.update(f.orgId, { ...user, status: 'active' });
}

/** What a route needs beyond the fixture to succeed: the state its move starts from. */
const PRECONDITIONS: Record<string, (t: T, f: Fixture) => Promise<unknown>> = {
  'GET /users/{userId}/mfa': activeMember,
  'DELETE /users/{userId}/mfa/{factorId}': activeMember,
  'POST /users/{userId}/unsuspend': (t, f) => t.call('POST', `/users/${f.userId}/suspend`),
  'POST /projects/{projectId}/unarchive': (t, f) => t.call('POST', `/projects/${f.projectId}/archive`),
  'POST /projects/{projectId}/resume': (t, f) => t.call('POST', `/projects/${f.projectId}/suspend`),
};

/** Bodies for a key holding the one permission, where the example asks for more (a key grants only what it holds). */
const BODIES_WITH_ONLY: Record<string, unknown> = {
  'POST /organizations/{orgId}/api-keys': { name: 'ci', environment: 'live', permissions: ['keys:write'] },
};

const declared = (route: RouteDef) => route.access as Permission;
const MEMBER_HOLDS = new Set<string>(ORG_ROLE_PERMISSIONS.member);
const withPermission = API_ROUTES.filter((r) => (PERMISSIONS as readonly string[]).includes(r.access));

describe('permission matrix (every route of the contract)', () => {
  it('declares for every route a permission, any credential, or public', () => {
    for (const route of ROUTES) {
      expect(['public', 'authenticated', 'user', 'scim', ...PERMISSIONS], routeKey(route)).toContain(route.access);
      expect(route.kind === 'public', routeKey(route)).toBe(route.access === 'public');
      expect(route.kind === 'scim', routeKey(route)).toBe(route.access === 'scim');
    }
  });

  it.each(withPermission.map((r) => [routeKey(r), r] as const))(
    '%s: refused without its permission, changing nothing; served with it alone',
    async (_name, route) => {
      const { t, fixture, changes } = await world();
      await PRECONDITIONS[routeKey(route)]?.(t, fixture);
      // Multi-organization keys, as creating an organization asks (single-organization ones: tenancy.test.ts).
      const keyWith = (permissions: Permission[]) => t.keyFor(t.ownerId, { permissions, multiOrganization: true });
      const without = await keyWith(PERMISSIONS.filter((p) => p !== declared(route)));
      // With what the declaration also asks (`alsoRequires`), and nothing else.
      const only = await keyWith([declared(route), ...(route.alsoRequires ?? [])]);
      // Each key's first use records it; after that a refused call writes nothing.
      for (const key of [without, only]) expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(200);

      const before = changes();
      const refused = await call(t, route, fixture, without, exampleBody(route, fixture));
      // Refused for lacking that very permission (the key may see the organization, so nothing is hidden by a 404).
      expect(refused.status, `${routeKey(route)} without ${route.access}: ${JSON.stringify(refused.body)}`).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_permissions');
      expect(refused.body.error.message).toContain(`requires the ${route.access} permission`);
      expect(changes(), `${routeKey(route)} refused but wrote`).toBe(before);

      const served = await call(
        t,
        route,
        fixture,
        only,
        BODIES_WITH_ONLY[routeKey(route)] ?? exampleBody(route, fixture),
      );
      expect(served.status, `${routeKey(route)} with ${route.access} only: ${JSON.stringify(served.body)}`).toBe(
        route.status ?? 200,
      );
    },
  );

  it.each(withPermission.filter((r) => r.alsoRequires).map((r) => [routeKey(r), r] as const))(
    '%s: refused without what it also requires, changing nothing',
    async (_name, route) => {
      const { t, fixture, changes } = await world();
      await PRECONDITIONS[routeKey(route)]?.(t, fixture);
      const also = route.alsoRequires ?? [];
      const key = await t.keyFor(t.ownerId, {
        permissions: PERMISSIONS.filter((p) => !also.includes(p)),
        multiOrganization: true,
      });
      expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(200);
      const before = changes();
      const refused = await call(t, route, fixture, key, exampleBody(route, fixture));
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body.error.message).toContain(`requires the ${also[0]} permission`);
      expect(changes(), `${routeKey(route)} refused but wrote`).toBe(before);
    },
  );

  /** The route's path with the resource it names (its last parameter but the organization) swapped for a missing one. */
  const missingPath = (route: RouteDef, f: Fixture) => {
    const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).filter((n) => n !== 'orgId');
    const last = names.at(-1) as string;
    const present = pathFor(route, f);
    const value = { ...f, name: f.envName, testId: f.ssoTestId, tokenId: f.scimTokenId }[
      last as keyof Fixture
    ] as string;
    const missing = last === 'name' ? 'no-such-environment' : `${value.split('_')[0]}_${'9'.repeat(20)}`;
    return present.replace(encodeURIComponent(value), missing);
  };
  const namesResource = (r: RouteDef) => /\{(?!orgId\})[^}]+\}/.test(r.path);

  it.each(withPermission.filter(namesResource).map((r) => [routeKey(r), r] as const))(
    '%s: 403 before any read, for an existing resource and a missing one alike',
    async (_name, route) => {
      const { t, fixture } = await world();
      const key = await t.keyFor(t.ownerId, { permissions: PERMISSIONS.filter((p) => p !== declared(route)) });
      const answers = [];
      for (const path of [pathFor(route, fixture), missingPath(route, fixture)]) {
        const r = await t.call(route.method, path, { key, body: exampleBody(route, fixture) });
        answers.push({ status: r.status, code: r.body.error?.code, message: r.body.error?.message });
      }
      expect(answers[1], routeKey(route)).toEqual(answers[0]);
      expect(answers[0]?.status, routeKey(route)).toBe(403);
    },
  );

  // Routes for a user's own sign-in refuse every key, restricted or not (the test below).
  const changesOrganization = (r: RouteDef) =>
    r.method !== 'GET' && !r.path.includes('{projectId}') && r.access !== 'user';

  it('refuses a key restricted to a project every change of the organization (403 before any read), nothing written', async () => {
    const { t, fixture, changes } = await world();
    // The owner's key, every permission, restricted to the fixture's project: what the black-box probe used.
    const key = await t.keyFor(t.ownerId, { projectIds: [fixture.projectId] });
    expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(200);
    const routes = API_ROUTES.filter(changesOrganization);
    // Users, invitations, teams, keys, SSO, sessions, creating a project or an organization, the organization itself:
    // named here too, so that the rule above is held against what the contract lists, not only against itself.
    expect(routes.map(routeKey)).toEqual(
      expect.arrayContaining([
        'POST /organizations',
        'PATCH /organizations/{orgId}',
        'POST /organizations/{orgId}/users',
        'PATCH /users/{userId}',
        'DELETE /invitations/{invitationId}',
        'POST /organizations/{orgId}/teams',
        'POST /teams/{teamId}/members',
        'POST /organizations/{orgId}/api-keys',
        'DELETE /api-keys/{keyId}',
        'PUT /organizations/{orgId}/sso',
        'POST /organizations/{orgId}/sso/tests',
        'DELETE /users/{userId}/sessions',
        'POST /organizations/{orgId}/projects',
      ]),
    );
    expect(routes.length).toBeGreaterThan(20);
    const before = changes();
    for (const route of routes) {
      const paths = namesResource(route)
        ? [pathFor(route, fixture), missingPath(route, fixture)]
        : [pathFor(route, fixture)];
      for (const path of paths) {
        const r = await t.call(route.method, path, { key, body: exampleBody(route, fixture) });
        expect(r.status, `${routeKey(route)} at ${path}: ${JSON.stringify(r.body)}`).toBe(403);
        expect(r.body.error.message).toMatch(/restricted to some projects/);
      }
    }
    expect(changes()).toBe(before);
  });

  it('serves a key restricted to a project the changes inside it and the reads its permissions allow', async () => {
    const { t, fixture } = await world();
    const key = await t.keyFor(t.ownerId, { projectIds: [fixture.projectId] });
    for (const route of API_ROUTES.filter((r) => r.method === 'GET' && !r.path.includes('{projectId}'))) {
      await PRECONDITIONS[routeKey(route)]?.(t, fixture);
      const r = await call(t, route, fixture, key, undefined);
      expect(r.status, `${routeKey(route)}: ${JSON.stringify(r.body)}`).toBe(200);
    }
    const renamed = await t.call('PATCH', `/projects/${fixture.projectId}`, { key, body: { name: 'Renamed by CI' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const env = await t.call('POST', `/projects/${fixture.projectId}/environments`, { key, body: { name: 'qa' } });
    expect(env.status, JSON.stringify(env.body)).toBe(201);
  });

  it('refuses an organization member 403 for what their role lacks, whether the resource exists or not', async () => {
    const { t, fixture, changes } = await world();
    const member = await t.addUser({ email: 'plain-member@example.test', role: 'member' });
    await t.call('GET', '/auth/whoami', { key: member.key }); // settles the key's lastUsedAt write
    // Routes the member role does not hold, of every scope: the organization's; a project's, where the member has no
    // role (the fixture's project); another user's own records (the fixture's user). The missing resource is the
    // path's last (a project, an environment, a user, a session…); the tests below take a missing project and user.
    const beyond = withPermission.filter(
      (r) => namesResource(r) && (r.scope ?? 'organization') !== 'credential' && !MEMBER_HOLDS.has(declared(r)),
    );
    expect(beyond.length).toBeGreaterThan(10);
    for (const scope of ['organization', 'project', 'self']) {
      expect(
        beyond.some((r) => (r.scope ?? 'organization') === scope),
        scope,
      ).toBe(true);
    }
    const before = changes();
    for (const route of beyond) {
      const answers = [];
      for (const path of [pathFor(route, fixture), missingPath(route, fixture)]) {
        const r = await t.call(route.method, path, { key: member.key, body: exampleBody(route, fixture) });
        answers.push({ status: r.status, message: r.body.error?.message });
      }
      expect(answers[0]?.status, `${routeKey(route)}: ${answers[0]?.message}`).toBe(403);
      expect(answers[1], routeKey(route)).toEqual(answers[0]);
    }
    expect(changes()).toBe(before);
  });

  it("grants a member what their project role holds in that project alone; an admin a missing project's 404", async () => {
    const { t, fixture } = await world();
    const dev = await t.addUser({ email: 'project-dev@example.test', role: 'member' });
    const added = await t.call('POST', `/projects/${fixture.projectId}/members`, {
      body: { userId: dev.userId, role: 'developer' },
    });
    expect(added.status).toBe(201);
    const other = await t.call('POST', `/organizations/${t.orgId}/projects`, { body: { name: 'Elsewhere' } });
    expect(other.status).toBe(201);
    const envIn = (projectId: string) =>
      t.call('POST', `/projects/${projectId}/environments`, { key: dev.key, body: { name: 'qa' } });
    expect((await envIn(fixture.projectId)).status).toBe(201);
    const outside = await envIn(other.body.id);
    expect(outside.status).toBe(403);
    expect(outside.body.error.message).toBe('this operation requires the resources:write permission on this project');
    const nowhere = await envIn('proj_99999999999999999999');
    expect([nowhere.status, nowhere.body.error.message]).toEqual([403, outside.body.error.message]);
    // What the developer role lacks (the project's own settings) is refused in their project too.
    const rename = await t.call('PATCH', `/projects/${fixture.projectId}`, { key: dev.key, body: { name: 'X' } });
    expect(rename.status).toBe(403);
    // Where the organization role holds the permission, nothing is read first: a missing project is 404.
    const missing = await t.call('PATCH', '/projects/proj_99999999999999999999', { body: { name: 'X' } });
    expect(missing.status).toBe(404);
  });

  it("lets anyone read and revoke their own sessions, and refuses a member another user's before reading", async () => {
    const { t, fixture } = await world();
    const member = await t.addUser({ email: 'own-sessions@example.test', role: 'member' });
    const own = await t.call('GET', `/users/${member.userId}/sessions`, { key: member.key });
    expect(own.status).toBe(200);
    const revokeOwn = await t.call('DELETE', `/users/${member.userId}/sessions`, { key: member.key });
    expect(revokeOwn.status).toBe(200);
    for (const userId of [fixture.userId, 'user_99999999999999999999']) {
      const r = await t.call('GET', `/users/${userId}/sessions`, { key: member.key });
      expect(r.status).toBe(403);
      expect(r.body.error.message).toBe('this operation requires the sessions:read permission');
    }
  });

  it('serves the routes for any credential to a key holding a single unrelated permission', async () => {
    const { t, fixture } = await world();
    const key = await t.keyFor(t.ownerId, { permissions: ['events:read'] });
    const anyCredential = API_ROUTES.filter((r) => r.access === 'authenticated');
    expect(anyCredential.length).toBeGreaterThan(0);
    for (const route of anyCredential) {
      const r = await call(t, route, fixture, key, exampleBody(route, fixture));
      expect(r.status, `${routeKey(route)}: ${JSON.stringify(r.body)}`).toBe(route.status ?? 200);
    }
  });

  it("refuses every API key on the routes of a user's own sign-in (403, nothing written), and serves a token", async () => {
    const { t, fixture, changes } = await world();
    const userRoutes = API_ROUTES.filter((r) => r.access === 'user');
    expect(userRoutes.map(routeKey).sort()).toEqual([
      'POST /auth/mfa/recovery-codes',
      'POST /auth/mfa/totp',
      'POST /auth/mfa/totp/{factorId}/verify',
    ]);
    const key = await t.keyFor(t.ownerId, { multiOrganization: true });
    await t.call('GET', '/auth/whoami', { key }); // settles the key's lastUsedAt write
    const before = changes();
    for (const route of userRoutes) {
      const r = await call(t, route, fixture, key, exampleBody(route, fixture));
      expect(r.status, routeKey(route)).toBe(403);
      expect(r.body.error.message).toMatch(/needs a user's sign-in/);
    }
    expect(changes()).toBe(before);
    const session = await createSession(t, t.ownerId);
    const enrolled = await t.call('POST', '/auth/mfa/totp', { ...bearer(session), body: { name: 'Phone' } });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
  });

  it('answers 401 to every authenticated route called without credentials, and never to a public one', async () => {
    const { t, fixture } = await world();
    for (const route of ROUTES) {
      const scimPath = route.path.replace('{id}', 'user_0001');
      const r = await call(
        t,
        { ...route, path: scimPath },
        fixture,
        null,
        route.kind === 'api' ? exampleBody(route, fixture) : undefined,
      );
      // A SCIM endpoint wants its organization's SCIM token (test/platform/scim.test.ts).
      if (route.kind === 'api' || route.kind === 'scim') expect(r.status, routeKey(route)).toBe(401);
      else expect(r.status, routeKey(route)).not.toBe(401);
    }
  });
});
