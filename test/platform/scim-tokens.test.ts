import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dbRows } from '../helpers/db.js';
import { testPlatform } from '../helpers/platform.js';

/** SCIM tokens (docs/scim.md): made by owners, the secret shown once and stored as its hash, revoked at once. */
describe('SCIM tokens', () => {
  it('answers the secret once, keeps only its hash, lists and reads the token without it; an event each', async () => {
    const t = await testPlatform();
    const path = `/organizations/${t.orgId}/scim/tokens`;
    const made = await t.call('POST', path, { body: { name: '  Okta  ' } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^scimtok_/),
      organizationId: t.orgId,
      name: 'Okta',
      token: expect.stringMatching(/^scim_[0-9A-Za-z]{43}$/),
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
    });
    expect(made.headers.get('location')).toBe(`/v2${path}/${made.body.id}`);
    const { token, ...shown } = made.body;
    expect((await t.call('GET', `${path}/${made.body.id}`)).body).toEqual(shown);
    expect((await t.call('GET', path)).body).toEqual({ data: [shown] });
    const stored = await dbRows(t.platform, 'SELECT token_hash FROM scim_tokens');
    expect(stored).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex') }]);
    expect(JSON.stringify(await dbRows(t.platform, 'SELECT * FROM events'))).not.toContain(token);
    expect((await t.call('DELETE', `${path}/${made.body.id}`)).status).toBe(204);
    expect((await t.call('GET', `${path}/${made.body.id}`)).status).toBe(404);
    expect((await t.call('DELETE', `${path}/${made.body.id}`)).status).toBe(404);
    const events = await t.call('GET', `/organizations/${t.orgId}/events`);
    expect(events.body.data.slice(0, 2).map((e: any) => [e.type, e.target, e.data])).toEqual([
      ['scim_token.deleted', { type: 'scim_token', id: made.body.id }, { name: 'Okta' }],
      ['scim_token.created', { type: 'scim_token', id: made.body.id }, { name: 'Okta' }],
    ]);
  });

  it('holds ten at most (409), refuses a blank name (422), and is for owners (admins 403 to create, may list)', async () => {
    const t = await testPlatform();
    const path = `/organizations/${t.orgId}/scim/tokens`;
    for (let i = 0; i < 10; i++) expect((await t.call('POST', path, { body: { name: `idp ${i}` } })).status).toBe(201);
    const over = await t.call('POST', path, { body: { name: 'one more' } });
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(/at most 10 SCIM tokens/);
    expect((await t.call('POST', path, { body: { name: '   ' } })).status).toBe(422);
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await t.call('POST', path, { body: { name: 'x' }, key: admin.key })).status).toBe(403);
    expect((await t.call('GET', path, { key: admin.key })).body.data).toHaveLength(10);
  });
});
