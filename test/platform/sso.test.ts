import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbRows } from '../helpers/db.js';
import {
  CERT_A,
  CERT_B,
  certificateRecord,
  type DocumentServer,
  discoveryDocument,
  documentServer,
  samlMetadata,
} from '../helpers/idp-documents.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const T0 = '2026-01-01T00:00:00.000Z';
const SECRET = 'oidc-client-secret-9f8e7d';

/** A real identity provider's documents on loopback: SAML metadata, and an OpenID provider's discovery document. */
let idp: DocumentServer;
let SAML: Record<string, any>;
let OIDC: Record<string, any>;
let IDP: { entityId: string; ssoUrl: string };
beforeAll(async () => {
  idp = await documentServer();
  IDP = { entityId: `${idp.url}/saml`, ssoUrl: `${idp.url}/saml/sso` };
  idp.serve('/saml/metadata', { body: samlMetadata({ ...IDP, certs: [CERT_A] }) });
  idp.serve('/oidc/.well-known/openid-configuration', { body: JSON.stringify(discoveryDocument(`${idp.url}/oidc`)) });
  SAML = {
    protocol: 'saml',
    provider: 'okta',
    enabled: true,
    metadataUrl: `${idp.url}/saml/metadata`,
    attributeMapping: { email: 'user.email', name: 'user.displayName' },
    domains: ['Acme.test', 'acme.test', 'eu.acme.test'],
  };
  OIDC = {
    protocol: 'oidc',
    provider: 'custom-oidc',
    issuer: `${idp.url}/oidc`,
    clientId: 'plat-acme',
    clientSecret: SECRET,
    attributeMapping: { email: 'email' },
  };
});
afterAll(() => idp.close());

/** The addresses the identity provider's administrator enters, under the test platform's public URL. */
function sp(t: TestPlatform) {
  return {
    spEntityId: `http://plat.test/v2/sso/saml/${t.orgId}`,
    spMetadataUrl: `http://plat.test/v2/sso/saml/${t.orgId}/metadata`,
    acsUrl: `http://plat.test/v2/sso/saml/${t.orgId}/acs`,
    redirectUri: `http://plat.test/v2/sso/oidc/${t.orgId}/callback`,
  };
}

/** A platform whose organization verified acme.test and eu.acme.test (as its operator vouches: docs/domains.md). */
async function acmePlatform(): Promise<TestPlatform> {
  const t = await testPlatform();
  for (const domain of ['acme.test', 'eu.acme.test']) await t.platform.admin.verifyDomain(t.orgId, domain);
  return t;
}

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
    const t = await acmePlatform();
    const r = await t.call('GET', path(t));
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', message: 'SSO configuration not found' });
  });

  it('is for owners and admins (sso:read); members get 403', async () => {
    const t = await acmePlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'max@acme.test' });
    await put(t, SAML);
    const byAdmin = await t.call('GET', path(t), { key: admin.key });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.provider).toBe('okta');
    const byMember = await t.call('GET', path(t), { key: member.key });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.code).toBe('insufficient_permissions');
    const narrow = await t.keyFor(t.ownerId, { permissions: ['org:read'] });
    expect((await t.call('GET', path(t), { key: narrow })).status).toBe(403);
  });

  it('tells a member nothing about whether single sign-on is configured: 403 either way', async () => {
    const t = await acmePlatform();
    const member = await t.addUser({ email: 'max@acme.test' });
    expect((await t.call('GET', path(t), { key: member.key })).status).toBe(403);
    expect((await t.call('DELETE', path(t), { key: member.key })).status).toBe(403);
    await put(t, SAML);
    expect((await t.call('GET', path(t), { key: member.key })).status).toBe(403);
  });
});

