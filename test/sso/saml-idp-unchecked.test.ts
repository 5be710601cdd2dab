import type { SamlConfig } from '@node-saml/node-saml';
import { ValidateInResponseTo } from '@node-saml/node-saml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAML_KEYS, type SamlIdp, startSamlIdp } from '../helpers/saml-idp.js';
import { naive } from './naive-verifier.js';
import { answerRequest, nodeSamlSp, type Params, requestThrough, verdict, WANT_EITHER_SIGNED } from './node-saml-sp.js';

// Forged responses that node-saml (set up as the platform's SP will be) accepts, because it checks nothing of what
// they break: each is shown valid in every other way here, so that when the platform refuses it, its own check is
// what did. The platform must make every one of these checks (docs/sso.md).

let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ user: { nameId: 'idp-user-0001', email: 'sam@acme.test', name: 'Sam' } });
});
afterAll(() => idp.close());
const answer = (params: Params, sp: Partial<SamlConfig> = {}) => answerRequest(idp, params, sp);

describe('accepted by node-saml: the platform must refuse these itself', () => {
  it.each<[string, Params, Partial<SamlConfig>]>([
    ['wrong Destination (node-saml never reads it)', { destination: 'https://other.test/acs', sign: 'both' }, {}],
    ['no Destination', { destination: null, sign: 'both' }, {}],
    ['wrong Recipient (node-saml never reads it)', { recipient: 'https://other.test/acs' }, {}],
    [
      'unsolicited, to an SP that checks InResponseTo only if present',
      { inResponseTo: null },
      { validateInResponseTo: ValidateInResponseTo.ifPresent },
    ],
    [
      'both signed, the assertion by a stranger, to an SP that does not require the assertion signed',
      { sign: 'both', signingKey: { response: 'first', assertion: 'stranger' } },
      WANT_EITHER_SIGNED,
    ],
    [
      'both signed, the response by a stranger, to an SP that does not require the response signed',
      { sign: 'both', signingKey: { response: 'stranger', assertion: 'first' } },
      {},
    ],
  ])('%s', async (_case, params, sp) => {
    expect(await answer(params, sp)).toMatchObject({ ok: true });
  });

  it('another Issuer, even with idpIssuer set (node-saml checks it on logout messages only); reported in the profile', async () => {
    expect(await answer({ issuer: 'https://evil.test/idp' }, { idpIssuer: idp.entityId })).toMatchObject({
      ok: true,
      profile: { issuer: 'https://evil.test/idp' },
    });
  });

  it('the same assertion ID in two responses to two requests (the platform keeps the IDs it has seen)', async () => {
    const first = await answer({ assertionId: '_assertion-replayed' });
    const second = await answer({ assertionId: '_assertion-replayed' });
    expect([first.ok, second.ok]).toEqual([true, true]);
  });

  it('a mixed-key response is refused once the SP wants each signature it finds', async () => {
    const assertionByStranger = { sign: 'both', signingKey: { response: 'first', assertion: 'stranger' } } as const;
    expect(await answer(assertionByStranger, { wantAssertionsSigned: true })).toEqual({
      ok: false,
      error: 'Invalid signature',
    });
    const responseByStranger = { sign: 'both', signingKey: { response: 'stranger', assertion: 'first' } } as const;
    expect(await answer(responseByStranger, { wantAuthnResponseSigned: true })).toEqual({
      ok: false,
      error: 'Invalid document signature',
    });
  });

  const FULL = 'eve@acme.test.evil.example';
  it.each([
    ['nameId', { nameId: 'eve@acme.test', email: FULL }],
    ['email', { nameId: FULL, email: 'eve@acme.test' }],
  ] as const)(
    'the %s split by a comment after signing: the signature holds, node-saml reads all of it',
    async (field, naiveRead) => {
      const sp = nodeSamlSp(idp);
      const { request } = await requestThrough(sp, idp);
      const xml = idp.responseXml({
        request,
        user: { nameId: FULL, email: FULL },
        tamper: { comment: { field, at: 'eve@acme.test'.length } },
      });
      expect(xml.match(/>eve@acme\.test<!---->\.evil\.example</g)).toHaveLength(1);
      expect(naive(xml, SAML_KEYS.first.cert)).toEqual(naiveRead);
      expect(await verdict(sp, Buffer.from(xml).toString('base64'))).toMatchObject({
        ok: true,
        profile: { nameID: FULL, email: FULL },
      });
    },
  );
});
