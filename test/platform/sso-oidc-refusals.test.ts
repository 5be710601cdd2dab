import { beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/contract/users.js';
import { dbRows } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { type OidcIdp, startOidcIdp } from '../helpers/oidc-idp.js';
import type { TestPlatform } from '../helpers/platform.js';
import {
  begin,
  callbackOf,
  eventsOf,
  expectRefused,
  platformWithSso,
  secretsOf,
  signInAs,
  ssoBody,
  USERS,
  useTestIdp,
} from '../helpers/sso-oidc.js';
import { failedBecause, failurePage, rowCounts, visit } from '../helpers/sso-sign-in.js';

// Every answer the OpenID Connect relying party must refuse (docs/sso.md), each sent by a real provider (or a link's
// author) and each refused with a page naming the check, the request id, a way back for the waiting client where it
// is known, an `sso.failed` event, no secret shown, and nothing created.

const testIdp = useTestIdp();
let idp: OidcIdp;
beforeAll(() => {
  idp = testIdp();
});

/** `login` signs in at the provider, the platform refuses them with `status` and `check`, and the client is told. */
async function refusedAs(t: TestPlatform, login: string, status: 400 | 403, check: string): Promise<void> {
  const started = await begin(t);
  const before = await rowCounts(t.platform);
  const { back, page } = await signInAs(t, idp, started, login);
  await expectRefused(t, idp, page, { status, check, before, back: true, secrets: secretsOf(started, back) });
}

describe('forged or refused answers, each creating nothing', () => {
  it('a state the platform never issued', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const before = await rowCounts(t.platform);
    const back = await idp.completeSignIn(started.url, 'alice', { state: '_forged-state' });
    const page = await visit(t.platform.fetch, back);
    const check = 'the sign-in request (state) is unknown';
    await expectRefused(t, idp, page, { status: 400, check, before, back: false, secrets: secretsOf(started, back) });
    // The real request was not used up by the forged one.
    expect((await baseOf(t.platform).stores.ssoSignIn.requestState(started.request.id))?.usedAt).toBeNull();
  });

  it('no state at all', async () => {
    const t = await platformWithSso(idp);
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, `${callbackOf(t.orgId)}?code=abc`);
    await expectRefused(t, idp, page, { status: 400, check: 'the answer carries no state', before, back: false });
  });

  it('odd addresses: an unknown organization, a malformed one, a repeated state — pages, never a 500', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const odd = [
      ['/v2/sso/oidc/org_nope/callback?state=abc', 'the sign-in request (state) is unknown'],
      ['/v2/sso/oidc/%ZZ/callback?state=%ZZ', 'the sign-in request (state) is unknown'],
      [
        `/v2/sso/oidc/${t.orgId}/callback?code=abc&state=${started.request.id}&state=other`,
        'the identity provider\'s answer was refused: "state" parameter must be provided only once',
      ],
    ];
    for (const [path, check] of odd) {
      const page = await visit(t.platform.fetch, `http://plat.test${path}`);
      expect({ status: page.status, message: failurePage(page).message }, path).toEqual({
        status: 400,
        message: failedBecause(check as string),
      });
    }
    expect(await rowCounts(t.platform)).toMatchObject({ accounts: 1, sessions: 0, codes: 0, identities: 0 });
  });

  it('the same answer twice: the second is a replay', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const { back, page: first } = await signInAs(t, idp, started, 'alice');
    expect(first.status).toBe(303);
    const before = await rowCounts(t.platform);
    const again = await visit(t.platform.fetch, back);
    const check = 'the sign-in request (state) was used already: an answer cannot be replayed';
    await expectRefused(t, idp, again, { status: 400, check, before, back: false, secrets: secretsOf(started, back) });
  });

  it("the state of another organization's sign-in", async () => {
    const t = await platformWithSso(idp);
    const other = await t.otherOrg();
    await t.platform.admin.verifyDomain(other.orgId, 'other.test');
    const saved = await t.call('PUT', `/organizations/${other.orgId}/sso`, {
      key: other.key,
      body: ssoBody(idp, ['other.test']),
    });
    expect(saved.status).toBe(200);
    const theirs = await begin(t, { orgId: other.orgId });
    const back = await idp.completeSignIn(theirs.url, 'alice');
    expect(back.pathname).toBe(`/v2/sso/oidc/${other.orgId}/callback`);
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, `${callbackOf(t.orgId)}${back.search}`);
    const check = 'the sign-in request (state) belongs to another organization';
    await expectRefused(t, idp, page, { status: 400, check, before, back: false, secrets: secretsOf(theirs, back) });
    expect((await baseOf(t.platform).stores.ssoSignIn.requestState(theirs.request.id))?.usedAt).toBeNull();
  });

  it('an answer that comes back after 10 minutes', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const back = await idp.completeSignIn(started.url, 'alice');
    t.clock.advance(10 * 60_000 + 1);
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, back);
    const check = 'the sign-in request (state) expired: it must come back within 10 minutes';
    await expectRefused(t, idp, page, { status: 400, check, before, back: false, secrets: secretsOf(started, back) });
  });

  const forged: [string, () => void, string][] = [
    [
      'an ID token with another nonce',
      () => idp.forge({ idTokenClaims: { nonce: 'forged-nonce' } }),
      "the ID token's nonce is not the one this sign-in sent (a replayed or injected token)",
    ],
    [
      'an ID token without a nonce',
      () => idp.forge({ idTokenClaims: { nonce: undefined } }),
      'the ID token carries no nonce claim',
    ],
    [
      'an ID token of another issuer',
      () => idp.forge({ idTokenClaims: { iss: `${idp.origin}/another-issuer` } }),
      'the ID token was issued by another issuer than the configured one',
    ],
    [
      'an ID token for another client',
      () => idp.forge({ idTokenClaims: { aud: 'another-client' } }),
      'the ID token is meant for another client (audience)',
    ],
    [
      'an expired ID token',
      () => idp.forge({ idTokenClaims: { exp: Math.floor(Date.now() / 1000) - 3600 } }),
      'the ID token has expired',
    ],
    [
      'an ID token issued an hour from now',
      () => idp.forge({ idTokenClaims: { iat: Math.floor(Date.now() / 1000) + 3600 } }),
      'the ID token was issued in the future (iat more than 3 minutes ahead)',
    ],
    [
      'an ID token signed by a key outside the JWKS',
      () => idp.forge({ foreignKey: true }),
      "the ID token's signature does not verify with the identity provider's keys (JWKS)",
    ],
    [
      'an answer whose iss names another issuer',
      () => idp.forge({ responseIss: `${idp.origin}/another-issuer` }),
      'the answer comes from another identity provider (iss: a mix-up)',
    ],
  ];
  for (const [name, forge, check] of forged) {
    it(name, async () => {
      const t = await platformWithSso(idp);
      const started = await begin(t);
      forge();
      const before = await rowCounts(t.platform);
      const { back, page } = await signInAs(t, idp, started, 'alice');
      await expectRefused(t, idp, page, { status: 400, check, before, back: true, secrets: secretsOf(started, back) });
    });
  }

  it('a mix-up: the request answered by a second, real provider', async () => {
    const t = await platformWithSso(idp);
    const evil = await startOidcIdp({ redirectUris: [callbackOf(t.orgId)], users: USERS });
    try {
      const started = await begin(t);
      const before = await rowCounts(t.platform);
      const back = await evil.completeSignIn(evil.authorizationUrlFor(started.url), 'alice');
      expect(back.searchParams.get('iss')).toBe(evil.issuer);
      const page = await visit(t.platform.fetch, back);
      const check = 'the answer comes from another identity provider (iss: a mix-up)';
      await expectRefused(t, idp, page, { status: 400, check, before, back: true, secrets: secretsOf(started, back) });
    } finally {
      await evil.close();
    }
  });

  it('the person cancels at the provider: the way back tells the client access_denied', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const before = await rowCounts(t.platform);
    const back = await idp.cancelSignIn(started.url);
    const page = await visit(t.platform.fetch, back);
    const check = 'the sign-in was cancelled or refused at the identity provider (access_denied)';
    await expectRefused(t, idp, page, { status: 403, check, before, back: true, secrets: secretsOf(started) });
    // The provider's own words are not put on the platform's page.
    expect(page.text).not.toContain(back.searchParams.get('error_description'));
  });

  it("a provider error the platform does not know, with words of the link's author", async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const before = await rowCounts(t.platform);
    const query = new URLSearchParams({
      state: started.request.id,
      error: '<b>urgent</b>',
      error_description: 'Your account is locked: call +1 555 0100',
    });
    const page = await visit(t.platform.fetch, `${callbackOf(t.orgId)}?${query}`);
    const check = 'the identity provider answered an error the platform does not know';
    await expectRefused(t, idp, page, { status: 400, check, before, back: true, secrets: secretsOf(started) });
    expect(page.text).not.toContain('555');
    expect(page.text).not.toContain('urgent');
  });

  it('single sign-on disabled while the person was at the provider', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const back = await idp.completeSignIn(started.url, 'alice');
    const off = await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: { ...ssoBody(idp), enabled: false } });
    expect(off.status).toBe(200);
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, back);
    const check = 'single sign-on is disabled for this organization';
    await expectRefused(t, idp, page, { status: 403, check, before, back: true, secrets: secretsOf(started, back) });
  });

  it('single sign-on deleted while the person was at the provider', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const back = await idp.completeSignIn(started.url, 'alice');
    expect((await t.call('DELETE', `/organizations/${t.orgId}/sso`)).status).toBe(204);
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, back);
    const check = 'single sign-on through OpenID Connect is not configured for this organization';
    await expectRefused(t, idp, page, { status: 403, check, before, back: true, secrets: secretsOf(started, back) });
  });

  it('a forged answer to `plat sso test`: the test fails with the check', async () => {
    const t = await platformWithSso(idp);
    const base = baseOf(t.platform);
    const test = { id: 'ssotest_1', orgId: t.orgId, createdAt: base.now(), expiresAt: '2999-01-01T00:00:00.000Z' };
    await base.stores.ssoSignIn.insertTest(test);
    const started = await begin(t, { continuation: { kind: 'test', testId: test.id } });
    idp.forge({ idTokenClaims: { aud: 'another-client' } });
    const before = await rowCounts(t.platform);
    const { back, page } = await signInAs(t, idp, started, 'alice');
    const check = 'the ID token is meant for another client (audience)';
    await expectRefused(t, idp, page, { status: 400, check, before, back: false, secrets: secretsOf(started, back) });
    expect(await base.stores.ssoSignIn.test(t.orgId, test.id)).toMatchObject({
      status: 'failed',
      result: { status: 400, check },
    });
  });

  it('a suspended member: no code, no session', async () => {
    const t = await platformWithSso(idp);
    await t.addUser({ email: 'dave@acme.test', status: 'suspended' });
    await refusedAs(t, 'dave', 403, 'the user is suspended');
  });

  it("an e-mail outside the organization's domains", async () => {
    const t = await platformWithSso(idp);
    await refusedAs(t, 'carol', 403, "the e-mail's domain is not one of the organization's");
  });

  it('a provider that went away before the code could be exchanged', async () => {
    const gone = await startOidcIdp({ users: USERS });
    const t = await platformWithSso(gone);
    const started = await begin(t);
    const back = await gone.completeSignIn(started.url, 'alice');
    await gone.close();
    const before = await rowCounts(t.platform);
    const page = await visit(t.platform.fetch, back);
    const check = /^the identity provider's token endpoint could not be reached \((ECONNREFUSED|UND_ERR_SOCKET)\)$/;
    await expectRefused(t, idp, page, { status: 400, check, before, back: true, secrets: secretsOf(started, back) });
  });
});