describe('PUT /organizations/{orgId}/sso', () => {
  it('creates a SAML configuration: 200, every field, domains normalized, one event', async () => {
    const t = await acmePlatform();
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
      allowIdpInitiated: false,
      defaultRole: 'member',
      ...sp(t),
      idpEntityId: IDP.entityId,
      idpSsoUrl: IDP.ssoUrl,
      certificates: [certificateRecord(CERT_A)],
      metadataFetchedAt: T0,
      createdAt: T0,
      updatedAt: T0,
    };
    expect(r.body).toEqual(record);
    expect((await t.call('GET', path(t))).body).toEqual(record);
    expect(await events(t)).toEqual([
      {
        id: 'evt_0004',
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
    const t = await acmePlatform();
    const { metadataUrl: _, enabled: __, ...rest } = SAML;
    const xml = samlMetadata({
      entityId: 'https://idp.acme.test',
      ssoUrl: 'https://idp.acme.test/sso',
      certs: [CERT_B, CERT_A],
    });
    const r = await put(t, { ...rest, provider: 'custom-saml', metadataXml: xml, domains: undefined });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      provider: 'custom-saml',
      enabled: false,
      metadataUrl: null,
      metadataXml: xml,
      domains: [],
      idpEntityId: 'https://idp.acme.test',
      idpSsoUrl: 'https://idp.acme.test/sso',
      certificates: [certificateRecord(CERT_B), certificateRecord(CERT_A)],
      metadataFetchedAt: null,
    });
  });

  it('keeps the OIDC client secret write-only: never in a response or an event', async () => {
    const t = await acmePlatform();
    const r = await put(t, OIDC);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      organizationId: t.orgId,
      protocol: 'oidc',
      provider: 'custom-oidc',
      enabled: false,
      metadataUrl: null,
      metadataXml: null,
      issuer: OIDC.issuer,
      clientId: 'plat-acme',
      clientSecretSet: true,
      attributeMapping: { email: 'email' },
      domains: [],
      allowIdpInitiated: false,
      defaultRole: 'member',
      ...sp(t),
      idpEntityId: null,
      idpSsoUrl: null,
      certificates: [],
      metadataFetchedAt: T0,
      createdAt: T0,
      updatedAt: T0,
    });
    const get = await t.call('GET', path(t));
    const log = await t.call('GET', `/organizations/${t.orgId}/events`);
    const table = JSON.stringify(await dbRows(t.platform, 'SELECT * FROM events'));
    for (const text of [JSON.stringify(r.body), JSON.stringify(get.body), JSON.stringify(log.body), table]) {
      expect(text).not.toContain(SECRET);
    }
    expect(await baseOf(t.platform).stores.sso.clientSecret(t.orgId)).toBe(SECRET);
  });

  it('replaces the configuration, keeping createdAt, enabled when omitted, and a stored secret when omitted', async () => {
    const t = await acmePlatform();
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
    expect(await baseOf(t.platform).stores.sso.clientSecret(t.orgId)).toBe(SECRET);
    const rotated = await put(t, { ...OIDC, clientSecret: 'new-secret', enabled: false });
    expect(rotated.body).toMatchObject({ clientSecretSet: true, enabled: false });
    expect(await baseOf(t.platform).stores.sso.clientSecret(t.orgId)).toBe('new-secret');
    const [latest, middle, first] = await events(t);
    expect(first.data).toMatchObject({ created: true, clientSecretChanged: true });
    expect(middle.data).toMatchObject({ created: false, clientSecretChanged: false });
    expect(latest.data).toMatchObject({ created: false, clientSecretChanged: true, enabled: false });
  });

  it('drops the client secret when switching to SAML, and asks for one again when switching back', async () => {
    const t = await acmePlatform();
    await put(t, OIDC);
    const saml = await put(t, SAML);
    expect(saml.body).toMatchObject({ protocol: 'saml', clientSecretSet: false, issuer: null, clientId: null });
    expect(await baseOf(t.platform).stores.sso.clientSecret(t.orgId)).toBeNull();
    const { clientSecret: _, ...noSecret } = OIDC;
    const back = await put(t, noSecret);
    expect(back.status).toBe(422);
    expect(back.body.error.details).toEqual([{ field: 'clientSecret', message: 'required for the oidc protocol' }]);
  });

  it('enforces the consistency rules with 422 naming the field, writing nothing', async () => {
    const t = await acmePlatform();
    const { metadataUrl: _, ...samlNoMeta } = SAML;
    const cases: [Record<string, unknown>, string][] = [
      // A custom provider fixes the protocol: the provider is what does not fit.
      [{ ...SAML, provider: 'custom-oidc' }, 'provider'],
      [{ ...OIDC, provider: 'custom-saml' }, 'provider'],
      [samlNoMeta, 'metadataUrl'],
      [{ ...SAML, metadataXml: '<EntityDescriptor/>' }, 'metadataXml'],
      [{ ...SAML, issuer: OIDC.issuer }, 'issuer'],
      [{ ...SAML, clientSecret: SECRET }, 'clientSecret'],
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
    expect(JSON.stringify(await dbRows(t.platform, 'SELECT * FROM events'))).not.toContain(SECRET);
  });

  it('answers 400 for a missing field or bad JSON and 422 for an invalid one', async () => {
    const t = await acmePlatform();
    const { protocol: _, ...noProtocol } = SAML;
    const { attributeMapping: __, ...noMapping } = SAML;
    const { issuer: ___, ...noIssuer } = OIDC;
    const { clientId: ____, ...noClientId } = OIDC;
    const cases: [unknown, number, string?][] = [
      [noProtocol, 400],
      [noMapping, 400],
      // OIDC's own required fields, as every required field.
      [noIssuer, 400],
      [noClientId, 400],
      ['not json', 400],
      [{ ...SAML, protocol: 'ldap' }, 422, 'protocol'],
      [{ ...SAML, provider: 'ping' }, 422, 'provider'],
      // `email` is a required field of the mapping.
      [{ ...SAML, attributeMapping: { name: 'displayName' } }, 400, 'attributeMapping.email'],
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
    const t = await acmePlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'max@acme.test' });
    for (const key of [admin.key, member.key, await t.keyFor(t.ownerId, { permissions: ['sso:read'] })]) {
      const r = await put(t, SAML, key);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('insufficient_permissions');
    }
    expect((await t.call('GET', path(t))).status).toBe(404);
    const writer = await t.keyFor(t.ownerId, { permissions: ['sso:write'] });
    expect((await put(t, SAML, writer)).status).toBe(200);
    expect((await put(t, OIDC, admin.key)).status).toBe(403);
    expect((await t.call('GET', path(t))).body.protocol).toBe('saml');
  });
});

