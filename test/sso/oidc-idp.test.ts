import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { type OidcIdp, signInOnPage, startOidcIdp } from '../helpers/oidc-idp.js';

// The test IdP proved without the platform: openid-client plays the relying party exactly as plat will (discovery,
// PKCE S256, state, nonce, the code grant with every check), against a real oidc-provider on a real socket.

const ALICE = { email: 'alice@acme.test', email_verified: true, name: 'Alice Adams', department: 'Engineering' };

let rp: Server;
let callback: string;
const landed: string[] = [];
let idp: OidcIdp;

beforeAll(async () => {
  // The relying party's callback, for Chromium to land on (HTTP sign-ins never follow it).
  rp = createServer((req, res) => {
    landed.push(new URL(req.url ?? '/', callback).href);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('back at the relying party');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/v2/sso/oidc/org_1/callback`;
  idp = await startOidcIdp({ users: { alice: ALICE } });
  idp.setRedirectUris([callback]); // after start, as a test that learns its organization's id later does
});

afterEach(() => idp.forge({}));

afterAll(async () => {
  await idp?.close();
  await new Promise((resolve) => rp?.close(resolve));
});

/** A relying party's sign-in with openid-client: discovery, then an authorization URL with PKCE S256, state, nonce. */
async function relyingParty(at: OidcIdp, opts: { post?: boolean; nonRepudiation?: boolean } = {}) {
  const auth = opts.post ? client.ClientSecretPost(at.clientSecret) : client.ClientSecretBasic(at.clientSecret);
  const execute = [client.allowInsecureRequests, ...(opts.nonRepudiation ? [client.enableNonRepudiationChecks] : [])];
  const config = await client.discovery(new URL(at.issuer), at.clientId, undefined, auth, { execute });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callback,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const finish = (back: URL, checks: client.AuthorizationCodeGrantChecks = {}) =>
    client.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      ...checks,
    });
  return { config, url, state, nonce, finish };
}

/** What a refusal says: openid-client's error, and the check of oauth4webapi under it. */
async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => expect.unreachable('openid-client accepted it'),
    (e: any) => e,
  );
  return { name: err.name, message: err.message, code: err.code, check: err.cause?.message };
}

describe('the test OpenID provider', () => {
  it('publishes a discovery document whose endpoints are under its issuer, with PKCE S256 and RFC 9207', async () => {
    const doc: any = await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json();
    expect(doc).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/auth`,
      token_endpoint: `${idp.issuer}/token`,
      jwks_uri: `${idp.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
      scopes_supported: expect.arrayContaining(['openid', 'email', 'profile']),
      claims_supported: expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'department']),
    });
    const jwks: any = await (await fetch(doc.jwks_uri)).json();
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', kid: 'test-idp-1', alg: 'RS256', use: 'sig' })]);
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('signs a person in over HTTP; the code yields an ID token with e-mail, name and custom claims', async () => {
    const r = await relyingParty(idp);
    const back = await idp.completeSignIn(r.url, 'alice');
    expect(back.origin + back.pathname).toBe(callback);
    expect(back.searchParams.get('state')).toBe(r.state);
    expect(back.searchParams.get('iss')).toBe(idp.issuer);
    const tokens = await r.finish(back);
    expect(tokens.claims()).toEqual({
      ...ALICE,
      sub: 'alice',
      nonce: r.nonce,
      aud: 'plat',
      iss: idp.issuer,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
  });

  it('signs in by e-mail too, and sees accounts added or changed after start', async () => {
    idp.users.set('bob', { email: 'bob@acme.test', email_verified: false, name: 'Bob Brown' });
    const r = await relyingParty(idp);
    const tokens = await r.finish(await idp.completeSignIn(r.url, 'bob@acme.test'));
    expect(tokens.claims()).toMatchObject({
      sub: 'bob',
      email: 'bob@acme.test',
      email_verified: false,
      name: 'Bob Brown',
    });
    expect(tokens.claims()).not.toHaveProperty('department');
  });

  it('refuses an unknown account at its login form', async () => {
    const r = await relyingParty(idp);
    await expect(idp.completeSignIn(r.url, 'mallory')).rejects.toThrow(
      /^test IdP answered 401 at \/interaction\/[\w-]+: No account "mallory" at this IdP\.$/,
    );
  });

  it('sends the person back with access_denied when they cancel', async () => {
    const r = await relyingParty(idp);
    const back = await idp.cancelSignIn(r.url);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the person cancelled the sign-in at the IdP',
      state: r.state,
      iss: idp.issuer,
    });
    expect(await refusal(r.finish(back))).toMatchObject({
      name: 'AuthorizationResponseError',
      code: 'OAUTH_AUTHORIZATION_RESPONSE_ERROR',
    });
  });
});

describe('what the provider enforces of a relying party', () => {
  it('requires PKCE: a request without a code challenge comes back as an error', async () => {
    const r = await relyingParty(idp);
    const bare = new URL(r.url);
    bare.searchParams.delete('code_challenge');
    bare.searchParams.delete('code_challenge_method');
    const back = await idp.completeSignIn(bare, 'alice');
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toBe(
      'Authorization Server policy requires PKCE to be used for this request',
    );
  });

  it('binds the code to the verifier and redeems it once', async () => {
    const r = await relyingParty(idp);
    const back = await idp.completeSignIn(r.url, 'alice');
    const wrong = await refusal(r.finish(back, { pkceCodeVerifier: client.randomPKCECodeVerifier() }));
    expect(wrong).toMatchObject({
      name: 'ResponseBodyError',
      message: 'server responded with an error in the response body',
    });
    const other = await idp.completeSignIn(r.url, 'alice');
    await r.finish(other);
    const again = await refusal(r.finish(other));
    expect(again).toMatchObject({ name: 'ResponseBodyError', code: 'OAUTH_RESPONSE_BODY_ERROR' });
  });

  it('refuses a callback it does not know, on its own error page', async () => {
    const r = await relyingParty(idp);
    const elsewhere = new URL(r.url);
    elsewhere.searchParams.set('redirect_uri', callback.replace('org_1', 'org_2'));
    await expect(idp.completeSignIn(elsewhere, 'alice')).rejects.toThrow(
      /^test IdP answered 400 at \/auth: invalid_redirect_uri: redirect_uri did not match any of the client's registered redirect_uris$/,
    );
  });

  it('serves an issuer with a path, and takes client_secret_post as well as client_secret_basic', async () => {
    const other = await startOidcIdp({ path: '/realms/acme', redirectUris: [callback], users: { alice: ALICE } });
    try {
      expect(other.issuer).toBe(`${other.origin}/realms/acme`);
      const r = await relyingParty(other, { post: true });
      expect(r.url.href.startsWith(`${other.issuer}/auth?`)).toBe(true);
      const back = await other.completeSignIn(r.url, 'alice');
      expect(back.searchParams.get('iss')).toBe(other.issuer);
      expect((await r.finish(back)).claims()).toMatchObject({ iss: other.issuer, sub: 'alice', email: ALICE.email });
    } finally {
      await other.close();
    }
  });
});

describe('forged sign-ins, each refused by openid-client', () => {
  const INVALID_CLAIM = {
    name: 'ClientError',
    message: 'unexpected JWT claim value encountered',
    code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  };
  const INVALID_RESPONSE = {
    name: 'ClientError',
    message: 'invalid response encountered',
    code: 'OAUTH_INVALID_RESPONSE',
  };

  /** A relying party's sign-in through the IdP as it now behaves; what openid-client says of the callback. */
  async function signIn(opts: { state?: string; nonRepudiation?: boolean } = {}) {
    const r = await relyingParty(idp, opts);
    return refusal(r.finish(await idp.completeSignIn(r.url, 'alice', { state: opts.state })));
  }

  it('a state the relying party never issued', async () => {
    expect(await signIn({ state: 'forged-state' })).toEqual({
      ...INVALID_RESPONSE,
      check: 'unexpected "state" response parameter value',
    });
  });

  it('an ID token with another nonce, or none', async () => {
    idp.forge({ idTokenClaims: { nonce: 'forged-nonce' } });
    expect(await signIn()).toEqual({ ...INVALID_CLAIM, check: 'unexpected ID Token "nonce" claim value' });
    idp.forge({ idTokenClaims: { nonce: undefined } });
    expect(await signIn()).toEqual({ ...INVALID_RESPONSE, check: 'JWT "nonce" (nonce) claim missing' });
  });

  it('an ID token of another issuer', async () => {
    idp.forge({ idTokenClaims: { iss: `${idp.origin}/another-issuer` } });
    expect(await signIn()).toEqual({ ...INVALID_CLAIM, check: 'unexpected JWT "iss" (issuer) claim value' });
  });

  it('an ID token for another client', async () => {
    idp.forge({ idTokenClaims: { aud: 'another-client' } });
    expect(await signIn()).toEqual({ ...INVALID_CLAIM, check: 'unexpected JWT "aud" (audience) claim value' });
  });

  it('an expired ID token', async () => {
    idp.forge({ idTokenClaims: { exp: Math.floor(Date.now() / 1000) - 3600 } });
    expect(await signIn()).toEqual({
      name: 'ClientError',
      message: 'JWT timestamp claim value failed validation',
      code: 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
      check: 'unexpected JWT "exp" (expiration time) claim value, expiration is past current timestamp',
    });
  });

  it('an ID token signed by a key outside the JWKS: refused only with enableNonRepudiationChecks', async () => {
    idp.forge({ foreignKey: true });
    // Over TLS, openid-client trusts the token endpoint and does not verify the ID token's signature unless asked:
    // a relying party held to "signature checked against the IdP's JWKS" (docs/sso.md) must ask.
    const trusting = await relyingParty(idp);
    const tokens = await trusting.finish(await idp.completeSignIn(trusting.url, 'alice'));
    expect(tokens.claims()?.sub).toBe('alice');
    expect(await signIn({ nonRepudiation: true })).toEqual({
      ...INVALID_RESPONSE,
      check: 'JWT signature verification failed',
    });
  });

  it('a callback whose iss parameter (RFC 9207) names another issuer', async () => {
    idp.forge({ responseIss: `${idp.origin}/another-issuer` });
    expect(await signIn()).toEqual({
      ...INVALID_RESPONSE,
      check: 'unexpected "iss" (issuer) response parameter value',
    });
  });

  it('a mix-up: the same request answered by a second, real provider', async () => {
    const evil = await startOidcIdp({ redirectUris: [callback], users: { alice: ALICE } });
    try {
      const r = await relyingParty(idp);
      const back = await evil.completeSignIn(evil.authorizationUrlFor(r.url), 'alice');
      expect(back.searchParams.get('iss')).toBe(evil.issuer);
      expect(await refusal(r.finish(back))).toEqual({
        ...INVALID_RESPONSE,
        check: 'unexpected "iss" (issuer) response parameter value',
      });
    } finally {
      await evil.close();
    }
  });

  it('a discovery document that claims another issuer', async () => {
    idp.forge({ discoveryIssuer: `${idp.origin}/another-issuer` });
    expect(await refusal(relyingParty(idp))).toEqual({
      name: 'ClientError',
      message: 'discovered metadata issuer does not match the expected issuer',
      code: 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
      check: undefined,
    });
  });

  it('is honest again once the forgery is lifted', async () => {
    idp.forge({ idTokenClaims: { aud: 'another-client' }, foreignKey: true, responseIss: 'x', discoveryIssuer: 'y' });
    idp.forge({});
    const r = await relyingParty(idp, { nonRepudiation: true });
    expect((await r.finish(await idp.completeSignIn(r.url, 'alice'))).claims()?.aud).toBe('plat');
  });
});

describe('in a real browser (Chromium, JavaScript off)', () => {
  let browser: Browser;
  let realm: OidcIdp;
  beforeAll(async () => {
    browser = await launchChromium();
    // An issuer with a path, so that Chromium (unlike the HTTP walk) also proves the cookies' paths.
    realm = await startOidcIdp({ path: '/realms/acme', redirectUris: [callback], users: { alice: ALICE } });
  });
  afterAll(async () => {
    await browser?.close();
    await realm?.close();
  });

  it('shows the login page, signs in and lands on the callback with a code openid-client redeems', async () => {
    const r = await relyingParty(realm, { nonRepudiation: true });
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(r.url.href);
      expect(await page.title()).toBe('Sign in — test IdP');
      await Promise.all([page.waitForURL((u) => u.href.startsWith(callback)), signInOnPage(page, 'alice@acme.test')]);
      expect(await page.textContent('body')).toBe('back at the relying party');
      const back = new URL(page.url());
      expect(landed).toContain(back.href);
      expect(back.searchParams.get('iss')).toBe(realm.issuer);
      expect((await r.finish(back)).claims()).toMatchObject({ sub: 'alice', ...ALICE, nonce: r.nonce });
      // The IdP's session cookie is now in this browser: the next sign-in goes straight back, as at a real IdP.
      const again = await relyingParty(realm);
      await page.goto(again.url.href);
      expect(page.url().startsWith(callback)).toBe(true);
      expect((await again.finish(new URL(page.url()))).claims()?.sub).toBe('alice');
    } finally {
      await context.close();
    }
  });
});
