import { ValidateInResponseTo } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import { afterEach, describe, expect, it } from 'vitest';
import { certBody, DEFAULT_USER, postedForm, SAML_KEYS, type SamlIdp, startSamlIdp } from '../helpers/saml-idp.js';
import { ACS_URL, certificatesIn, nodeSamlSp, requestThrough, SP_ENTITY_ID, verdict } from './node-saml-sp.js';

// The test IdP on its own, checked by node-saml as the platform will use it: what it publishes, the sign-in it
// answers, and the responses it builds. The forged ones are in saml-idp-forgeries.test.ts.

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const idps: SamlIdp[] = [];
async function idp(opts: Parameters<typeof startSamlIdp>[0] = {}): Promise<SamlIdp> {
  const started = await startSamlIdp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, ...opts });
  idps.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(idps.splice(0).map((i) => i.close()));
});

describe('metadata', () => {
  it('is served at /metadata: entity id, SSO over HTTP-Redirect at /sso, both signing certificates', async () => {
    const i = await idp();
    const res = await fetch(i.metadataUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/samlmetadata+xml');
    const xml = await res.text();
    expect(xml).toBe(i.metadata);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    expect(doc.documentElement?.getAttribute('entityID')).toBe(`${i.url}/metadata`);
    expect(i.entityId).toBe(`${i.url}/metadata`);
    const sso = Array.from(doc.getElementsByTagNameNS(MD, 'SingleSignOnService'));
    expect(sso.map((s) => [s.getAttribute('Binding'), s.getAttribute('Location')])).toEqual([
      ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', `${i.url}/sso`],
    ]);
    const keys = Array.from(doc.getElementsByTagNameNS(MD, 'KeyDescriptor'));
    expect(keys.map((k) => k.getAttribute('use'))).toEqual(['signing', 'signing']);
    expect(certificatesIn(xml)).toEqual([certBody(SAML_KEYS.first.cert), certBody(SAML_KEYS.second.cert)]);
    expect(i.certificates).toEqual([SAML_KEYS.first.cert, SAML_KEYS.second.cert]);
  });

  it('names only the certificates asked for, and never the stranger', async () => {
    const i = await idp({ certificates: ['second'] });
    expect(certificatesIn(i.metadata)).toEqual([certBody(SAML_KEYS.second.cert)]);
    expect(i.metadata).not.toContain(certBody(SAML_KEYS.stranger.cert));
  });

  it('answers at a localhost URL when asked (another site than 127.0.0.1 for a browser)', async () => {
    const i = await idp({ host: 'localhost' });
    expect(i.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect((await fetch(i.metadataUrl)).status).toBe(200);
  });
});

describe('SP-initiated sign-in at /sso', () => {
  it("records node-saml's AuthnRequest and posts a response that node-saml accepts, for the IdP's user", async () => {
    const i = await idp();
    const sp = nodeSamlSp(i);
    const { request, page } = await requestThrough(sp, i, 'relay & state');
    expect(i.requests).toHaveLength(1);
    expect(request).toMatchObject({
      issuer: SP_ENTITY_ID,
      acsUrl: ACS_URL,
      destination: i.ssoUrl,
      relayState: 'relay & state',
      signed: false,
    });
    expect(request.id).toMatch(/^_[0-9a-f]+$/);
    expect(request.xml).toContain(`ID="${request.id}"`);
    const form = postedForm(page);
    expect(form.action).toBe(ACS_URL);
    expect(form.fields.RelayState).toBe('relay & state');
    expect(Object.keys(form.fields)).toEqual(['SAMLResponse', 'RelayState']);
    const v = await verdict(sp, form.fields.SAMLResponse as string);
    expect(v).toMatchObject({
      ok: true,
      profile: {
        issuer: i.entityId,
        inResponseTo: request.id,
        nameID: DEFAULT_USER.nameId,
        nameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        email: DEFAULT_USER.email,
        attributes: { email: DEFAULT_USER.email, name: DEFAULT_USER.name },
      },
    });
  });

  it('takes a signed AuthnRequest too (and says so), without checking the signature', async () => {
    const i = await idp();
    const sp = nodeSamlSp(i, { privateKey: SAML_KEYS.stranger.key });
    const { request, page } = await requestThrough(sp, i);
    expect(request.signed).toBe(true);
    expect((await verdict(sp, postedForm(page).fields.SAMLResponse as string)).ok).toBe(true);
  });

  it('signs in whoever the test chose, with their attributes', async () => {
    const i = await idp({ user: { nameId: 'okta|00u1', email: 'ada@acme.test' } });
    const sp = nodeSamlSp(i);
    const first = postedForm((await requestThrough(sp, i)).page);
    expect(await verdict(sp, first.fields.SAMLResponse as string)).toMatchObject({
      ok: true,
      profile: { nameID: 'okta|00u1', attributes: { email: 'ada@acme.test' } },
    });
    i.setUser({ nameId: 'okta|00u2', email: 'bo@acme.test', name: 'Bo <Admin> & Co', attributes: { dept: 'R&D' } });
    const second = postedForm((await requestThrough(sp, i)).page);
    expect(await verdict(sp, second.fields.SAMLResponse as string)).toMatchObject({
      ok: true,
      profile: {
        nameID: 'okta|00u2',
        attributes: { email: 'bo@acme.test', name: 'Bo <Admin> & Co', dept: 'R&D' },
      },
    });
    expect(i.requests).toHaveLength(2);
  });

  it('answers with the knobs the test set (a forged case through the browser), until they are reset', async () => {
    const i = await idp();
    const sp = nodeSamlSp(i);
    i.answerWith({ audience: 'https://someone-else.test/sp' });
    const forged = postedForm((await requestThrough(sp, i)).page);
    expect(await verdict(sp, forged.fields.SAMLResponse as string)).toMatchObject({
      ok: false,
      error: `SAML assertion audience mismatch. Expected: ${SP_ENTITY_ID} Received: https://someone-else.test/sp`,
    });
    i.answerWith({});
    const good = postedForm((await requestThrough(sp, i)).page);
    expect((await verdict(sp, good.fields.SAMLResponse as string)).ok).toBe(true);
  });

  it('refuses what is not an AuthnRequest, and unknown paths', async () => {
    const i = await idp();
    const none = await fetch(i.ssoUrl);
    expect([none.status, await none.text()]).toEqual([400, 'No SAMLRequest']);
    const garbage = await fetch(`${i.ssoUrl}?SAMLRequest=bm90IGRlZmxhdGVk`);
    expect(garbage.status).toBe(400);
    expect(await garbage.text()).toMatch(/^Bad AuthnRequest: /);
    expect((await fetch(`${i.url}/elsewhere`)).status).toBe(404);
    expect(i.requests).toEqual([]);
  });
});

describe('responses built directly', () => {
  it('are accepted as sent (assertion signed, by default), as IdP-initiated ones when the SP allows them', async () => {
    const i = await idp();
    const sp = nodeSamlSp(i, { validateInResponseTo: ValidateInResponseTo.ifPresent });
    const v = await verdict(sp, i.response());
    expect(v).toMatchObject({ ok: true, profile: { nameID: DEFAULT_USER.nameId, issuer: i.entityId } });
    expect(v.ok && v.profile.inResponseTo).toBeUndefined();
  });

  it('answer a recorded request', async () => {
    const i = await idp();
    const sp = nodeSamlSp(i);
    const { request } = await requestThrough(sp, i);
    expect(await verdict(sp, i.response({ request }))).toMatchObject({
      ok: true,
      profile: { inResponseTo: request.id },
    });
  });

  it.each([
    ['assertion', { wantAssertionsSigned: true, wantAuthnResponseSigned: false }],
    ['response', { wantAssertionsSigned: false, wantAuthnResponseSigned: true }],
    ['both', { wantAssertionsSigned: true, wantAuthnResponseSigned: true }],
  ] as const)('signed on the %s: accepted by an SP that wants exactly that', async (sign, wants) => {
    const i = await idp();
    const sp = nodeSamlSp(i, wants);
    const { request } = await requestThrough(sp, i);
    const xml = i.responseXml({ request, sign });
    expect(xml.match(/<ds:Signature /g)).toHaveLength(sign === 'both' ? 2 : 1);
    expect(await verdict(sp, Buffer.from(xml).toString('base64'))).toMatchObject({ ok: true });
  });

  it.each([
    ['first', ['first', 'second']],
    ['second', ['first', 'second']],
    ['first', ['first']],
    ['second', ['second']],
  ] as const)('signed with the %s key: accepted when the metadata names it (%j): rotation', async (key, names) => {
    const i = await idp({ certificates: [...names] });
    const sp = nodeSamlSp(i);
    const { request } = await requestThrough(sp, i);
    expect(await verdict(sp, i.response({ request, signingKey: key, sign: 'both' }))).toMatchObject({ ok: true });
  });

  it('are signed with the first certificate of the metadata unless told otherwise', async () => {
    const i = await idp({ certificates: ['second', 'first'] });
    expect(i.responseXml()).toContain(certBody(SAML_KEYS.second.cert));
  });

  it('are issued at the clock the IdP was given, and valid for five minutes from then', async () => {
    const i = await idp({ clock: () => new Date('2026-01-01T00:00:00.000Z') });
    const xml = i.responseXml();
    expect(xml).toContain('IssueInstant="2026-01-01T00:00:00.000Z"');
    expect(xml).toContain('NotBefore="2026-01-01T00:00:00.000Z" NotOnOrAfter="2026-01-01T00:05:00.000Z"');
  });
});
