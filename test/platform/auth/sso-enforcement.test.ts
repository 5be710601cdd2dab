import { describe, expect, it } from 'vitest';
import type { User } from '../../../src/contract/users.js';
import { samlMetadata } from '../../helpers/idp-documents.js';
import { baseOf } from '../../helpers/internals.js';
import {
  AUTH_URL,
  type AuthTestPlatform,
  authorizePlatform,
  authorizeUrl,
  FormBrowser,
  formFields,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  pkce,
  signIn,
} from './helpers.js';

const MEMBER = { email: 'max@acme.test', password: 'max has a long enough password' };
const OUTSIDER = { email: 'olga@other.test', password: 'olga has a long enough password' };
const REFUSED =
  'Your organization signs you in through its identity provider: continue with your e-mail only, without a password.';

/** An organization's SAML single sign-on for acme.test through `idp` (uploaded metadata: nothing to fetch). */
async function claimAcme(t: AuthTestPlatform, orgId: string, idp: string, enabled: boolean): Promise<void> {
  const metadataXml = samlMetadata({ entityId: `https://${idp}`, ssoUrl: `https://${idp}/sso` });
  await t.platform.admin.verifyDomain(orgId, 'acme.test');
  const r = await t.call('PUT', `/organizations/${orgId}/sso`, {
    body: {
      protocol: 'saml',
      provider: 'custom-saml',
      metadataXml,
      attributeMapping: { email: 'email' },
      domains: ['acme.test'],
      enabled,
    },
  });
  expect(r.status).toBe(200);
}

/** Acme with single sign-on for acme.test, enabled or not. */
async function withSso(enabled: boolean): Promise<AuthTestPlatform> {
  const t = await authorizePlatform();
  await claimAcme(t, t.orgId, 'idp.acme.test', enabled);
  await t.addUser(MEMBER);
  await t.addUser(OUTSIDER);
  return t;
}

function passwordSignIn(t: AuthTestPlatform, who: { email: string; password: string }) {
  return signIn(new FormBrowser(t.fetch), authorizeUrl(AUTH_URL, pkce().challenge), who.email, who.password);
}

describe('password sign-in while single sign-on is enabled (docs/sso.md)', () => {
  it('is refused to members of its domains, pointing to single sign-on — before the password is even checked', async () => {
    const t = await withSso(true);
    const r = await passwordSignIn(t, MEMBER);
    expect(r.status).toBe(403);
    expect(r.text).toContain(REFUSED);
    const wrong = await passwordSignIn(t, { ...MEMBER, password: 'not the password at all' });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain(REFUSED);
    expect((await t.call('GET', `/users/${await userId(t, MEMBER.email)}/sessions`)).body.data).toEqual([]);
  });

  it("is still open to the organization's owners (break-glass), and to e-mails of other domains", async () => {
    const t = await withSso(true);
    expect((await passwordSignIn(t, { email: OWNER_EMAIL, password: OWNER_PASSWORD })).status).toBe(303);
    expect((await passwordSignIn(t, OUTSIDER)).status).toBe(303);
  });

  it('is open to everyone while the configuration is disabled', async () => {
    const t = await withSso(false);
    expect((await passwordSignIn(t, MEMBER)).status).toBe(303);
  });

  it("offers the password step to owners from the e-mail step's link", async () => {
    const t = await withSso(true);
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge));
    const link = /<a href="([^"]+)">Sign in with a password instead<\/a>/.exec(page.text)?.[1] as string;
    const step = await browser.get(`http://plat.test${link.replaceAll('&amp;', '&')}`);
    expect(step.text).toContain('name="password"');
    const done = await browser.post(`${AUTH_URL}/authorize`, {
      ...formFields(step.text),
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
    });
    expect(done.status).toBe(303);
    expect(new URL(done.location as string).searchParams.get('code')).toMatch(/\S+/);
  });

  it("is not another organization's to refuse: a claim on the domain governs only its own members and new people", async () => {
    // Acme's members are of acme.test; Beta (another organization, its owner anyone) claims acme.test for itself.
    const t = await authorizePlatform();
    await t.addUser(MEMBER);
    const beta = await t.call('POST', '/organizations', { body: { name: 'Beta' } });
    await claimAcme(t, beta.body.id, 'idp.beta.test', true);
    // Acme's member signs in with their password, and is never sent to Beta's identity provider…
    expect((await passwordSignIn(t, MEMBER)).status).toBe(303);
    const browser = new FormBrowser(t.fetch);
    const hinted = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge, { login_hint: MEMBER.email }));
    expect(hinted.status).toBe(200);
    expect(hinted.text).toContain('name="password"');
    // …while someone with no account yet is: Beta's identity provider may provision them, in Beta only.
    const newcomer = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge, { login_hint: 'new@acme.test' }));
    expect(newcomer.status).toBe(303);
    expect(newcomer.location?.startsWith('https://idp.beta.test/sso?SAMLRequest=')).toBe(true);
    // An authorization request for another organization is not Beta's identity provider's to answer.
    const forAcme = await browser.get(
      authorizeUrl(AUTH_URL, pkce().challenge, { login_hint: 'new@acme.test', org: t.orgId }),
    );
    expect(forAcme.status).toBe(200);
  });
});

describe('whom a claim governs, and when (docs/sso.md)', () => {
  it('an account invited from another organization: only once it accepts, and never a sign-in asking for another', async () => {
    const t = await authorizePlatform();
    const maxId = await t.addUser(MEMBER);
    const beta = (await t.call('POST', '/organizations', { body: { name: 'Beta' } })).body.id as string;
    await claimAcme(t, beta, 'idp.beta.test', true);
    await t.addUser({ ...MEMBER, orgId: beta, status: 'pending' });
    // Invited to Beta, not yet accepted: their password as before, and no trip to Beta's identity provider.
    expect((await passwordSignIn(t, MEMBER)).status).toBe(303);
    const hint = (extra: Record<string, string> = {}) =>
      new FormBrowser(t.fetch).get(authorizeUrl(AUTH_URL, pkce().challenge, { login_hint: MEMBER.email, ...extra }));
    expect((await hint()).status).toBe(200);
    // Accepted: Beta's identity provider signs them in, and their password is refused…
    const base = baseOf(t.platform);
    await base.stores.users.update(beta, { ...((await base.stores.users.get(beta, maxId)) as User), status: 'active' });
    const refused = await passwordSignIn(t, MEMBER);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(REFUSED);
    expect((await hint()).status).toBe(303);
    // …except by a sign-in that asks for Acme, which Beta's single sign-on does not govern.
    const forAcme = authorizeUrl(AUTH_URL, pkce().challenge, { org: t.orgId });
    const signedIn = await signIn(new FormBrowser(t.fetch), forAcme, MEMBER.email, MEMBER.password);
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location as string).searchParams.get('code')).toMatch(/\S+/);
    expect((await hint({ org: t.orgId })).status).toBe(200);
  });
});

async function userId(t: AuthTestPlatform, email: string): Promise<string> {
  const r = await t.call('GET', `/organizations/${t.orgId}/users?search=${encodeURIComponent(email)}`);
  return r.body.data[0].id as string;
}