describe('PUT /organizations/{orgId}/sso reads the identity provider at once (docs/sso.md)', () => {
  /** PUT, and the field and message of the one 422 it must answer; nothing may be saved. */
  async function refused(t: TestPlatform, body: Record<string, unknown>, field: string, message: string | RegExp) {
    const r = await put(t, body);
    expect(r.status, JSON.stringify(body).slice(0, 200)).toBe(422);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    expect((await t.call('GET', path(t))).status).toBe(404);
  }
  const literal = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

  it('refuses SAML metadata it cannot sign people in with, naming the field and the reason', async () => {
    const t = await acmePlatform();
    const { metadataUrl: _, ...rest } = SAML;
    const xml = (x: string) => ({ ...rest, metadataXml: x });
    const ok = { entityId: 'https://idp.test', ssoUrl: 'https://idp.test/sso' };
    const cases: [string, string][] = [
      ['<md:EntityDescriptor', 'the metadata is not well-formed XML'],
      ['<!DOCTYPE x [<!ENTITY a "b">]><x/>', 'the metadata must not contain a document type declaration (<!DOCTYPE>)'],
      ['<html><body>Sign in</body></html>', 'the metadata is not SAML 2.0 metadata (no md:EntityDescriptor)'],
      [
        samlMetadata(ok).replace(/IDPSSODescriptor/g, 'SPSSODescriptor'),
        'the metadata describes no SAML 2.0 identity provider (no md:IDPSSODescriptor)',
      ],
      [
        samlMetadata({ ...ok, binding: 'post' }),
        'the metadata offers no SingleSignOnService with the HTTP-Redirect binding',
      ],
      [samlMetadata({ ...ok, certs: [] }), 'the metadata holds no signing certificate (md:KeyDescriptor)'],
      [
        samlMetadata({ ...ok, certs: [CERT_A, CERT_B, CERT_A, CERT_B, CERT_A, CERT_B] }),
        'the metadata holds more than 5 signing certificates',
      ],
      [
        samlMetadata({ ...ok, certs: ['-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----'] }),
        'the metadata holds a signing certificate that is not a valid X.509 certificate',
      ],
      [
        samlMetadata({ ...ok, ssoUrl: 'http://idp.test/sso' }),
        'the metadata SingleSignOnService location http://idp.test/sso must be https (plain http only to this machine: localhost, 127.0.0.1, ::1)',
      ],
    ];
    for (const [text, message] of cases) {
      await refused(
        t,
        xml(text),
        'metadataXml',
        text.startsWith('<md:EntityDescriptor') ? /^the metadata is not well-formed XML/ : literal(message),
      );
    }
    expect(await events(t)).toEqual([]);
  });

  it('fetches a metadata URL within its bounds: https or loopback, 5 s, 1 MiB, no redirect, 200 only', async () => {
    const t = await acmePlatform();
    const at = (path: string) => ({ ...SAML, metadataUrl: `${idp.url}${path}` });
    idp.serve('/gone', { status: 404 });
    idp.serve('/moved', { status: 302, headers: { Location: 'https://elsewhere.test/metadata' } });
    idp.serve('/huge', { body: Buffer.alloc(1024 * 1024 + 1, 'x') });
    idp.serve('/huge-chunked', {
      body: Buffer.alloc(1024 * 1024 + 1, 'x'),
      headers: { 'Transfer-Encoding': 'chunked' },
    });
    await refused(t, at('/gone'), 'metadataUrl', literal(`${idp.url}/gone answered 404`));
    await refused(
      t,
      at('/moved'),
      'metadataUrl',
      literal(
        `${idp.url}/moved answered with a redirect to https://elsewhere.test/metadata: give the address it leads to`,
      ),
    );
    await refused(t, at('/huge'), 'metadataUrl', literal(`${idp.url}/huge sent more than 1 MiB`));
    await refused(t, at('/huge-chunked'), 'metadataUrl', literal(`${idp.url}/huge-chunked sent more than 1 MiB`));
    await refused(
      t,
      { ...SAML, metadataUrl: 'http://idp.example.com/metadata' },
      'metadataUrl',
      literal(
        'http://idp.example.com/metadata must be https (plain http only to this machine: localhost, 127.0.0.1, ::1)',
      ),
    );
    const closed = await documentServer();
    const url = closed.url;
    await closed.close();
    await refused(
      t,
      { ...SAML, metadataUrl: `${url}/metadata` },
      'metadataUrl',
      literal(`${url}/metadata could not be reached (ECONNREFUSED)`),
    );
  });

  it('gives up on a metadata URL that does not answer within 5 s', async () => {
    const t = await acmePlatform();
    idp.serve('/slow', { delayMs: 6_000, body: samlMetadata(IDP) });
    await refused(
      t,
      { ...SAML, metadataUrl: `${idp.url}/slow` },
      'metadataUrl',
      literal(`${idp.url}/slow did not answer within 5 s`),
    );
  }, 15_000);

  it('refuses an OIDC issuer whose discovery document does not hold (issuer, endpoints, code flow, S256)', async () => {
    const t = await acmePlatform();
    const issuerAt = (name: string, overrides: Record<string, unknown>) => {
      const issuer = `${idp.url}/${name}`;
      idp.serve(`/${name}/.well-known/openid-configuration`, {
        body: JSON.stringify(discoveryDocument(issuer, overrides)),
      });
      return issuer;
    };
    const cases: [string, string][] = [
      [
        issuerAt('other-issuer', { issuer: 'https://impostor.test' }),
        'the provider names its issuer "https://impostor.test", not %s: give its own',
      ],
      [
        issuerAt('no-jwks', { jwks_uri: undefined }),
        'discovery at %s/.well-known/openid-configuration gives no jwks_uri',
      ],
      [
        issuerAt('http-token', { token_endpoint: 'http://idp.example.com/token' }),
        "the provider's token_endpoint http://idp.example.com/token must be https (plain http only to this machine: localhost, 127.0.0.1, ::1)",
      ],
      [
        issuerAt('no-code', { response_types_supported: ['id_token'] }),
        'the provider does not support the authorization code flow (response type code)',
      ],
      [
        issuerAt('no-s256', { code_challenge_methods_supported: ['plain'] }),
        'the provider does not support PKCE with S256',
      ],
      [`${idp.url}/nobody`, 'discovery at %s/.well-known/openid-configuration answered 404'],
    ];
    for (const [issuer, message] of cases) {
      await refused(t, { ...OIDC, issuer }, 'issuer', literal(message.replaceAll('%s', issuer)));
    }
    idp.serve('/not-json/.well-known/openid-configuration', { body: '<html>' });
    await refused(
      t,
      { ...OIDC, issuer: `${idp.url}/not-json` },
      'issuer',
      literal(`discovery at ${idp.url}/not-json/.well-known/openid-configuration is not JSON`),
    );
  });

  it("takes the organization's verified domains only: another's is a 422 until it is given up and verified", async () => {
    const t = await acmePlatform();
    const other = await t.otherOrg();
    await t.platform.admin.verifyDomain(other.orgId, 'other.test');
    const theirs = `/organizations/${other.orgId}/sso`;
    expect((await put(t, SAML)).status).toBe(200);
    const taken = await t.call('PUT', theirs, {
      body: { ...OIDC, domains: ['other.test', 'EU.acme.test'] },
      key: other.key,
    });
    expect(taken.status).toBe(422);
    expect(taken.body.error.details).toEqual([
      {
        field: 'domains.1',
        message:
          'eu.acme.test is not a verified domain of this organization: claim it and verify it first (plat domains add)',
      },
    ]);
    expect((await t.call('GET', theirs, { key: other.key })).status).toBe(404);
    // The same organization may save its domains again.
    expect((await put(t, { ...SAML, domains: ['acme.test'] })).status).toBe(200);
    // Given up by Acme, eu.acme.test is free for the other organization to verify and use.
    const claims = await t.call('GET', `/organizations/${t.orgId}/domains`);
    const eu = claims.body.data.find((d: { domain: string }) => d.domain === 'eu.acme.test');
    expect((await t.call('DELETE', `/domains/${eu.id}`)).status).toBe(204);
    await t.platform.admin.verifyDomain(other.orgId, 'eu.acme.test');
    expect((await t.call('PUT', theirs, { body: { ...OIDC, domains: ['eu.acme.test'] }, key: other.key })).status).toBe(
      200,
    );
    expect((await put(t, { ...SAML, domains: ['eu.acme.test'] })).status).toBe(422);
  });

  it('sets allowIdpInitiated and defaultRole, never owner', async () => {
    const t = await acmePlatform();
    const r = await put(t, { ...SAML, allowIdpInitiated: true, defaultRole: 'admin' });
    expect(r.body).toMatchObject({ allowIdpInitiated: true, defaultRole: 'admin' });
    const owner = await put(t, { ...SAML, defaultRole: 'owner' });
    expect(owner.status).toBe(422);
    expect(owner.body.error.details.map((d: { field: string }) => d.field)).toEqual(['defaultRole']);
    // Omitted: back to the defaults, as every optional field.
    expect((await put(t, SAML)).body).toMatchObject({ allowIdpInitiated: false, defaultRole: 'member' });
  });
});

