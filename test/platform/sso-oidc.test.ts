import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { s256 } from '../../src/platform/auth/pkce.js';
import type { SsoContinuation } from '../../src/platform/store/sso-sign-in.js';
import { baseOf } from '../helpers/internals.js';
import { type OidcIdp, startOidcIdp } from '../helpers/oidc-idp.js';
import {
  begin,
  callbackOf,
  eventsOf,
  platformWithSso,
  redeem,
  signInAs,
  ssoBody,
  USERS,
  useTestIdp,
} from '../helpers/sso-oidc.js';
import { rowCounts } from '../helpers/sso-sign-in.js';
import { REDIRECT, tokenRequest, withToken } from './auth/helpers.js';

// The OpenID Connect relying party (docs/sso.md) against a real provider (oidc-provider on loopback): the redirect to
// it, the callback and the code exchange, then the sign-in it continues — an authorization code for the CLI, a device
// approval, a test. The forged answers are in sso-oidc-refusals.test.ts.

const testIdp = useTestIdp();
let idp: OidcIdp;
beforeAll(() => {
  idp = testIdp();
});

describe('the redirect to the OpenID provider', () => {
  it("is the provider's authorization endpoint with PKCE S256, state, nonce and the scopes; login_hint if known", async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t, { loginHint: 'alice@acme.test' });
    const url = new URL(started.url);
    const secret = started.request.secret as { codeVerifier: string; nonce: string };
    expect(url.origin + url.pathname).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: idp.clientId,
      response_type: 'code',
      redirect_uri: callbackOf(t.orgId),
      scope: 'openid email profile',
      code_challenge: s256(secret.codeVerifier),
      code_challenge_method: 'S256',
      state: started.request.id,
      nonce: secret.nonce,
      login_hint: 'alice@acme.test',
    });
    // Without a hint, none is sent; the request is fresh each time.
    const plain = new URL((await begin(t)).url);
    expect(plain.searchParams.has('login_hint')).toBe(false);
    expect(plain.searchParams.get('state')).not.toBe(started.request.id);
    expect(plain.searchParams.get('nonce')).not.toBe(secret.nonce);
  });
});

describe('a sign-in through the OpenID provider', () => {
  it('provisions the person, gives the client its code, and the session says oidc', async () => {
    const t = await platformWithSso(idp);
    const started = await begin(t);
    const { back, page } = await signInAs(t, idp, started, 'alice');
    expect(back.origin + back.pathname).toBe(callbackOf(t.orgId));
    expect(page.status).toBe(303);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const location = new URL(page.location as string);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      code: expect.stringMatching(/^\S{20,}$/),
      state: 'client-state',
      iss: 'http://plat.test/v2/auth',
    });

    const tokens = await redeem(t, location.href, started.verifier);
    expect(tokens.status).toBe(200);
    const userId = decodeJwt(tokens.body.access_token).sub as string;
    expect(userId).not.toBe(t.ownerId);
    const user = await t.call('GET', `/users/${userId}`);
    expect(user.body).toMatchObject({
      id: userId,
      email: 'alice@acme.test',
      name: 'Alice Adams',
      role: 'member',
      status: 'active',
      emailVerified: true,
      metadata: { department: 'Engineering' },
      lastLoginAt: expect.any(String),
    });
    const sessions = await t.call('GET', `/users/${userId}/sessions`, withToken(tokens.body.access_token));
    expect(sessions.body.data).toEqual([
      expect.objectContaining({ userId, method: 'oidc', amr: ['sso'], current: true }),
    ]);

    expect(await eventsOf(t, 'user.provisioned')).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'sso:oidc' },
        target: { type: 'user', id: userId },
        data: { email: 'alice@acme.test', role: 'member', protocol: 'oidc' },
      }),
    ]);
    expect(await eventsOf(t, 'user.signed_in')).toEqual([
      expect.objectContaining({
        actor: { type: 'user', id: userId },
        data: { clientId: 'plat-cli', method: 'oidc', amr: ['sso'] },
      }),
    ]);
    expect(await eventsOf(t, 'sso.failed')).toEqual([]);
  });

  it("is exempt from the organization's mfa policy: the identity provider vouches for the person (docs/mfa.md)", async () => {
    const t = await platformWithSso(idp);
    expect((await t.call('PATCH', `/organizations/${t.orgId}`, { body: { mfa: 'required' } })).status).toBe(200);
    const started = await begin(t);
    const { page } = await signInAs(t, idp, started, 'alice');
    expect(page.status).toBe(303);
    const tokens = await redeem(t, page.location as string, started.verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token).amr).toEqual(['sso']);
  });

  it('signs the same sub in as the same user after its e-mail changed, and updates its name', async () => {
    const t = await platformWithSso(idp);
    const first = await begin(t);
    const firstPage = (await signInAs(t, idp, first, 'alice')).page;
    const userId = decodeJwt((await redeem(t, firstPage.location as string, first.verifier)).body.access_token).sub;

    idp.users.set('alice', { ...USERS.alice, email: 'alice.adams@acme.test', name: 'Alice B. Adams' });
    const second = await begin(t);
    const { page } = await signInAs(t, idp, second, 'alice');
    expect(page.status).toBe(303);
    const tokens = await redeem(t, page.location as string, second.verifier);
    expect(decodeJwt(tokens.body.access_token).sub).toBe(userId);
    expect((await t.call('GET', `/users/${userId}`)).body).toMatchObject({ name: 'Alice B. Adams' });
    expect(await eventsOf(t, 'user.provisioned')).toHaveLength(1);
    expect(await eventsOf(t, 'user.signed_in')).toHaveLength(2);
    expect(await rowCounts(t.platform)).toMatchObject({ accounts: 2, memberships: 2, identities: 1, sessions: 2 });
  });

  it('makes an invited (pending) member active and verified, without provisioning another', async () => {
    const t = await platformWithSso(idp);
    const { userId } = await t.addUser({ email: 'bob@acme.test', status: 'pending' });
    const started = await begin(t);
    const { page } = await signInAs(t, idp, started, 'bob');
    expect(page.status).toBe(303);
    const tokens = await redeem(t, page.location as string, started.verifier);
    expect(decodeJwt(tokens.body.access_token).sub).toBe(userId);
    expect((await t.call('GET', `/users/${userId}`)).body).toMatchObject({
      status: 'active',
      emailVerified: true,
      name: 'Bob Brown',
      metadata: { department: 'Sales' },
    });
    expect(await eventsOf(t, 'user.provisioned')).toEqual([]);
  });

  it('approves a waiting device, whose token then opens an oidc session', async () => {
    const t = await platformWithSso(idp);
    const device = await t.platform.fetch(
      new Request('http://plat.test/v2/auth/device/code', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'client_id=plat-cli',
      }),
    );
    const { device_code, user_code } = (await device.json()) as { device_code: string; user_code: string };
    const continuation: SsoContinuation = {
      kind: 'device',
      userCode: user_code.replace('-', ''),
      ipAddress: null,
      userAgent: null,
    };
    const { page } = await signInAs(t, idp, await begin(t, { continuation }), 'alice');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Device connected</h1>');
    t.clock.advance(6_000);
    const tokens = await tokenRequest(t.platform.fetch, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      client_id: 'plat-cli',
      device_code,
    });
    expect(tokens.status).toBe(200);
    const userId = decodeJwt(tokens.body.access_token).sub as string;
    const sessions = await t.call('GET', `/users/${userId}/sessions`, withToken(tokens.body.access_token));
    expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'oidc' })]);
  });

  it('shows what arrived to `plat sso test`, creating nobody', async () => {
    const t = await platformWithSso(idp);
    const base = baseOf(t.platform);
    const before = await rowCounts(t.platform);
    const test = { id: 'ssotest_1', orgId: t.orgId, createdAt: base.now(), expiresAt: '2999-01-01T00:00:00.000Z' };
    await base.stores.ssoSignIn.insertTest(test);
    const { page } = await signInAs(
      t,
      idp,
      await begin(t, { continuation: { kind: 'test', testId: test.id } }),
      'alice',
    );
    expect(page.status).toBe(200);
    const stored = await base.stores.ssoSignIn.test(t.orgId, test.id);
    expect(stored?.status).toBe('succeeded');
    expect(stored?.result).toEqual({
      subject: 'alice',
      mapped: { email: 'alice@acme.test', name: 'Alice Adams', metadata: { department: 'Engineering' } },
      attributes: {
        sub: ['alice'],
        email: ['alice@acme.test'],
        email_verified: ['true'],
        name: ['Alice Adams'],
        department: ['Engineering'],
        aud: [idp.clientId],
        iss: [idp.issuer],
        iat: [expect.stringMatching(/^\d+$/)],
        exp: [expect.stringMatching(/^\d+$/)],
      },
    });
    expect(page.text).toContain('&quot;subject&quot;: &quot;alice&quot;');
    expect(await rowCounts(t.platform)).toEqual(before);
  });
});

