import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dbRun } from '../helpers/db.js';
import { sqlOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';

describe('conventions (docs/api.md, "Conventions" and "Errors")', () => {
  it('echoes a valid X-Request-Id and generates one otherwise', async () => {
    const t = await testPlatform();
    const mine = await t.call('GET', `/users/${t.ownerId}`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const generated = await t.call('GET', `/users/${t.ownerId}`, { headers: { 'X-Request-Id': 'x'.repeat(201) } });
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    const err = await t.call('GET', '/users/user_nope');
    expect(err.body.error.requestId).toBe(err.headers.get('x-request-id'));
  });

  it('requires credentials, and refuses both kinds at once', async () => {
    const t = await testPlatform();
    const none = await t.call('GET', `/users/${t.ownerId}`, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 'authentication_failed', status: 401 });
    const both = await t.call('GET', `/users/${t.ownerId}`, { headers: { Authorization: 'Bearer abc' } });
    expect(both.status).toBe(400);
    const oneOff = t.ownerKey.slice(0, -1) + (t.ownerKey.endsWith('X') ? 'Y' : 'X');
    for (const key of ['nope', oneOff, `plat_live_${'A'.repeat(38)}`]) {
      const r = await t.call('GET', `/users/${t.ownerId}`, { key });
      expect(r.status, key).toBe(401);
      expect(JSON.stringify(r.body)).not.toContain(t.ownerKey);
    }
  });

  it('refuses a key of the other mode with a message saying so', async () => {
    const t = await testPlatform();
    const testKey = await t.keyFor(t.ownerId, { environment: 'test' });
    const r = await t.call('GET', `/users/${t.ownerId}`, { key: testKey });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain('live instance');
  });

  it('serves health and the OpenAPI document without credentials', async () => {
    const t = await testPlatform();
    const health = await t.call('GET', '/health', { key: null });
    // The version of the package, as `plat --version` reports it.
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(health.body).toEqual({ status: 'ok', version, mode: 'live' });
    const doc = await t.call('GET', '/openapi.json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const op = doc.body.paths['/organizations/{orgId}/users'].get;
    expect(op['x-permission']).toBe('users:read');
    expect(op.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['orgId', 'page', 'per_page', 'cursor', 'limit', 'status', 'search', 'sort', 'order']),
    );
    expect(doc.body.components.schemas.User.required).toContain('lastLoginAt');
  });

  it('answers 404 for unknown routes and 405 with Allow for a wrong method', async () => {
    const t = await testPlatform();
    const unknown = await t.call('GET', '/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const wrong = await t.call('PUT', `/users/${t.ownerId}`, { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_request', status: 405 });
    expect(wrong.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  it('treats a malformed identifier as not found', async () => {
    const t = await testPlatform();
    expect((await t.call('GET', '/users/not-an-id')).status).toBe(404);
    expect((await t.call('GET', `/organizations/${`org_${'a'.repeat(200)}`}/users`)).status).toBe(404);
  });

  it('rejects bodies over 1 MiB with 413 and the envelope', async () => {
    const t = await testPlatform();
    const r = await t.call('PATCH', `/users/${t.ownerId}`, { body: { name: 'x'.repeat(1024 * 1024 + 10) } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('hides internal errors behind a 500 without a stack or SQL', async () => {
    const t = await testPlatform();
    // PostgreSQL refuses to drop a table another's foreign key names (event_projects) unless told to drop that too.
    await dbRun(
      t.platform,
      sqlOf(t.platform).dialect === 'postgres' ? 'DROP TABLE events CASCADE' : 'DROP TABLE events',
    );
    const r = await t.call('PATCH', `/users/${t.ownerId}`, { body: { name: 'x' } });
    expect(r.status).toBe(500);
    expect(r.body.error).toMatchObject({ code: 'internal_error', message: 'internal error', status: 500 });
    expect(JSON.stringify(r.body)).not.toMatch(/events|sqlite|at .*\.ts/i);
  });
});

describe('inputs that once slipped through', () => {
  it('refuses control characters in a search with 400 instead of failing in SQLite', async () => {
    const t = await testPlatform();
    for (const search of ['ab%00', '%00%00%00', 'x%1Fy']) {
      const r = await t.call('GET', `/organizations/${t.orgId}/users?search=${search}`);
      expect(r.status, search).toBe(400);
      expect(r.body.error.details).toEqual([{ field: 'search', message: 'must not contain control characters' }]);
      expect((await t.call('GET', `/organizations/${t.orgId}/projects?search=${search}`)).status).toBe(400);
    }
  });

  it('refuses a "__proto__" key anywhere in a body with 422 instead of dropping it', async () => {
    const t = await testPlatform();
    const r = await t.call('PATCH', `/users/${t.ownerId}`, { body: '{"metadata":{"__proto__":"x","ok":"y"}}' });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { field: 'metadata.__proto__', message: '"__proto__" cannot be used as a key' },
    ]);
    expect((await t.call('GET', `/users/${t.ownerId}`)).body.metadata).toEqual({});
  });
});
