import { describe, expect, it } from 'vitest';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const SECRET = 'oidc-client-secret-9f8e7d';

const SAML = {
  protocol: 'saml',
  provider: 'okta',
  enabled: true,
  metadataUrl: 'https://acme.okta.com/app/exk1/sso/saml/metadata',
  attributeMapping: { email: 'user.email', name: 'user.displayName' },
  domains: ['Acme.test', 'acme.test', 'eu.acme.test'],
};
const OIDC = {
  protocol: 'oidc',
  provider: 'custom-oidc',
  issuer: 'https://id.acme.test',
  clientId: 'plat-acme',
  clientSecret: SECRET,
  attributeMapping: { email: 'email' },
};

function path(t: TestPlatform) {
  return `/organizations/${t.orgId}/sso`;
}
function put(t: TestPlatform, body: unknown, key?: string) {
  return t.call('PUT', path(t), { body, key });
}
async function events(t: TestPlatform) {
  const r = await t.call('GET', `/organizations/${t.orgId}/events`);
  return r.body.data.filter((e: any) => e.type.startsWith('sso.'));
}

describe('GET /organizations/{orgId}/sso', () => {
  it('answers 404 while there is no configuration', async () => {
    const t = testPlatform();
    const r = await t.call('GET', path(t));
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', message: 'SSO configuration not found' });
  });

  it('is for owners and admins (sso:read); members get 403', async () => {
    const t = testPlatform();
    const admin = t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = t.addUser({ email: 'max@acme.test' });
    await put(t, SAML);
    const byAdmin = await t.call('GET', path(t), { key: admin.key });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.provider).toBe('okta');
    const byMember = await t.call('GET', path(t), { key: member.key });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.code).toBe('insufficient_permissions');
    const narrow = t.keyFor(t.ownerId, { permissions: ['org:read'] });
    expect((await t.call('GET', path(t), { key: narrow })).status).toBe(403);
  });

  it('tells a member nothing about whether single sign-on is configured: 403 either way', async () => {
    const t = testPlatform();
    const member = t.addUser({ email: 'max@acme.test' });
    expect((await t.call('GET', path(t), { key: member.key })).status).toBe(403);
    expect((await t.call('DELETE', path(t), { key: member.key })).status).toBe(403);
    await put(t, SAML);
    expect((await t.call('GET', path(t), { key: member.key })).status).toBe(403);
  });
});

