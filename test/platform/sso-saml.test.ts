import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { startServer } from '../../src/platform/server.js';
import { newSsoRequest } from '../../src/platform/sso/sign-in.js';
import type { StoredSso } from '../../src/platform/store/sso.js';
import { testDatabase } from '../helpers/backend.js';
import { baseOf } from '../helpers/internals.js';
import { send } from '../helpers/platform.js';
import { DEFAULT_USER, startSamlIdp } from '../helpers/saml-idp.js';
import {
  authnRequestOf,
  authorizeContinuation,
  pageMessage,
  postForm,
  samlConfigBody,
  samlPlatforms,
  sendSignIn,
} from '../helpers/sso-saml.js';
import { pkce, REDIRECT, tokenRequest } from './auth/helpers.js';

// The platform as a SAML service provider against a real IdP on loopback (test/helpers/saml-idp.ts): its metadata,
// the AuthnRequest it sends, and sign-ins that succeed. The refused ones are in sso-saml-forged.test.ts,
// sso-saml-refused.test.ts and sso-saml-input.test.ts.

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const setup = samlPlatforms();

describe('GET /v2/sso/saml/{orgId}/metadata', () => {
  it('is the SP metadata of any organization, whole: entity id, ACS (HTTP-POST), NameID format, no key', async () => {
    const s = await setup();
    const res = await s.t.platform.fetch(new Request(`http://plat.test/v2/sso/saml/${s.t.orgId}/metadata`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/samlmetadata+xml');
    expect(await res.text()).toBe(`<?xml version="1.0"?>
<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="http://plat.test/v2/sso/saml/${s.t.orgId}" ID="_${s.t.orgId}">
  <SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="false" WantAssertionsSigned="true">
    <NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</NameIDFormat>
    <AssertionConsumerService index="1" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://plat.test/v2/sso/saml/${s.t.orgId}/acs"/>
  </SPSSODescriptor>
</EntityDescriptor>`);
    // Before any configuration too: the IdP's side is usually set up first.
    const other = await s.t.otherOrg();
    const early = await s.t.platform.fetch(new Request(`http://plat.test/v2/sso/saml/${other.orgId}/metadata`));
    expect(early.status).toBe(200);
    expect(await early.text()).toContain(`entityID="http://plat.test/v2/sso/saml/${other.orgId}"`);
  });

  it('answers 404 for an organization that does not exist', async () => {
    const s = await setup();
    const res = await s.t.platform.fetch(new Request('http://plat.test/v2/sso/saml/org_9999/metadata'));
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'not_found', message: 'organization not found' });
  });
});

describe('the AuthnRequest (HTTP-Redirect binding)', () => {
  it('goes to the IdP SSO URL, whole: our ID and IssueInstant, Issuer, ACS, HTTP-POST, Destination; RelayState', async () => {
    const s = await setup();
    const { request, url, sent } = await s.signIn();
    expect(request.id).toMatch(/^_[A-Za-z0-9]{32}$/);
    expect(`${new URL(url).origin}${new URL(url).pathname}`).toBe(s.idp.ssoUrl);
    expect([...new URL(url).searchParams.keys()]).toEqual(['SAMLRequest', 'RelayState']);
    expect(authnRequestOf(url)).toBe(
      '<?xml version="1.0"?><samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ' +
        `ID="${request.id}" Version="2.0" IssueInstant="2026-01-01T00:00:00.000Z" ` +
        'ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" ' +
        `Destination="${s.idp.ssoUrl}" AssertionConsumerServiceURL="${s.acsUrl}">` +
        `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${s.spEntityId}</saml:Issuer>` +
        '<samlp:NameIDPolicy xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" AllowCreate="true" ' +
        'Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"/></samlp:AuthnRequest>',
    );
    // As the IdP read it.
    expect(sent).toMatchObject({
      id: request.id,
      issuer: s.spEntityId,
      acsUrl: s.acsUrl,
      destination: s.idp.ssoUrl,
      issueInstant: '2026-01-01T00:00:00.000Z',
      relayState: request.id,
      signed: false,
    });
  });

  it('keeps the query an IdP SSO URL already has (Google Workspace: ?idpid=…)', async () => {
    const s = await setup();
    const config = {
      ...((await s.base.stores.sso.get(s.t.orgId)) as StoredSso),
      idpSsoUrl: `${s.idp.ssoUrl}?idpid=C01abc`,
    };
    const { signInUrl } = await import('../../src/platform/sso/saml.js');
    const request = await newSsoRequest(s.base, config, authorizeContinuation(pkce().challenge));
    const url = new URL(await signInUrl(s.base, config, request));
    expect([...url.searchParams.keys()]).toEqual(['idpid', 'SAMLRequest', 'RelayState']);
    expect(url.searchParams.get('idpid')).toBe('C01abc');
  });
});