describe('whose e-mail the platform may trust (docs/sso.md)', () => {
  it('refuses an e-mail the provider says it has not verified', async () => {
    const t = await platformWithSso(idp);
    idp.users.set('alice', { ...USERS.alice, email_verified: false });
    await refusedAs(t, 'alice', 403, 'the identity provider has not verified the e-mail address');
  });

  it('links a member by e-mail only if the provider says it verified the address', async () => {
    const t = await platformWithSso(idp);
    await t.addUser({ email: 'bob@acme.test' });
    const { email_verified: _, ...unsaid } = USERS.bob as Record<string, unknown>;
    idp.users.set('bob', unsaid);
    await refusedAs(
      t,
      'bob',
      403,
      'the identity provider does not say it verified the e-mail address (email_verified)',
    );
  });

  it('provisions a newcomer of the domain whose provider does not say (nobody is taken over)', async () => {
    const t = await platformWithSso(idp);
    const { email_verified: _, ...unsaid } = USERS.dave as Record<string, unknown>;
    idp.users.set('dave', unsaid);
    const started = await begin(t);
    const { page } = await signInAs(t, idp, started, 'dave');
    expect(page.status).toBe(303);
    expect(await eventsOf(t, 'user.provisioned')).toEqual([
      expect.objectContaining({ data: { email: 'dave@acme.test', role: 'member', protocol: 'oidc' } }),
    ]);
  });

  it('refuses an account of other organizations only: a domain claim is no proof of owning the domain', async () => {
    const t = await platformWithSso(idp);
    const other = await t.otherOrg();
    await t.addUser({ email: 'dave@acme.test', orgId: other.orgId });
    await refusedAs(
      t,
      'dave',
      403,
      'the e-mail belongs to an account outside the organization: an owner must invite it first',
    );
    // Invited, still not theirs until they accept: the invitation proves nothing of who answers at the provider.
    const { userId } = await t.addUser({ email: 'dave@acme.test', status: 'pending' });
    await refusedAs(
      t,
      'dave',
      403,
      "the e-mail belongs to an account that has not accepted the organization's invitation: it must accept it first",
    );
    // Once they accepted, the same answer signs them in as that account.
    const base = baseOf(t.platform);
    await base.stores.users.update(t.orgId, {
      ...((await base.stores.users.get(t.orgId, userId)) as User),
      status: 'active',
    });
    const again = await begin(t);
    expect((await signInAs(t, idp, again, 'dave')).page.status).toBe(303);
    const linked = await dbRows(t.platform, 'SELECT user_id FROM sso_identities WHERE org_id = ?', t.orgId);
    expect(linked).toEqual([{ user_id: userId }]);
  });

  it('refuses several e-mail addresses in the mapped claim, whichever of them is of the domain', async () => {
    const t = await platformWithSso(idp);
    idp.users.set('alice', { ...USERS.alice, email: ['mallory@elsewhere.test', 'alice@acme.test'] } as never);
    await refusedAs(t, 'alice', 400, 'the identity provider sent no single e-mail address as email (email)');
  });
});
