import type { SamlConfig } from '@node-saml/node-saml';
import { ValidateInResponseTo } from '@node-saml/node-saml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORGED_USER,
  type ResponseParams,
  SAML_KEYS,
  type SamlIdp,
  startSamlIdp,
  type WrapVariant,
} from '../helpers/saml-idp.js';
import { naive } from './naive-verifier.js';
import {
  ACS_URL,
  answerRequest,
  minutesFromNow,
  nodeSamlSp,
  type Params,
  requestThrough,
  SP_ENTITY_ID,
  verdict,
  WANT_EITHER_SIGNED,
  WANT_RESPONSE_SIGNED,
} from './node-saml-sp.js';

// The negative matrix of docs/sso.md, proven real without the platform: each forged response is refused by node-saml
// (set up as the platform's SP will be) with the error of the check it breaks. Every case answers a request the SP
// really sent, so it breaks one thing only. What node-saml does not check is in saml-idp-unchecked.test.ts.

let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ user: { nameId: 'idp-user-0001', email: 'sam@acme.test', name: 'Sam' } });
});
afterAll(() => idp.close());
const answer = (params: Params, sp: Partial<SamlConfig> = {}, at = idp) => answerRequest(at, params, sp);

describe('refused by node-saml, each with the error of the check it breaks', () => {
  it.each<[string, Params, Partial<SamlConfig>, string]>([
    ['unsigned', { sign: 'none' }, {}, 'Invalid signature'],
    ['unsigned, to an SP that takes either signature', { sign: 'none' }, WANT_EITHER_SIGNED, 'Invalid signature'],
    [
      "unsigned, to node-saml's defaults (both signatures wanted)",
      { sign: 'none' },
      { wantAssertionsSigned: undefined, wantAuthnResponseSigned: undefined },
      'Invalid document signature',
    ],
    ['NameID changed after signing', { tamper: { nameId: 'idp-user-0002' } }, {}, 'Invalid signature'],
    ['e-mail changed after signing', { tamper: { email: 'root@acme.test' } }, {}, 'Invalid signature'],
    [
      'e-mail changed after signing the response',
      { sign: 'response', tamper: { email: 'root@acme.test' } },
      WANT_RESPONSE_SIGNED,
      'Invalid document signature',
    ],
    ['assertion signed by a stranger', { signingKey: 'stranger' }, {}, 'Invalid signature'],
    [
      'response signed by a stranger',
      { sign: 'response', signingKey: 'stranger' },
      WANT_RESPONSE_SIGNED,
      'Invalid document signature',
    ],
    [
      'wrong audience',
      { audience: 'https://other.test/sp' },
      {},
      `SAML assertion audience mismatch. Expected: ${SP_ENTITY_ID} Received: https://other.test/sp`,
    ],
    [
      'expired beyond the skew (issued 10 minutes ago, valid for 5)',
      minutesFromNow(-10),
      {},
      'No valid subject confirmation found among those available in the SAML assertion',
    ],
    [
      'expired beyond the skew, to an SP that checks no InResponseTo',
      minutesFromNow(-10),
      { validateInResponseTo: ValidateInResponseTo.never },
      'SAML assertion expired: clocks skewed too much',
    ],
    [
      'not yet valid beyond the skew (issued 10 minutes from now)',
      minutesFromNow(10),
      {},
      'SAML assertion not yet valid',
    ],
    [
      'unsolicited (IdP-initiated) when a request is required',
      { inResponseTo: null },
      {},
      'InResponseTo is missing from response',
    ],
    [
      "InResponseTo of a request this SP never sent (another organization's)",
      { inResponseTo: '_not-ours' },
      {},
      'InResponseTo is not valid',
    ],
    [
      'an IdP that refuses the user',
      { status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' },
      {},
      'SAML provider returned Responder error: unspecified',
    ],
  ])('%s', async (_case, params, sp, error) => {
    expect(await answer(params, sp)).toEqual({ ok: false, error });
  });

  it('(but accepted when expired within the skew: valid until 2 minutes ago)', async () => {
    expect(await answer(minutesFromNow(-7))).toMatchObject({ ok: true });
  });

  it('signed by the second key while the metadata names only the first', async () => {
    const rotatedOut = await startSamlIdp({ certificates: ['first'] });
    try {
      expect(await answer({ signingKey: 'second' }, {}, rotatedOut)).toEqual({ ok: false, error: 'Invalid signature' });
    } finally {
      await rotatedOut.close();
    }
  });

  it('replayed: the same response posted twice (its InResponseTo is used up)', async () => {
    const sp = nodeSamlSp(idp);
    const { request } = await requestThrough(sp, idp);
    const response = idp.response({ request });
    expect((await verdict(sp, response)).ok).toBe(true);
    expect(await verdict(sp, response)).toEqual({ ok: false, error: 'InResponseTo is not valid' });
  });
});

describe('signature wrapping: accepted by a naive verifier, refused by node-saml', () => {
  it('(the naive verifier does check the signature: it refuses what is unsigned, tampered or signed by a stranger)', () => {
    const to = { acsUrl: ACS_URL, audience: SP_ENTITY_ID };
    expect(naive(idp.responseXml(to), SAML_KEYS.first.cert)).toEqual({
      nameId: 'idp-user-0001',
      email: 'sam@acme.test',
    });
    expect(naive(idp.responseXml({ ...to, sign: 'none' }), SAML_KEYS.first.cert)).toBeNull();
    expect(naive(idp.responseXml({ ...to, tamper: { nameId: 'x' } }), SAML_KEYS.first.cert)).toBeNull();
    expect(naive(idp.responseXml({ ...to, signingKey: 'stranger' }), SAML_KEYS.first.cert)).toBeNull();
  });

  it.each<[WrapVariant, ResponseParams['sign'], Partial<SamlConfig>, string]>([
    ['beside', 'assertion', {}, 'Invalid signature: multiple assertions'],
    ['advice', 'assertion', {}, 'Invalid signature'],
    ['signature-moved', 'assertion', {}, "Invalid signature: Referenced node does not refer to it's parent element"],
    ['response-wrap', 'response', WANT_RESPONSE_SIGNED, 'Invalid document signature'],
    ['response-wrap', 'response', WANT_EITHER_SIGNED, 'Invalid signature'],
  ])('%s (signed: %s)', async (variant, sign, sp, error) => {
    const saml = nodeSamlSp(idp, sp);
    const { request } = await requestThrough(saml, idp);
    const xml = idp.responseXml({ request, sign, wrap: variant });
    expect(naive(xml, SAML_KEYS.first.cert)).toEqual(FORGED_USER);
    expect(await verdict(saml, Buffer.from(xml).toString('base64'))).toEqual({ ok: false, error });
  });

  it('wraps for whomever the test names, and refuses a combination that would fail for another reason', () => {
    const xml = idp.responseXml({
      acsUrl: ACS_URL,
      audience: SP_ENTITY_ID,
      wrap: { variant: 'beside', as: { nameId: 'boss' } },
    });
    expect(naive(xml, SAML_KEYS.first.cert)).toEqual({ nameId: 'boss', email: 'sam@acme.test' });
    expect(() => idp.responseXml({ acsUrl: ACS_URL, audience: SP_ENTITY_ID, sign: 'both', wrap: 'advice' })).toThrow(
      'wrap advice needs sign assertion, not both',
    );
  });
});
