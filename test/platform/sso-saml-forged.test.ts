import { describe, expect, it } from 'vitest';
import { DEFAULT_USER, FORGED_USER, type ResponseParams } from '../helpers/saml-idp.js';
import { samlPlatforms } from '../helpers/sso-saml.js';
import { refusedAnswer } from '../helpers/sso-saml-refusal.js';

// The negative matrix of docs/sso.md against the platform's ACS: each response comes from the real IdP on loopback,
// answers a request the platform really sent through it, and breaks one thing. Each is refused with the check it
// breaks, creates nothing, records `sso.failed`, and tells the waiting CLI `access_denied`. What node-saml alone lets
// through (test/sso/saml-idp-unchecked.test.ts) is here too: the platform's own checks refuse it. Replays, requests,
// refused people and the configuration are in sso-saml-refused.test.ts.

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const setup = samlPlatforms();

const ASSERTION_SIGNATURE = "the assertion's signature does not verify with the identity provider's certificates";
const RESPONSE_SIGNATURE = "the response's signature does not verify with the identity provider's certificates";
const UNSIGNED = 'neither the response nor its assertion is signed';

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
    expect(await s.base.stores.ssoSignIn.identity(s.t.orgId, FORGED_USER.nameId)).toBeUndefined();
    expect(await s.base.stores.ssoSignIn.identity(s.t.orgId, DEFAULT_USER.nameId)).toBeUndefined();
  });
});

describe('certificate rotation', () => {
  it('refuses a response signed by a key the metadata does not name (rotated out)', async () => {
    const s = await setup({ idp: { certificates: ['first'] } });
    expect((await s.base.stores.sso.get(s.t.orgId))?.certificates).toHaveLength(1);
    await refusedAnswer(s, { signingKey: 'second' }, 400, ASSERTION_SIGNATURE);
    const { sent, request } = await s.signIn();
    const ok = await s.postAcs({
      SAMLResponse: s.idp.response({ request: sent, signingKey: 'first' }),
      RelayState: request.id,
    });
    expect(ok.status).toBe(303);
  });
});
