import { describe, expect, it } from 'vitest';
import { newSsoRequest } from '../../src/platform/sso/sign-in.js';
import type { StoredSso } from '../../src/platform/store/sso.js';
import { dbRows } from '../helpers/db.js';
import { DEFAULT_USER } from '../helpers/saml-idp.js';
import { authorizeContinuation, pageMessage, samlConfigBody, samlPlatforms, sendSignIn } from '../helpers/sso-saml.js';
import { expectRefused } from '../helpers/sso-saml-refusal.js';
import { pkce } from './auth/helpers.js';

// Responses the IdP really signed, refused for what they answer or whom they name: replays, requests used, stale,
// another organization's or none (IdP-initiated); people the organization refuses (403); a configuration that does
// not sign people in. Each creates nothing and records `sso.failed`.

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const setup = samlPlatforms();

describe('replays and requests', () => {
  it('refuses the same response posted twice (the assertion ID is kept until it expires)', async () => {
    const s = await setup();
    const { form } = await s.signIn();
    expect((await s.postAcs(form.fields)).status).toBe(303);
    await expectRefused(s, form.fields, 400, 'the assertion was already used (replay)');
    const kept = await dbRows<{ assertion_id: string; expires_at: string }>(
      s.base,
      'SELECT assertion_id, expires_at FROM sso_assertions WHERE org_id = ?',
      s.t.orgId,
    );
    // Valid until 5 minutes from now, so refused as expired from 8 minutes from now on.
    expect(kept.map((k) => k.expires_at)).toEqual(['2026-01-01T00:08:00.000Z']);
  });

  it('refuses an assertion ID seen before, even answering another request', async () => {
    const s = await setup();
    const first = await s.signIn();
    const ok = await s.postAcs({
      SAMLResponse: s.idp.response({ request: first.sent, assertionId: '_assertion-replayed' }),
      RelayState: first.request.id,
    });
    expect(ok.status).toBe(303);
    const second = await s.signIn();
    await expectRefused(
      s,
      {
        SAMLResponse: s.idp.response({ request: second.sent, assertionId: '_assertion-replayed' }),
        RelayState: second.request.id,
      },
      400,
      'the assertion was already used (replay)',
      { back: true },
    );
  });

  it('refuses a second response to a request already used', async () => {
    const s = await setup();
    const { sent, request, form } = await s.signIn();
    expect((await s.postAcs(form.fields)).status).toBe(303);
    await expectRefused(
      s,
      { SAMLResponse: s.idp.response({ request: sent }), RelayState: request.id },
      400,
      'the sign-in request (InResponseTo) was already used',
    );
  });

  it('refuses a response to a request older than 10 minutes (the response itself being fresh)', async () => {
    const s = await setup();
    const { sent, request } = await s.signIn();
    s.t.clock.advance(10 * MINUTE);
    await expectRefused(
      s,
      { SAMLResponse: s.idp.response({ request: sent }), RelayState: request.id },
      400,
      'the sign-in request (InResponseTo) is older than 10 minutes',
    );
  });

  it("refuses InResponseTo naming another organization's request, and leaves that request usable", async () => {
    const s = await setup();
    const other = await s.t.otherOrg();
    await s.t.platform.admin.verifyDomain(other.orgId, 'other.test');
    const put = await s.t.call('PUT', `/organizations/${other.orgId}/sso`, {
      key: other.key,
      body: samlConfigBody(s.idp, { domains: ['other.test'] }),
    });
    expect(put.status).toBe(200);
    const theirs = await sendSignIn(s.base, other.orgId, s.idp);
    const ours = await s.signIn();
    await expectRefused(
      s,
      {
        SAMLResponse: s.idp.response({ request: ours.sent, inResponseTo: theirs.request.id }),
        RelayState: ours.request.id,
      },
      400,
      'InResponseTo names a sign-in request of another organization',
      { back: true },
    );
    expect((await s.base.stores.ssoSignIn.requestState(theirs.request.id))?.usedAt).toBeNull();
  });

  it('refuses an InResponseTo that the response and its signed assertion disagree on', async () => {
    const s = await setup();
    const { sent, request } = await s.signIn();
    const xml = s.idp
      .responseXml({ request: sent })
      .replace(/(<samlp:Response [^>]*InResponseTo=")[^"]*"/, '$1_swapped"');
    expect(xml).toContain('InResponseTo="_swapped"');
    await expectRefused(
      s,
      { SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: request.id },
      400,
      "the response's InResponseTo differs from its assertion's",
      { back: true },
    );
  });

  it('refuses InResponseTo naming an OpenID Connect sign-in of the organization', async () => {
    const s = await setup();
    const config = (await s.base.stores.sso.get(s.t.orgId)) as StoredSso;
    const oidc = await newSsoRequest(s.base, { ...config, protocol: 'oidc' }, authorizeContinuation(pkce().challenge));
    const { sent } = await s.signIn();
    await expectRefused(
      s,
      { SAMLResponse: s.idp.response({ request: sent, inResponseTo: oidc.id }) },
      400,
      'InResponseTo names a sign-in request that was not sent by SAML',
      { back: true },
    );
  });

  it('tells a `plat sso test` that its sign-in failed, and why', async () => {
    const s = await setup();
    await s.base.stores.ssoSignIn.insertTest({
      id: 'test_1',
      orgId: s.t.orgId,
      createdAt: s.base.now(),
      expiresAt: new Date(T0 + 3600_000).toISOString(),
    });
    const { sent, request } = await s.signIn(() => ({ kind: 'test', testId: 'test_1' }));
    const samlResponse = s.idp.response({ request: sent, audience: 'https://other.test/sp' });
    const check = "the assertion's Audience is not this service provider's entity id";
    await expectRefused(s, { SAMLResponse: samlResponse, RelayState: request.id }, 400, check);
    expect(await s.base.stores.ssoSignIn.test(s.t.orgId, 'test_1')).toMatchObject({
      status: 'failed',
      result: { status: 400, check },
    });
  });

  it('refuses an unsolicited (IdP-initiated) response unless the configuration allows it', async () => {
    const s = await setup();
    const samlResponse = s.idp.response({ acsUrl: s.acsUrl, audience: s.spEntityId, inResponseTo: null });
    await expectRefused(
      s,
      { SAMLResponse: samlResponse },
      400,
      'unsolicited (IdP-initiated) responses are not allowed by this organization',
    );
  });
});

describe('refused people (403)', () => {
  it('an e-mail outside the organization’s domains', async () => {
    const s = await setup();
    s.idp.setUser({ nameId: 'idp-user-0002', email: 'sam@elsewhere.test' });
    const { form } = await s.signIn();
    await expectRefused(s, form.fields, 403, "the e-mail's domain is not one of the organization's", { back: true });
  });

  it('an e-mail split by a comment after signing is read whole (eve@acme.test<!---->.evil.example)', async () => {
    const s = await setup();
    const FULL = 'eve@acme.test.evil.example';
    const { sent, request } = await s.signIn();
    const xml = s.idp.responseXml({
      request: sent,
      user: { nameId: 'idp-user-0003', email: FULL },
      tamper: { comment: { field: 'email', at: 'eve@acme.test'.length } },
    });
    expect(xml).toContain('>eve@acme.test<!---->.evil.example<');
    await expectRefused(
      s,
      { SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: request.id },
      403,
      "the e-mail's domain is not one of the organization's",
      { back: true },
    );
  });

  it('a suspended user', async () => {
    const s = await setup();
    const { userId } = await s.t.addUser({ email: 'sam@acme.test', status: 'suspended' });
    const { form } = await s.signIn();
    await expectRefused(s, form.fields, 403, 'the user is suspended', { back: true });
    expect((await s.base.stores.users.get(s.t.orgId, userId))?.status).toBe('suspended');
    expect(await s.base.stores.ssoSignIn.identity(s.t.orgId, DEFAULT_USER.nameId)).toBeUndefined();
  });
});

describe('the configuration', () => {
  it('refuses every response while single sign-on is disabled (403)', async () => {
    const s = await setup({ sso: { enabled: false } });
    const { form } = await s.signIn();
    await expectRefused(s, form.fields, 403, 'single sign-on is disabled for this organization', { back: true });
  });

  it('refuses a response to an organization without SAML single sign-on (403)', async () => {
    const s = await setup();
    const { form } = await s.signIn();
    expect((await s.t.call('DELETE', `/organizations/${s.t.orgId}/sso`)).status).toBe(204);
    const before = await s.created();
    const r = await s.postAcs(form.fields);
    expect({ status: r.status, message: pageMessage(r.text) }).toEqual({
      status: 403,
      message:
        "Signing in through your organization's identity provider failed: single sign-on through SAML is not configured for this organization.",
    });
    expect(await s.created()).toEqual(before);
    // Anyone may post to any organization's ACS: without single sign-on there, nothing goes to its audit log.
    expect(await s.events('sso.failed')).toEqual([]);
  });

  it('refuses a response to an organization that does not exist, recording nothing', async () => {
    const s = await setup();
    const { form } = await s.signIn();
    const before = await s.created();
    const r = await s.t.platform.fetch(
      new Request('http://plat.test/v2/sso/saml/org_9999/acs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form.fields).toString(),
      }),
    );
    expect(r.status).toBe(403);
    expect(await r.text()).toContain('single sign-on through SAML is not configured for this organization');
    expect(await s.created()).toEqual(before);
    expect(await s.events('sso.failed')).toEqual([]);
  });
});
