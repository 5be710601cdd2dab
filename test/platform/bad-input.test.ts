import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../src/contract/errors.js';
import { sqlOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';
import { bearer, createSession, sessionBearer } from '../helpers/sessions.js';
import { API_ROUTES, buildFixture, exampleBody, type Fixture, pathFor, routeKey } from '../helpers/tour.js';

const WRITE_ROUTES = API_ROUTES.filter((r) => r.body);

/** The owner's sign-in session, for the routes only a user's token may call (enrolling a factor). */
let ownerSession = '';

async function setup(): Promise<{ t: TestPlatform; f: Fixture; changes: () => number }> {
  const t = await testPlatform({ bearer: sessionBearer });
  const f = await buildFixture((m, p, o) => t.call(m, p, o), t, t.orgId, t.ownerId, 'ours');
  ownerSession = await createSession(t, t.ownerId);
  await t.call('GET', `/users/${t.ownerId}`); // settles the key's lastUsedAt write
  const changes = () => sqlOf(t.platform).writes();
  return { t, f, changes };
}

/** Calls a route as the owner: with the owner's key, or the owner's access token where only a user's token may. */
function callAs(
  t: TestPlatform,
  route: (typeof WRITE_ROUTES)[number],
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> },
) {
  if (route.access !== 'user') return t.call(route.method, path, opts);
  const token = bearer(ownerSession);
  return t.call(route.method, path, { ...opts, key: null, headers: { ...opts.headers, ...token.headers } });
}

