import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageMessage, type SamlPlatform, samlPlatform } from '../helpers/sso-saml.js';
import { expectRefused } from '../helpers/sso-saml-refusal.js';

// Garbled and hostile input at the ACS: each a 400 page naming what is wrong (never a 500, never a stack), nothing
// created; the XML parsers never see a document type declaration.

let s: SamlPlatform;
beforeAll(async () => {
  s = await samlPlatform();
});
afterAll(() => s.close());

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const SAMLP = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"';
const SAML = 'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const SUCCESS = '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>';

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<samlp:Response ${SAMLP} ID="_r" Version="2.0">${SUCCESS}<x>&lol3;</x></samlp:Response>`;
const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<samlp:Response ${SAMLP} ID="_r" Version="2.0">${SUCCESS}<x>&xxe;</x></samlp:Response>`;

describe('the form', () => {
  it.each<[string, Record<string, string>, string]>([
    ['no SAMLResponse', { RelayState: '_x' }, 'the request carries no SAMLResponse form field'],
    ['an empty SAMLResponse', { SAMLResponse: '' }, 'the SAMLResponse is not base64'],
    ['not base64', { SAMLResponse: 'this is not base64!' }, 'the SAMLResponse is not base64'],
    ['base64 cut short', { SAMLResponse: b64('<samlp:Response/>').slice(0, -3) }, 'the SAMLResponse is not base64'],
  ])('%s', async (_case, fields, check) => {
    await expectRefused(s, fields, 400, check);
  });

  it('SAMLResponse twice', async () => {
    const r = await s.t.platform.fetch(
      new Request(s.acsUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `SAMLResponse=${encodeURIComponent(b64('<a/>'))}&SAMLResponse=${encodeURIComponent(b64('<b/>'))}`,
      }),
    );
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('failed: the request carries SAMLResponse more than once.');
  });

  it('JSON instead of a form', async () => {
    const r = await s.t.platform.fetch(
      new Request(s.acsUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ SAMLResponse: b64('<a/>') }),
      }),
    );
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('failed: the request carries no SAMLResponse form field.');
  });

  it('a body over 1 MiB: 413 from the server bounds, unread', async () => {
    const r = await s.t.platform.fetch(
      new Request(s.acsUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `SAMLResponse=${'A'.repeat(1024 * 1024)}`,
      }),
    );
    expect(r.status).toBe(413);
    expect(((await r.json()) as any).error).toMatchObject({ code: 'invalid_request', status: 413 });
  });
});

describe('the document', () => {
  it.each<[string, string | Buffer, string]>([
    ['not XML', 'hello, world', 'the SAMLResponse is not well-formed XML'],
    ['XML cut short', `<samlp:Response ${SAMLP}>${SUCCESS}`, 'the SAMLResponse is not well-formed XML'],
    ['not UTF-8', Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x2f, 0x3e]), 'the SAMLResponse is not well-formed XML'],
    ['billion laughs', BILLION_LAUGHS, 'the SAMLResponse contains a document type declaration'],
    ['an external entity', EXTERNAL_ENTITY, 'the SAMLResponse contains a document type declaration'],
    [
      'an AuthnRequest',
      `<samlp:AuthnRequest ${SAMLP} ID="_a" Version="2.0"/>`,
      'the SAMLResponse is not a SAML 2.0 Response',
    ],
    [
      'a Response in no namespace',
      '<Response ID="_r"><Status><StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></Status></Response>',
      'the SAMLResponse is not a SAML 2.0 Response',
    ],
    ['no status', `<samlp:Response ${SAMLP} ID="_r" Version="2.0"/>`, 'the response carries no status'],
    [
      'no assertion',
      `<samlp:Response ${SAMLP} ID="_r" Version="2.0">${SUCCESS}</samlp:Response>`,
      'the response carries no assertion',
    ],
    [
      'an encrypted assertion',
      `<samlp:Response ${SAMLP} ${SAML} ID="_r" Version="2.0">${SUCCESS}<saml:EncryptedAssertion/></samlp:Response>`,
      'the assertion is encrypted, and this service provider has no decryption key',
    ],
    [
      'an unsigned assertion',
      `<samlp:Response ${SAMLP} ${SAML} ID="_r" Version="2.0">${SUCCESS}<saml:Assertion ID="_a"/></samlp:Response>`,
      'neither the response nor its assertion is signed',
    ],
    [
      'a signature that is only a name',
      `<samlp:Response ${SAMLP} ${SAML} ID="_r" Version="2.0">${SUCCESS}<saml:Assertion ID="_a">` +
        '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/></saml:Assertion></samlp:Response>',
      'a signature is malformed or uses an algorithm that is not supported',
    ],
    [
      'nested 70 deep',
      `<samlp:Response ${SAMLP} ID="_r" Version="2.0">${SUCCESS}${'<x>'.repeat(70)}${'</x>'.repeat(70)}</samlp:Response>`,
      'the SAMLResponse nests deeper than 64 elements',
    ],
  ])('%s', async (_case, xml, check) => {
    await expectRefused(s, { SAMLResponse: b64(xml) }, 400, check);
  });

  it('a signed response with a deeply nested attribute value: refused, not a 500', async () => {
    const { sent, request } = await s.signIn();
    const deep = `${'<x>'.repeat(70)}${'</x>'.repeat(70)}`;
    const xml = s.idp.responseXml({ request: sent }).replace('>Sam Sample<', `>Sam Sample${deep}<`);
    expect(xml).toContain(deep);
    const r = await s.postAcs({ SAMLResponse: b64(xml), RelayState: request.id });
    expect([r.status, pageMessage(r.text)]).toEqual([
      400,
      "Signing in through your organization's identity provider failed: the SAMLResponse nests deeper than 64 elements.",
    ]);
  });

  it('a response over 128 KiB: refused before any parsing or signature check (anyone may post one)', async () => {
    const padding = `<!-- ${'p'.repeat(700_000)} -->`;
    await expectRefused(
      s,
      { SAMLResponse: b64(`<samlp:Response ${SAMLP} ID="_r" Version="2.0">${padding}${SUCCESS}</samlp:Response>`) },
      400,
      'the SAMLResponse is larger than 128 KiB',
    );
  });

  it('a response just under 128 KiB: read and checked (here: it carries no assertion)', async () => {
    const padding = `<!-- ${'p'.repeat(120 * 1024)} -->`;
    await expectRefused(
      s,
      { SAMLResponse: b64(`<samlp:Response ${SAMLP} ID="_r" Version="2.0">${padding}${SUCCESS}</samlp:Response>`) },
      400,
      'the response carries no assertion',
    );
  });
});
