import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { signInUrl } from '../../src/platform/sso/oidc.js';
import type { OidcSso } from '../../src/platform/sso/oidc-client.js';
import { newSsoRequest } from '../../src/platform/sso/sign-in.js';
import type { SsoContinuation, SsoRequest } from '../../src/platform/store/sso-sign-in.js';
import { pkce, REDIRECT, tokenRequest } from '../platform/auth/helpers.js';
import { baseOf } from './internals.js';
import { type IdpClaims, type OidcIdp, startOidcIdp } from './oidc-idp.js';
import { type TestPlatform, testPlatform } from './platform.js';
import { failedBecause, failurePage, type Page, rowCounts, visit } from './sso-sign-in.js';

// The OpenID Connect relying party's tests (test/platform/sso-oidc*.test.ts): a platform whose organization signs in
// through the test IdP, sign-ins started as the routing starts them, and what every refused one must show. The IdP
// signs with the real clock, so each platform's fixed clock starts at the real time.

/** The accounts of the test IdP: three of the organization's domain, one outside it. */
export const USERS: Record<string, IdpClaims> = {
  alice: { email: 'alice@acme.test', email_verified: true, name: 'Alice Adams', department: 'Engineering' },
  bob: { email: 'bob@acme.test', email_verified: true, name: 'Bob Brown', department: 'Sales' },
  dave: { email: 'dave@acme.test', email_verified: true, name: 'Dave Davis' },
  carol: { email: 'carol@elsewhere.test', email_verified: true, name: 'Carol Clark' },
};

/** The test IdP of a test file: started once, honest again and with its accounts as they were after each test. */
export function useTestIdp(): () => OidcIdp {
  let idp: OidcIdp | undefined;
  beforeAll(async () => {
    idp = await startOidcIdp({ users: USERS });
  });
  afterEach(() => {
    idp?.forge({});
    idp?.users.clear();
    for (const [sub, claims] of Object.entries(USERS)) idp?.users.set(sub, claims);
  });
  afterAll(() => idp?.close());
  return () => idp as OidcIdp;
}

/** The platform's redirect URI for an organization (the test platform's public URL is http://plat.test). */
export const callbackOf = (orgId: string) => `http://plat.test/v2/sso/oidc/${orgId}/callback`;

/** The organization's SSO through `at`, as its owner saves it. */
export function ssoBody(at: OidcIdp, domains = ['acme.test']) {
  return {
    protocol: 'oidc',
    provider: 'custom-oidc',
    enabled: true,
    issuer: at.issuer,
    clientId: at.clientId,
    clientSecret: at.clientSecret,
    attributeMapping: { email: 'email', name: 'name', department: 'department' },
    domains,
  };
}

/** A platform on the real time whose organization signs in through `at`. */
export async function platformWithSso(at: OidcIdp): Promise<TestPlatform> {
  const t = await testPlatform();
  t.clock.set(new Date().toISOString());
  at.setRedirectUris([callbackOf(t.orgId), callbackOf('org_0002')]);
  // Single sign-on takes verified domains only: the operator vouches, as `plat local domains verify` does.
  await t.platform.admin.verifyDomain(t.orgId, 'acme.test');
  const saved = await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(at) });
  expect(saved.status).toBe(200);
  return t;
}

/** `plat login`'s authorization request, waiting on the sign-in: its client gets the code. */
export function authorizeContinuation(challenge: string): SsoContinuation {
  return {
    kind: 'authorize',
    clientId: 'plat-cli',
    redirectUri: REDIRECT,
    state: 'client-state',
    codeChallenge: challenge,
    scopes: null,
    ipAddress: null,
    userAgent: null,
  };
}

export interface Started {
  request: SsoRequest;
  url: string;
  /** The CLI's PKCE verifier (not the one the platform sends to the IdP). */
  verifier: string;
}

/** Starts a sign-in of the organization's SSO as the routing does: a request, then the provider's URL. */
export async function begin(
  t: Pick<TestPlatform, 'platform' | 'orgId'>,
  opts: { orgId?: string; continuation?: SsoContinuation; loginHint?: string } = {},
): Promise<Started> {
  const base = baseOf(t.platform);
  const config = (await base.stores.sso.get(opts.orgId ?? t.orgId)) as OidcSso;
  const { verifier, challenge } = pkce();
  const request = await newSsoRequest(base, config, opts.continuation ?? authorizeContinuation(challenge));
  const url = await signInUrl(base, config, request, { loginHint: opts.loginHint });
  return { request, url, verifier };
}

/** The person signs in at the provider as `login`, and their browser brings the answer back to the platform. */
export async function signInAs(
  t: TestPlatform,
  idp: OidcIdp,
  started: Started,
  login: string,
): Promise<{ back: URL; page: Page }> {
  const back = await idp.completeSignIn(started.url, login);
  return { back, page: await visit(t.platform.fetch, back) };
}

/** Redeems the code the client got, as `plat login` does. */
export function redeem(t: TestPlatform, location: string, verifier: string) {
  return tokenRequest(t.platform.fetch, {
    grant_type: 'authorization_code',
    client_id: 'plat-cli',
    code: new URL(location).searchParams.get('code') as string,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
}

/** The organization's events of one type, newest first. */
export async function eventsOf(t: TestPlatform, type: string) {
  const r = await t.call('GET', `/organizations/${t.orgId}/events?type=${type}&limit=100`);
  return r.body.data as { type: string; actor: unknown; target: unknown; data: Record<string, unknown> }[];
}

/** What every refused sign-in shows: its page, its way back (if the client is known), nothing created, the event. */
export async function expectRefused(
  t: TestPlatform,
  idp: OidcIdp,
  page: Page,
  r: { status: 400 | 403; check: string | RegExp; before: Record<string, number>; back: boolean; secrets?: string[] },
) {
  const requestId = page.headers.get('x-request-id');
  // A check may hold what the network said (a socket refused, or closed under a kept-alive connection).
  const said = failurePage(page).message?.slice(failedBecause('').length - 1, -1) ?? '';
  if (r.check instanceof RegExp) expect(said).toMatch(r.check);
  const check = typeof r.check === 'string' ? r.check : said;
  expect({ status: page.status, location: page.location, ...failurePage(page) }).toEqual({
    status: r.status,
    location: null,
    message: failedBecause(check),
    note: `Request ${requestId}. Nobody was signed in and nothing was changed.`,
    ...(r.back ? { back: expect.any(URL) } : {}),
  });
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  if (r.back) {
    const back = failurePage(page).back as URL;
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: check,
      state: 'client-state',
      iss: 'http://plat.test/v2/auth',
    });
  }
  expect(await rowCounts(t.platform)).toEqual(r.before);
  const [failed] = await eventsOf(t, 'sso.failed');
  expect(failed).toMatchObject({
    actor: { type: 'system', id: 'sso:oidc' },
    target: { type: 'organization', id: t.orgId },
    data: { protocol: 'oidc', status: r.status, reason: check },
    requestId,
  });
  for (const secret of [idp.clientSecret, ...(r.secrets ?? [])]) {
    expect(page.text).not.toContain(secret);
    expect(JSON.stringify(failed)).not.toContain(secret);
  }
}

/** The secrets of a sign-in, which no page or event may show: the PKCE verifier, the nonce, the provider's code. */
export function secretsOf(started: Started, back?: URL): string[] {
  const secret = started.request.secret as { codeVerifier: string; nonce: string };
  const code = back?.searchParams.get('code');
  return [secret.codeVerifier, secret.nonce, ...(code ? [code] : [])];
}