describe('saving the configuration again', () => {
  it('keeps what was read from the provider while it names the same one: enable and disable work while it is down', async () => {
    const down = await startOidcIdp({ users: USERS });
    const t = await platformWithSso(down);
    await down.close();
    const saved = await t.call('PUT', `/organizations/${t.orgId}/sso`, {
      body: { ...ssoBody(down), enabled: false, defaultRole: 'admin' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ enabled: false, defaultRole: 'admin', issuer: down.issuer });
    // Reading it again on purpose does reach for it, and says it could not.
    const refreshed = await t.call('POST', `/organizations/${t.orgId}/sso/refresh`);
    expect(refreshed.status).toBe(422);
    expect(refreshed.body.error.details).toEqual([expect.objectContaining({ field: 'issuer' })]);
  });

  it("forgets who was who at the old provider once it names another: its subjects are not the new one's", async () => {
    const t = await platformWithSso(idp);
    const first = await begin(t);
    const firstPage = (await signInAs(t, idp, first, 'alice')).page;
    const userId = decodeJwt((await redeem(t, firstPage.location as string, first.verifier)).body.access_token).sub;
    expect((await rowCounts(t.platform)).identities).toBe(1);

    // Saved again through the same provider: who is who stays.
    const same = await t.call('PUT', `/organizations/${t.orgId}/sso`, {
      body: { ...ssoBody(idp), defaultRole: 'admin' },
    });
    expect(same.status).toBe(200);
    expect((await rowCounts(t.platform)).identities).toBe(1);

    const other = await startOidcIdp({ users: USERS });
    try {
      other.setRedirectUris([callbackOf(t.orgId)]);
      const moved = await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(other) });
      expect(moved.status).toBe(200);
      expect((await rowCounts(t.platform)).identities).toBe(0);
      // Alice signs in through the new provider: linked again by her verified e-mail, as the same user.
      const again = await begin(t);
      const { page } = await signInAs(t, other, again, 'alice');
      expect(page.status).toBe(303);
      expect(decodeJwt((await redeem(t, page.location as string, again.verifier)).body.access_token).sub).toBe(userId);
      expect((await rowCounts(t.platform)).identities).toBe(1);
      // Deleted, then saved anew: nothing of the old configuration's identities survives, whatever is named next.
      expect((await t.call('DELETE', `/organizations/${t.orgId}/sso`)).status).toBe(204);
      expect((await rowCounts(t.platform)).identities).toBe(0);
    } finally {
      await other.close();
    }
  });
});
