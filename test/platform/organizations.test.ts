import { describe, expect, it } from 'vitest';
import { testPlatform } from '../helpers/platform.js';

describe('organizations', () => {
  it('gets the organization, and lists those the credential can act in', async () => {
    const t = await testPlatform();
    const r = await t.call('GET', `/organizations/${t.orgId}`);
    expect(r.body).toEqual({
      id: t.orgId,
      name: 'Acme',
      slug: 'acme',
      plan: 'enterprise',
      mfa: 'optional',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect((await t.call('GET', '/organizations')).body).toEqual({ data: [r.body] });
  });

  it('creates an organization on free with the caller as owner, reachable with X-Org-Id', async () => {
    const t = await testPlatform();
    const r = await t.call('POST', '/organizations', { body: { name: 'Ácme Labs!' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v2/organizations/${r.body.id}`);
    expect(r.body).toMatchObject({ name: 'Ácme Labs!', slug: 'acme-labs', plan: 'free' });
    const dup = await t.call('POST', '/organizations', { body: { name: 'Acme' } });
    expect(dup.body.slug).toBe('acme-2');
    const me = await t.call('GET', `/users/${t.ownerId}`, { headers: { 'X-Org-Id': r.body.id } });
    expect(me.body).toMatchObject({ role: 'owner', status: 'active', email: 'owner@acme.test' });
    expect((await t.call('GET', '/organizations')).body.data.map((o: any) => o.slug)).toEqual([
      'acme',
      'acme-labs',
      'acme-2',
    ]);
  });

  it('refuses organization creation to single-organization keys', async () => {
    const t = await testPlatform();
    const single = await t.keyFor(t.ownerId);
    const r = await t.call('POST', '/organizations', { key: single, body: { name: 'Nope' } });
    expect(r.status).toBe(403);
    expect((await t.call('GET', '/organizations', { key: single })).body.data).toHaveLength(1);
  });

  it('renames for admins, changes plan for owners only', async () => {
    const t = await testPlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'mo@acme.test' });
    t.clock.advance(60_000);
    const renamed = await t.call('PATCH', `/organizations/${t.orgId}`, { key: admin.key, body: { name: 'Acme Inc' } });
    expect(renamed.body).toMatchObject({ name: 'Acme Inc', slug: 'acme', updatedAt: '2026-01-01T00:01:00.000Z' });
    expect(
      (await t.call('PATCH', `/organizations/${t.orgId}`, { key: admin.key, body: { plan: 'free' } })).status,
    ).toBe(403);
    expect((await t.call('PATCH', `/organizations/${t.orgId}`, { key: member.key, body: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await t.call('PATCH', `/organizations/${t.orgId}`, { body: { plan: 'pro' } })).body.plan).toBe('pro');
    expect((await t.call('PATCH', `/organizations/${t.orgId}`, { body: { plan: 'gold' } })).status).toBe(422);
  });

  it('answers 404 for another organization, and 403 for an X-Org-Id the credential cannot use', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    expect((await t.call('GET', `/organizations/${other.orgId}`)).status).toBe(404);
    expect((await t.call('PATCH', `/organizations/${other.orgId}`, { body: { name: 'x' } })).status).toBe(404);
    const r = await t.call('GET', `/organizations/${other.orgId}`, { headers: { 'X-Org-Id': other.orgId } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_permissions');
  });
});