describe('POST /organizations/{orgId}/sso/refresh', () => {
  it('fetches the metadata again: a rotated certificate shows; one event', async () => {
    const t = await acmePlatform();
    idp.serve('/rotating/metadata', { body: samlMetadata({ ...IDP, certs: [CERT_A] }) });
    await put(t, { ...SAML, metadataUrl: `${idp.url}/rotating/metadata` });
    idp.serve('/rotating/metadata', { body: samlMetadata({ ...IDP, certs: [CERT_A, CERT_B] }) });
    t.clock.advance(60_000);
    const r = await t.call('POST', `${path(t)}/refresh`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      certificates: [certificateRecord(CERT_A), certificateRecord(CERT_B)],
      metadataFetchedAt: '2026-01-01T00:01:00.000Z',
      updatedAt: '2026-01-01T00:01:00.000Z',
      createdAt: T0,
    });
    const [refreshed] = await events(t);
    expect(refreshed).toMatchObject({ type: 'sso.refreshed', data: { protocol: 'saml' } });
    // A provider that broke since: 422, and the configuration stays as it was.
    idp.serve('/rotating/metadata', { status: 500 });
    const broken = await t.call('POST', `${path(t)}/refresh`);
    expect(broken.status).toBe(422);
    expect((await t.call('GET', path(t))).body.certificates).toEqual([
      certificateRecord(CERT_A),
      certificateRecord(CERT_B),
    ]);
  });

  it('parses uploaded metadata again (nothing to fetch), needs sso:write, and 404 without a configuration', async () => {
    const t = await acmePlatform();
    expect((await t.call('POST', `${path(t)}/refresh`)).status).toBe(404);
    const { metadataUrl: _, ...rest } = SAML;
    await put(t, { ...rest, metadataXml: samlMetadata(IDP) });
    const fetched = idp.requested.length;
    const r = await t.call('POST', `${path(t)}/refresh`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ idpEntityId: IDP.entityId, certificates: [certificateRecord(CERT_A)] });
    expect(idp.requested.length).toBe(fetched);
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    expect((await t.call('POST', `${path(t)}/refresh`, { key: admin.key })).status).toBe(403);
  });
});

describe('DELETE /organizations/{orgId}/sso', () => {
  it('deletes: 204, then 404; one event; a second delete is 404', async () => {
    const t = await acmePlatform();
    await put(t, OIDC);
    t.clock.advance(1000);
    const r = await t.call('DELETE', path(t), { headers: { 'X-Request-Id': 'sso-del' } });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.call('GET', path(t))).status).toBe(404);
    const [deleted] = await events(t);
    expect(deleted).toEqual({
      id: 'evt_0005',
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
    const t = await acmePlatform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    await put(t, SAML);
    expect((await t.call('DELETE', path(t), { key: admin.key })).status).toBe(403);
    expect((await t.call('GET', path(t))).status).toBe(200);
  });
});

describe('tenancy', () => {
  it("never shows or touches another organization's configuration (404)", async () => {
    const t = await acmePlatform();
    const other = await t.otherOrg();
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