describe('PUT /organizations/{orgId}/sso', () => {
  it('creates a SAML configuration: 200, every field, domains normalized, one event', async () => {
    const t = testPlatform();
    const r = await t.call('PUT', path(t), { body: SAML, headers: { 'X-Request-Id': 'sso-1' } });
    expect(r.status).toBe(200);
    const record = {
      organizationId: t.orgId,
      protocol: 'saml',
      provider: 'okta',
      enabled: true,
      metadataUrl: SAML.metadataUrl,
      metadataXml: null,
      issuer: null,
      clientId: null,
      clientSecretSet: false,
      attributeMapping: { email: 'user.email', name: 'user.displayName' },
      domains: ['acme.test', 'eu.acme.test'],
      createdAt: T0,
      updatedAt: T0,
    };
    expect(r.body).toEqual(record);
    expect((await t.call('GET', path(t))).body).toEqual(record);
    expect(await events(t)).toEqual([
      {
        id: 'evt_0002',
        type: 'sso.updated',
        organizationId: t.orgId,
        actor: { type: 'api_key', id: 'key_0001' },
        target: { type: 'organization', id: t.orgId },
        requestId: 'sso-1',
        createdAt: T0,
        data: { created: true, protocol: 'saml', provider: 'okta', enabled: true, clientSecretChanged: false },
      },
    ]);
  });

  it('takes uploaded metadata XML instead of a URL, disabled by default', async () => {
    const t = testPlatform();
    const { metadataUrl: _, enabled: __, ...rest } = SAML;
    const xml = '<EntityDescriptor entityID="https://idp.acme.test"/>';
    const r = await put(t, { ...rest, provider: 'custom-saml', metadataXml: xml, domains: undefined });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      provider: 'custom-saml',
      enabled: false,
      metadataUrl: null,
      metadataXml: xml,
      domains: [],
    });
  });

  it('keeps the OIDC client secret write-only: never in a response or an event', async () => {
    const t = testPlatform();
    const r = await put(t, OIDC);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      organizationId: t.orgId,
      protocol: 'oidc',
      provider: 'custom-oidc',
      enabled: false,
      metadataUrl: null,
      metadataXml: null,
      issuer: 'https://id.acme.test',
      clientId: 'plat-acme',
      clientSecretSet: true,
      attributeMapping: { email: 'email' },
      domains: [],
      createdAt: T0,
      updatedAt: T0,
    });
    const get = await t.call('GET', path(t));
    const log = await t.call('GET', `/organizations/${t.orgId}/events`);
    const table = JSON.stringify(t.platform.db.prepare('SELECT * FROM events').all());
    for (const text of [JSON.stringify(r.body), JSON.stringify(get.body), JSON.stringify(log.body), table]) {
      expect(text).not.toContain(SECRET);
    }
    expect(t.platform.base().stores.sso.clientSecret(t.orgId)).toBe(SECRET);
  });

  it('replaces the configuration, keeping createdAt, enabled when omitted, and a stored secret when omitted', async () => {
    const t = testPlatform();
    await put(t, { ...OIDC, enabled: true, domains: ['acme.test'] });
    t.clock.advance(60_000);
    const { clientSecret: _, ...noSecret } = OIDC;
    const r = await put(t, { ...noSecret, provider: 'okta', clientId: 'plat-acme-2' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      provider: 'okta',
      clientId: 'plat-acme-2',
      clientSecretSet: true,
      enabled: true,
      domains: [],
      createdAt: T0,
      updatedAt: '2026-01-01T00:01:00.000Z',
    });
    expect(t.platform.base().stores.sso.clientSecret(t.orgId)).toBe(SECRET);
    const rotated = await put(t, { ...OIDC, clientSecret: 'new-secret', enabled: false });
    expect(rotated.body).toMatchObject({ clientSecretSet: true, enabled: false });
    expect(t.platform.base().stores.sso.clientSecret(t.orgId)).toBe('new-secret');
    const [latest, middle, first] = await events(t);
    expect(first.data).toMatchObject({ created: true, clientSecretChanged: true });
    expect(middle.data).toMatchObject({ created: false, clientSecretChanged: false });
    expect(latest.data).toMatchObject({ created: false, clientSecretChanged: true, enabled: false });
  });

  it('drops the client secret when switching to SAML, and asks for one again when switching back', async () => {
    const t = testPlatform();
    await put(t, OIDC);
    const saml = await put(t, SAML);
    expect(saml.body).toMatchObject({ protocol: 'saml', clientSecretSet: false, issuer: null, clientId: null });
    expect(t.platform.base().stores.sso.clientSecret(t.orgId)).toBeNull();
    const { clientSecret: _, ...noSecret } = OIDC;
    const back = await put(t, noSecret);
    expect(back.status).toBe(422);
    expect(back.body.error.details).toEqual([{ field: 'clientSecret', message: 'required for the oidc protocol' }]);
  });

  it('enforces the consistency rules with 422 naming the field, writing nothing', async () => {
    const t = testPlatform();
    const { metadataUrl: _, ...samlNoMeta } = SAML;
    const cases: [Record<string, unknown>, string][] = [
      [{ ...SAML, provider: 'custom-oidc' }, 'protocol'],
      [{ ...OIDC, provider: 'custom-saml' }, 'protocol'],
      [samlNoMeta, 'metadataUrl'],
      [{ ...SAML, metadataXml: '<EntityDescriptor/>' }, 'metadataXml'],
      [{ ...SAML, issuer: 'https://id.acme.test' }, 'issuer'],
      [{ ...SAML, clientSecret: SECRET }, 'clientSecret'],
      [{ ...OIDC, issuer: undefined }, 'issuer'],
      [{ ...OIDC, clientId: undefined }, 'clientId'],
      [{ ...OIDC, clientSecret: undefined }, 'clientSecret'],
      [{ ...OIDC, metadataUrl: SAML.metadataUrl }, 'metadataUrl'],
    ];
    for (const [body, field] of cases) {
      const r = await put(t, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.map((d: any) => d.field)).toEqual([field]);
    }
    expect((await t.call('GET', path(t))).status).toBe(404);
    expect(await events(t)).toEqual([]);
    expect(JSON.stringify(t.platform.db.prepare('SELECT * FROM events').all())).not.toContain(SECRET);
  });

  it('answers 400 for a missing field or bad JSON and 422 for an invalid one', async () => {
    const t = testPlatform();
    const { protocol: _, ...noProtocol } = SAML;
    const { attributeMapping: __, ...noMapping } = SAML;
    const cases: [unknown, number, string?][] = [
      [noProtocol, 400],
      [noMapping, 400],
      ['not json', 400],
      [{ ...SAML, protocol: 'ldap' }, 422, 'protocol'],
      [{ ...SAML, provider: 'ping' }, 422, 'provider'],
      [{ ...SAML, attributeMapping: { name: 'displayName' } }, 422, 'attributeMapping'],
      [{ ...SAML, domains: ['not a domain'] }, 422, 'domains.0'],
      [{ ...SAML, metadataUrl: 'ftp://acme.test/metadata' }, 422, 'metadataUrl'],
      [{ ...SAML, enabled: 'yes' }, 422, 'enabled'],
      [{ ...OIDC, clientSecret: '' }, 422, 'clientSecret'],
      [{ ...SAML, certificate: 'x' }, 422, 'certificate'],
    ];
    for (const [body, status, field] of cases) {
      const r = await put(t, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (field) expect(r.body.error.details.map((d: any) => d.field)).toContain(field);
    }
    expect((await t.call('GET', path(t))).status).toBe(404);
  });

  it('is for owners only (sso:write): admins and members get 403, nothing changes', async () => {
    const t = testPlatform();
    const admin = t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = t.addUser({ email: 'max@acme.test' });
    for (const key of [admin.key, member.key, t.keyFor(t.ownerId, { permissions: ['sso:read'] })]) {
      const r = await put(t, SAML, key);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('insufficient_permissions');
    }
    expect((await t.call('GET', path(t))).status).toBe(404);
    const writer = t.keyFor(t.ownerId, { permissions: ['sso:write'] });
    expect((await put(t, SAML, writer)).status).toBe(200);
    expect((await put(t, OIDC, admin.key)).status).toBe(403);
    expect((await t.call('GET', path(t))).body.protocol).toBe('saml');
  });
});