/** A body that is not what the route takes: random JSON, or the example with one field broken or added. */
function badBodies(example: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(example);
  const weird = fc.oneof(
    fc.string({ maxLength: 5 }),
    fc.string({ minLength: 3000, maxLength: 3000 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.jsonValue(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  );
  return fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue(), { maxKeys: 5 }),
    fc
      .record({ field: fc.constantFrom(...fields), value: weird })
      .map(({ field, value }) => ({ ...example, [field]: value })),
    fc
      .record({ field: fc.string({ minLength: 1, maxLength: 20 }), value: fc.jsonValue() })
      .filter(({ field }) => !fields.includes(field) && field !== '__proto__')
      .map(({ field, value }) => ({ ...example, [field]: value })),
  );
}

describe('bad input on every write route', () => {
  it('covers every route that takes a body: every write but the state moves, which take none', () => {
    // A write route whose body went undeclared would escape every test below: the ones without are named here.
    const bodiless = API_ROUTES.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.body).map(routeKey);
    expect(bodiless.sort()).toEqual(
      [
        'POST /users/{userId}/suspend',
        'POST /users/{userId}/unsuspend',
        'POST /invitations/{invitationId}/resend',
        'POST /projects/{projectId}/archive',
        'POST /projects/{projectId}/unarchive',
        'POST /projects/{projectId}/suspend',
        'POST /projects/{projectId}/resume',
        'POST /organizations/{orgId}/sso/refresh',
        'POST /organizations/{orgId}/sso/tests',
        'POST /domains/{domainId}/verify',
        'POST /webhooks/{webhookId}/rotate-secret',
        'POST /webhooks/{webhookId}/test',
        'POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry',
        'POST /auth/mfa/recovery-codes',
      ].sort(),
    );
    expect(WRITE_ROUTES.every((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))).toBe(true);
  });

  it('answers malformed JSON, a wrong content type and a missing body with 400, writing nothing', async () => {
    const { t, f, changes } = await setup();
    for (const route of WRITE_ROUTES) {
      const path = pathFor(route, f);
      const body = JSON.stringify(exampleBody(route, f));
      const before = changes();
      const cases: [string, { body?: unknown; headers?: Record<string, string> }][] = [
        ['malformed JSON', { body: '{"name": ' }],
        ['truncated', { body: body.slice(0, -1) }],
        ['text/plain', { body, headers: { 'Content-Type': 'text/plain' } }],
        ['form', { body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }],
        ['empty', { body: '' }],
        ['array', { body: '[1,2]' }],
        ['string', { body: '"x"' }],
      ];
      for (const [label, opts] of cases) {
        const r = await callAs(t, route, path, opts);
        expect(r.status, `${routeKey(route)} ${label}`).toBe(400);
        expect(errorBodySchema.safeParse(r.body).success).toBe(true);
        expect(r.body.error.code).toBe('invalid_request');
      }
      expect(changes(), routeKey(route)).toBe(before);
    }
  });

  it('answers generated bad bodies with a 4xx envelope, never a 500, and writes nothing when refusing', async () => {
    const { t, f, changes } = await setup();
    for (const route of WRITE_ROUTES) {
      const example = exampleBody(route, f) as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(badBodies(example), async (body) => {
          const before = changes();
          const r = await callAs(t, route, pathFor(route, f), { body: JSON.stringify(body) });
          expect(r.status, `${routeKey(route)} ${JSON.stringify(body)?.slice(0, 200)}`).toBeLessThan(500);
          if (r.status >= 400) {
            expect([400, 404, 409, 413, 422]).toContain(r.status);
            expect(errorBodySchema.safeParse(r.body).success).toBe(true);
            expect(changes()).toBe(before);
          }
        }),
        { numRuns: 40, seed: 20261121 },
      );
    }
  });

  it('rejects an unknown field with 422 naming it, and a huge string with 422', async () => {
    const { t, f, changes } = await setup();
    for (const route of WRITE_ROUTES) {
      const example = exampleBody(route, f) as Record<string, unknown>;
      const before = changes();
      const unknown = await callAs(t, route, pathFor(route, f), { body: { ...example, surprise: 1 } });
      expect(unknown.status, routeKey(route)).toBe(422);
      expect(unknown.body.error.details).toContainEqual({ field: 'surprise', message: 'unknown field' });
      const stringField = Object.entries(example).find(([, v]) => typeof v === 'string')?.[0];
      if (stringField) {
        const huge = await callAs(t, route, pathFor(route, f), {
          body: { ...example, [stringField]: 'x'.repeat(300_000) },
        });
        expect(huge.status, `${routeKey(route)} huge ${stringField}`).toBe(422);
      }
      expect(changes()).toBe(before);
    }
  });

  it('refuses text holding a NUL or half a surrogate pair (neither backend keeps it as sent) with 422', async () => {
    const { t, f, changes } = await setup();
    const named = WRITE_ROUTES.filter((r) => 'name' in (exampleBody(r, f) as Record<string, unknown>));
    for (const route of named) {
      const example = exampleBody(route, f) as Record<string, unknown>;
      const before = changes();
      for (const name of ['Ada\u0000Lovelace', 'Ada \ud83d', '\udca9 Ada']) {
        const r = await callAs(t, route, pathFor(route, f), { body: { ...example, name } });
        expect(r.status, `${routeKey(route)} ${JSON.stringify(name)}`).toBe(422);
        expect(r.body.error.details).toEqual([
          { field: 'name', message: 'text cannot hold a NUL character (\\u0000) or half of a UTF-16 surrogate pair' },
        ]);
      }
      expect(changes(), routeKey(route)).toBe(before);
    }
  });

  it('refuses a name made only of invisible characters (controls, zero-width, bidi overrides) with 422', async () => {
    const { t, f, changes } = await setup();
    const invisible = [
      '\u200b',
      '\u202e\u202d',
      '\u0001\u0007',
      '\u2066\u2069\ufeff',
      ' \u200d\u200c ',
      '\u0301',
      '\u3164',
    ];
    const named = WRITE_ROUTES.filter((r) => 'name' in (exampleBody(r, f) as Record<string, unknown>));
    expect(named.map(routeKey)).toEqual(expect.arrayContaining(['POST /organizations', 'PATCH /users/{userId}']));
    for (const route of named) {
      const example = exampleBody(route, f) as Record<string, unknown>;
      const before = changes();
      for (const name of invisible) {
        const r = await callAs(t, route, pathFor(route, f), { body: { ...example, name } });
        expect(r.status, `${routeKey(route)} ${JSON.stringify(name)}`).toBe(422);
        // Environment names are slugs, refused by their own rule; every other name by this one.
        const message = route.path.endsWith('/environments') ? expect.any(String) : 'must contain a visible character';
        expect(r.body.error.details).toEqual([{ field: 'name', message }]);
      }
      expect(changes(), routeKey(route)).toBe(before);
    }
    // A name with such characters among visible ones is still a name.
    const ok = await t.call('POST', '/organizations', { body: { name: 'Acme\u200b Labs' } });
    expect(ok.status).toBe(201);
  });
});
