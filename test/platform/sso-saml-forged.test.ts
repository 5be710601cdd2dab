import { afterEach, describe, expect, it } from 'vitest';
import { newSsoRequest } from '../../src/platform/sso/sign-in.js';
import type { StoredSso } from '../../src/platform/store/sso.js';
import { DEFAULT_USER, FORGED_USER, type ResponseParams } from '../helpers/saml-idp.js';
import {
  authorizeContinuation,
  type SamlPlatform,
  samlConfigBody,
  samlPlatform,
  sendSignIn,
} from '../helpers/sso-saml.js';
import { expectRefused } from '../helpers/sso-saml-refusal.js';
import { pkce } from './auth/helpers.js';

// The negative matrix of contract §9 against the platform's ACS: each response comes from the real IdP on loopback,
// answers a request the platform really sent through it, and breaks one thing. Each is refused with the check it
// breaks, creates nothing, records `sso.failed`, and tells the waiting CLI `access_denied`. What node-saml alone lets
// through (test/sso/saml-idp-unchecked.test.ts) is here too: the platform's own checks refuse it.

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const running: SamlPlatform[] = [];
async function setup(opts: Parameters<typeof samlPlatform>[0] = {}): Promise<SamlPlatform> {
  const s = await samlPlatform(opts);
  running.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((x) => x.close()));
});

const ASSERTION_SIGNATURE = "the assertion's signature does not verify with the identity provider's certificates";
const RESPONSE_SIGNATURE = "the response's signature does not verify with the identity provider's certificates";
const UNSIGNED = 'neither the response nor its assertion is signed';

/** Answers a fresh SP-initiated sign-in with a response built from `params`; expects its refusal. */
async function refusedAnswer(
  s: SamlPlatform,
  params: Omit<ResponseParams, 'request'>,
  status: 400 | 403,
  check: string,
) {
  const { sent, request } = await s.signIn();
  const samlResponse = s.idp.response({ request: sent, ...params });
  await expectRefused(s, { SAMLResponse: samlResponse, RelayState: request.id }, status, check, { back: true });
  // The sign-in it was for is over: its client was told, and the request cannot be answered again.
  expect(s.base.stores.ssoSignIn.requestState(request.id)?.usedAt).not.toBeNull();
}