describe('DELETE /organizations/{orgId}/sso', () => {
  it('deletes: 204, then 404; one event; a second delete is 404', async () => {
    const t = testPlatform();
    await put(t, OIDC);
    t.clock.advance(1000);
    const r = await t.call('DELETE', path(t), { headers: { 'X-Request-Id': 'sso-del' } });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.call('GET', path(t))).status).toBe(404);
    const [deleted] = await events(t);
    expect(deleted).toEqual({
      id: 'evt_0003',
      type: 'sso.deleted',
      organizationId: t.orgId,
      actor: { type: 'api_key', id: 'key_0001' },
      target: { type: 'organization', id: t.orgId },
      requestId: 'sso-del',
      createdAt: '2026-01-01T00:00:01.000Z',
      data: { protocol: 'oidc', provider: 'custom-oidc' },
    });
    expect((await t.call('DELETE', path(t))).status).toBe(404);
    expect(await events(t)).toHaveLength(2);
    // A new configuration after a delete is a new one again.
    const again = await put(t, SAML);
    expect(again.body.createdAt).toBe('2026-01-01T00:00:01.000Z');
  });

  it('is for owners only: admins get 403 and the configuration stays', async () => {
    const t = testPlatform();
    const admin = t.addUser({ email: 'ada@acme.test', role: 'admin' });
    await put(t, SAML);
    expect((await t.call('DELETE', path(t), { key: admin.key })).status).toBe(403);
    expect((await t.call('GET', path(t))).status).toBe(200);
  });
});

describe('tenancy', () => {
  it("never shows or touches another organization's configuration (404)", async () => {
    const t = testPlatform();
    const other = t.otherOrg();
    const theirs = `/organizations/${other.orgId}/sso`;
    expect((await t.call('PUT', theirs, { body: OIDC, key: other.key })).status).toBe(200);
    expect((await t.call('GET', path(t))).status).toBe(404);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', SAML],
      ['DELETE', undefined],
    ] as const) {
      const r = await t.call(method, theirs, { body });
      expect(r.status, method).toBe(404);
    }
    expect((await t.call('GET', theirs, { key: other.key })).body.protocol).toBe('oidc');
    expect((await t.call('PUT', path(t), { body: SAML, key: other.key })).status).toBe(404);
  });
});