describe('an SP-initiated sign-in through the IdP', () => {
  it('provisions the person, sends the CLI its code (303), and the code opens a session with method saml', async () => {
    const s = await setup();
    s.idp.setUser({ ...DEFAULT_USER, attributes: { dept: 'R&D', unmapped: 'x' } });
    const { verifier, form, request } = await s.signIn();
    expect(form.action).toBe(s.acsUrl);
    expect(form.fields.RelayState).toBe(request.id);
    const r = await s.postAcs(form.fields);
    expect(r.status).toBe(303);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const location = new URL(r.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    const code = location.searchParams.get('code') as string;
    expect(Object.fromEntries(location.searchParams)).toEqual({
      code,
      state: 'st-saml',
      iss: 'http://plat.test/v2/auth',
    });

    const users = await s.t.call('GET', `/organizations/${s.t.orgId}/users?search=sam@acme.test`);
    const [user] = users.body.data;
    expect(user).toMatchObject({
      email: 'sam@acme.test',
      name: 'Sam Sample',
      role: 'member',
      status: 'active',
      metadata: { department: 'R&D' },
    });
    expect(await s.base.stores.ssoSignIn.identity(s.t.orgId, DEFAULT_USER.nameId)).toBe(user.id);
    expect((await s.events('user.provisioned')).map((e) => [e.target, e.data])).toEqual([
      [
        { type: 'user', id: user.id },
        { email: 'sam@acme.test', role: 'member', protocol: 'saml' },
      ],
    ]);
    expect((await s.events('user.signed_in')).map((e) => e.data)).toEqual([
      { clientId: 'plat-cli', method: 'saml', amr: ['sso'] },
    ]);
    expect((await s.base.stores.ssoSignIn.requestState(request.id))?.usedAt).toBe('2026-01-01T00:00:00.000Z');

    const tokens = await tokenRequest(s.t.platform.fetch, {
      grant_type: 'authorization_code',
      client_id: 'plat-cli',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
    const sessions = await s.t.call('GET', `/users/${user.id}/sessions`);
    expect(sessions.body.data).toHaveLength(1);
    expect(sessions.body.data[0]).toMatchObject({ userId: user.id, method: 'saml', amr: ['sso'] });
    const whoami = await s.t.call('GET', '/auth/whoami', {
      key: null,
      headers: { Authorization: `Bearer ${tokens.body.access_token}` },
    });
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({
      type: 'user',
      user: { id: user.id },
      organization: { id: s.t.orgId },
      sessionId: sessions.body.data[0].id,
    });
  });

  it('signs a known identity in as its user again, with no second user.provisioned', async () => {
    const s = await setup();
    const first = await s.signIn();
    expect((await s.postAcs(first.form.fields)).status).toBe(303);
    s.idp.setUser({ ...DEFAULT_USER, name: 'Samantha Sample' });
    const second = await s.signIn();
    expect((await s.postAcs(second.form.fields)).status).toBe(303);
    const users = await s.t.call('GET', `/organizations/${s.t.orgId}/users?search=sam@acme.test`);
    expect(users.body.data.map((u: any) => u.name)).toEqual(['Samantha Sample']);
    expect(await s.events('user.provisioned')).toHaveLength(1);
    expect(await s.events('user.signed_in')).toHaveLength(2);
  });

  it('takes a response signed as a whole, or signed twice, and one without a Destination when it is unsigned', async () => {
    const s = await setup();
    for (const params of [{ sign: 'response' }, { sign: 'both' }, { destination: null }] as const) {
      const { sent, request } = await s.signIn();
      const r = await s.postAcs({ SAMLResponse: s.idp.response({ request: sent, ...params }), RelayState: request.id });
      expect([JSON.stringify(params), r.status]).toEqual([JSON.stringify(params), 303]);
    }
  });

  it('takes a response larger than a sign-in form (100 KiB of attributes), metadata cut to what a user holds', async () => {
    const s = await setup();
    s.idp.setUser({ ...DEFAULT_USER, attributes: { dept: 'd'.repeat(100 * 1024) } });
    const { form } = await s.signIn();
    expect(form.fields.SAMLResponse?.length).toBeGreaterThan(128 * 1024);
    expect((await s.postAcs(form.fields)).status).toBe(303);
    const users = await s.t.call('GET', `/organizations/${s.t.orgId}/users?search=sam@acme.test`);
    expect(users.body.data[0].metadata).toEqual({ department: 'd'.repeat(500) });
  });

  it('takes a response signed by either certificate of the metadata (rotation)', async () => {
    const s = await setup();
    expect((await s.base.stores.sso.get(s.t.orgId))?.certificates).toHaveLength(2);
    for (const signingKey of ['first', 'second'] as const) {
      const { sent, request } = await s.signIn();
      const r = await s.postAcs({
        SAMLResponse: s.idp.response({ request: sent, signingKey }),
        RelayState: request.id,
      });
      expect([signingKey, r.status]).toEqual([signingKey, 303]);
    }
  });

  it('accepts an assertion expired or not yet valid within the 3 minutes of skew, on the platform clock', async () => {
    const s = await setup();
    const cases = [
      // Valid from 7 minutes ago until 2 minutes ago.
      { issuedAt: new Date(T0 - 7 * 60_000) },
      // Valid from 2 minutes from now.
      { issuedAt: new Date(T0 + 2 * 60_000) },
      // At the edges: until 3 minutes less 1 ms ago; from 3 minutes from now.
      { issuedAt: new Date(T0 - 8 * 60_000 + 1) },
      { issuedAt: new Date(T0 + 3 * 60_000) },
    ];
    for (const params of cases) {
      const { sent, request } = await s.signIn();
      const r = await s.postAcs({ SAMLResponse: s.idp.response({ request: sent, ...params }), RelayState: request.id });
      expect([params.issuedAt.toISOString(), r.status]).toEqual([params.issuedAt.toISOString(), 303]);
    }
  });

  it('redeems a request up to 10 minutes old', async () => {
    const s = await setup();
    const { sent, request } = await s.signIn();
    s.t.clock.advance(10 * 60_000 - 1);
    const r = await s.postAcs({ SAMLResponse: s.idp.response({ request: sent }), RelayState: request.id });
    expect(r.status).toBe(303);
  });

  it('finishes `plat sso test` with what arrived, signing nobody in, even while single sign-on is disabled', async () => {
    const s = await setup({ sso: { enabled: false } });
    await s.base.stores.ssoSignIn.insertTest({
      id: 'test_1',
      orgId: s.t.orgId,
      createdAt: s.base.now(),
      expiresAt: new Date(T0 + 3600_000).toISOString(),
    });
    const before = await s.created();
    const { form } = await s.signIn(() => ({ kind: 'test', testId: 'test_1' }));
    const r = await s.postAcs(form.fields);
    expect(r.status).toBe(200);
    expect(pageMessage(r.text)).toBe('The identity provider signed you in. Nothing was created.');
    expect(await s.created()).toEqual(before);
    expect(await s.base.stores.ssoSignIn.test(s.t.orgId, 'test_1')).toMatchObject({
      status: 'succeeded',
      result: {
        subject: DEFAULT_USER.nameId,
        mapped: { email: 'sam@acme.test', name: 'Sam Sample', metadata: {} },
        attributes: { email: ['sam@acme.test'], name: ['Sam Sample'] },
      },
    });
  });
});

describe('an IdP-initiated sign-in (no InResponseTo), with allowIdpInitiated', () => {
  it('provisions the person and says how to use plat, opening no session; the same assertion again is a replay', async () => {
    const s = await setup({ sso: { allowIdpInitiated: true } });
    const before = await s.created();
    const samlResponse = s.idp.response({ acsUrl: s.acsUrl, audience: s.spEntityId, inResponseTo: null });
    const r = await s.postAcs({ SAMLResponse: samlResponse, RelayState: 'https://app.example/after' });
    expect(r.status).toBe(200);
    expect(pageMessage(r.text)).toBe(
      "Your organization's identity provider vouched for you, and you can use\nplat. To sign in from a terminal, run: plat login --email sam@acme.test",
    );
    const users = await s.t.call('GET', `/organizations/${s.t.orgId}/users?search=sam@acme.test`);
    expect(users.body.data).toHaveLength(1);
    expect(await s.created()).toEqual({
      ...before,
      accounts: before.accounts + 1,
      org_users: before.org_users + 1,
      sso_identities: 1,
    });
    expect(await s.events('user.provisioned')).toHaveLength(1);
    expect(await s.events('user.signed_in')).toEqual([]);
    const again = await s.postAcs({ SAMLResponse: samlResponse });
    expect([again.status, pageMessage(again.text)]).toEqual([
      400,
      "Signing in through your organization's identity provider failed: the assertion was already used (replay).",
    ]);
  });
});

describe('over a real socket (plat serve)', () => {
  it('signs in through the IdP: AuthnRequest, the IdP page posted to the ACS, the code redeemed, a saml session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-saml-'));
    const server = await startServer({
      ...(await testDatabase(join(dir, 'plat.db'))),
      port: 0,
      logger: () => {},
      limits: { enabled: false },
    });
    // The server keeps real time: so does the IdP.
    const idp = await startSamlIdp({ user: { nameId: 'okta|00u9', email: 'ada@acme.test', name: 'Ada' } });
    try {
      const boot = await bootstrap(baseOf(server.platform), { orgName: 'Acme', email: 'owner@acme.test' });
      const call = (method: string, path: string, body?: unknown) =>
        send((r) => fetch(r), server.url, boot.apiKey, method, path, { body });
      await server.platform.admin.verifyDomain(boot.organizationId, 'acme.test');
      const put = await call('PUT', `/organizations/${boot.organizationId}/sso`, samlConfigBody(idp));
      expect(put.status).toBe(200);
      expect(put.body.acsUrl).toBe(`${server.url}/v2/sso/saml/${boot.organizationId}/acs`);
      const metadata = await fetch(put.body.spMetadataUrl);
      expect(metadata.headers.get('content-type')).toBe('application/samlmetadata+xml');
      expect(await metadata.text()).toContain(`Location="${put.body.acsUrl}"`);

      const sentSignIn = await sendSignIn(baseOf(server.platform), boot.organizationId, idp);
      expect(sentSignIn.form.action).toBe(put.body.acsUrl);
      const posted = await postForm((r) => fetch(r), sentSignIn.form.action, sentSignIn.form.fields);
      expect(posted.status).toBe(303);
      const code = new URL(posted.location as string).searchParams.get('code') as string;
      const tokens = await tokenRequest(
        (r) => fetch(r),
        {
          grant_type: 'authorization_code',
          client_id: 'plat-cli',
          code,
          redirect_uri: REDIRECT,
          code_verifier: sentSignIn.verifier,
        },
        server.url,
      );
      expect(tokens.status).toBe(200);
      const users = await call('GET', `/organizations/${boot.organizationId}/users?search=ada@acme.test`);
      const [ada] = users.body.data;
      expect(ada).toMatchObject({ name: 'Ada', status: 'active' });
      const sessions = await call('GET', `/users/${ada.id}/sessions`);
      expect(sessions.body.data.map((x: any) => x.method)).toEqual(['saml']);

      // The same page posted again: the assertion was used.
      const replay = await postForm((r) => fetch(r), sentSignIn.form.action, sentSignIn.form.fields);
      expect([replay.status, pageMessage(replay.text)]).toEqual([
        400,
        "Signing in through your organization's identity provider failed: the assertion was already used (replay).",
      ]);
    } finally {
      await idp.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