describe('refused, each with the check it breaks', () => {
  it.each<[string, Omit<ResponseParams, 'request'>, 400 | 403, string]>([
    ['unsigned', { sign: 'none' }, 400, UNSIGNED],
    ['NameID changed after signing', { tamper: { nameId: 'idp-user-0002' } }, 400, ASSERTION_SIGNATURE],
    ['e-mail changed after signing', { tamper: { email: 'root@acme.test' } }, 400, ASSERTION_SIGNATURE],
    [
      'e-mail changed after signing the response',
      { sign: 'response', tamper: { email: 'root@acme.test' } },
      400,
      RESPONSE_SIGNATURE,
    ],
    ['assertion signed by a stranger', { signingKey: 'stranger' }, 400, ASSERTION_SIGNATURE],
    ['response signed by a stranger', { sign: 'response', signingKey: 'stranger' }, 400, RESPONSE_SIGNATURE],
    [
      'both signed, the assertion by a stranger (node-saml alone takes it unless told to want both)',
      { sign: 'both', signingKey: { response: 'first', assertion: 'stranger' } },
      400,
      ASSERTION_SIGNATURE,
    ],
    [
      'both signed, the response by a stranger',
      { sign: 'both', signingKey: { response: 'stranger', assertion: 'first' } },
      400,
      RESPONSE_SIGNATURE,
    ],
    [
      'wrapped: a forged assertion beside the signed one',
      { wrap: 'beside' },
      400,
      'the response carries more than one assertion',
    ],
    ['wrapped: the signed assertion in the forged one’s Advice', { wrap: 'advice' }, 400, UNSIGNED],
    [
      'wrapped: the signature moved onto the forged assertion',
      { wrap: 'signature-moved' },
      400,
      'a signature does not cover the element that carries it (signature wrapping)',
    ],
    ['wrapped: a forged response around the signed one', { sign: 'response', wrap: 'response-wrap' }, 400, UNSIGNED],
    ['wrapped: a forged response around the twice-signed one', { sign: 'both', wrap: 'response-wrap' }, 400, UNSIGNED],
    [
      'wrong audience',
      { audience: 'https://other.test/sp' },
      400,
      "the assertion's Audience is not this service provider's entity id",
    ],
    [
      'wrong Destination (node-saml never reads it)',
      { destination: 'https://other.test/acs' },
      400,
      "the response's Destination is not this service provider's ACS URL",
    ],
    [
      'wrong Destination on a signed response',
      { destination: 'https://other.test/acs', sign: 'both' },
      400,
      "the response's Destination is not this service provider's ACS URL",
    ],
    [
      'no Destination on a signed response',
      { destination: null, sign: 'both' },
      400,
      'the signed response has no Destination',
    ],
    [
      'wrong Recipient (node-saml never reads it)',
      { recipient: 'https://other.test/acs' },
      400,
      "the subject confirmation's Recipient is not this service provider's ACS URL",
    ],
    [
      'wrong Issuer (node-saml checks it on logout messages only)',
      { issuer: 'https://evil.test/idp' },
      400,
      "the assertion's Issuer is not the identity provider's entity id",
    ],
    [
      'expired beyond the skew (valid from 10 until 5 minutes ago)',
      { issuedAt: new Date(T0 - 10 * MINUTE) },
      400,
      'the assertion has expired (NotOnOrAfter is more than 3 minutes past)',
    ],
    [
      'expired by 1 ms beyond the skew',
      { issuedAt: new Date(T0 - 8 * MINUTE) },
      400,
      'the assertion has expired (NotOnOrAfter is more than 3 minutes past)',
    ],
    [
      'not yet valid beyond the skew (from 10 minutes from now)',
      { issuedAt: new Date(T0 + 10 * MINUTE) },
      400,
      'the assertion is not yet valid (NotBefore is more than 3 minutes ahead)',
    ],
    [
      'not yet valid by 1 ms beyond the skew',
      { issuedAt: new Date(T0 + 3 * MINUTE + 1) },
      400,
      'the assertion is not yet valid (NotBefore is more than 3 minutes ahead)',
    ],
    [
      "InResponseTo of a request this platform never sent (another instance's)",
      { inResponseTo: '_not-ours' },
      400,
      'InResponseTo names no sign-in request of this platform',
    ],
    [
      'the IdP refused the person',
      { status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' },
      403,
      'the identity provider did not sign the person in (status Responder)',
    ],
  ])('%s', async (_case, params, status, check) => {
    const s = await setup();
    await refusedAnswer(s, params, status, check);
  });

  it('the wrapped assertions name someone else: nobody is signed in as them either', async () => {
    const s = await setup();
    await refusedAnswer(
      s,
      { wrap: { variant: 'beside', as: { ...FORGED_USER, email: 'sam@acme.test' } } },
      400,
      'the response carries more than one assertion',
    );
    expect(s.base.stores.ssoSignIn.identity(s.t.orgId, FORGED_USER.nameId)).toBeUndefined();
    expect(s.base.stores.ssoSignIn.identity(s.t.orgId, DEFAULT_USER.nameId)).toBeUndefined();
  });
});

describe('replays and requests', () => {
  it('refuses the same response posted twice (the assertion ID is kept until it expires)', async () => {
    const s = await setup();
    const { form } = await s.signIn();
    expect((await s.postAcs(form.fields)).status).toBe(303);
    await expectRefused(s, form.fields, 400, 'the assertion was already used (replay)');
    const kept = s.base.db
      .prepare('SELECT assertion_id, expires_at FROM sso_assertions WHERE org_id = ?')
      .all(s.t.orgId) as { assertion_id: string; expires_at: string }[];
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
    const other = s.t.otherOrg();
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
    expect(s.base.stores.ssoSignIn.requestState(theirs.request.id)?.usedAt).toBeNull();
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
    const config = s.base.stores.sso.get(s.t.orgId) as StoredSso;
    const oidc = newSsoRequest(s.base, { ...config, protocol: 'oidc' }, authorizeContinuation(pkce().challenge));
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
    s.base.stores.ssoSignIn.insertTest({
      id: 'test_1',
      orgId: s.t.orgId,
      createdAt: s.base.now(),
      expiresAt: new Date(T0 + 3600_000).toISOString(),
    });
    const { sent, request } = await s.signIn(() => ({ kind: 'test', testId: 'test_1' }));
    const samlResponse = s.idp.response({ request: sent, audience: 'https://other.test/sp' });
    const check = "the assertion's Audience is not this service provider's entity id";
    await expectRefused(s, { SAMLResponse: samlResponse, RelayState: request.id }, 400, check);
    expect(s.base.stores.ssoSignIn.test(s.t.orgId, 'test_1')).toMatchObject({
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

describe('certificate rotation', () => {
  it('refuses a response signed by a key the metadata does not name (rotated out)', async () => {
    const s = await setup({ idp: { certificates: ['first'] } });
    expect(s.base.stores.sso.get(s.t.orgId)?.certificates).toHaveLength(1);
    await refusedAnswer(s, { signingKey: 'second' }, 400, ASSERTION_SIGNATURE);
    const { sent, request } = await s.signIn();
    const ok = await s.postAcs({
      SAMLResponse: s.idp.response({ request: sent, signingKey: 'first' }),
      RelayState: request.id,
    });
    expect(ok.status).toBe(303);
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
    const { userId } = s.t.addUser({ email: 'sam@acme.test', status: 'suspended' });
    const { form } = await s.signIn();
    await expectRefused(s, form.fields, 403, 'the user is suspended', { back: true });
    expect(s.base.stores.users.get(s.t.orgId, userId)?.status).toBe('suspended');
    expect(s.base.stores.ssoSignIn.identity(s.t.orgId, DEFAULT_USER.nameId)).toBeUndefined();
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
    await expectRefused(s, form.fields, 403, 'single sign-on through SAML is not configured for this organization');
  });

  it('refuses a response to an organization that does not exist, recording nothing', async () => {
    const s = await setup();
    const { form } = await s.signIn();
    const before = s.created();
    const r = await s.t.platform.fetch(
      new Request('http://plat.test/v2/sso/saml/org_9999/acs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form.fields).toString(),
      }),
    );
    expect(r.status).toBe(403);
    expect(await r.text()).toContain('single sign-on through SAML is not configured for this organization');
    expect(s.created()).toEqual(before);
    expect(await s.events('sso.failed')).toEqual([]);
  });
});
