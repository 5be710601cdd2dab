import { describe, expect, it } from 'vitest';
import { platformWithSso, redeem, useTestIdp } from '../helpers/sso-oidc.js';
import { visit } from '../helpers/sso-sign-in.js';
import { AUTH_URL, authorizeUrl, FormBrowser, formFields, pkce, REDIRECT } from './auth/helpers.js';

/**
 * Routing to the identity provider (docs/sso.md): the sign-in page asks for the e-mail first and sends an e-mail of a
 * single sign-on domain to its organization's provider, `login_hint` does so at once, the device page does so for an
 * e-mail without a password — each through the real OpenID provider on loopback, back to what started it.
 */
const idp = useTestIdp();

describe('routing to the identity provider', () => {
  it('takes login_hint of a single sign-on domain straight to the provider, and the client gets its code', async () => {
    const t = await platformWithSso(idp());
    const { verifier, challenge } = pkce();
    const start = await visit(t.platform.fetch, authorizeUrl(AUTH_URL, challenge, { login_hint: 'alice@acme.test' }));
    expect(start.status).toBe(303);
    const atIdp = new URL(start.location as string);
    expect(`${atIdp.origin}${atIdp.pathname}`).toBe(`${idp().issuer}/auth`);
    expect(atIdp.searchParams.get('login_hint')).toBe('alice@acme.test');
    const back = await idp().completeSignIn(atIdp, 'alice');
    const done = await visit(t.platform.fetch, back);
    expect(done.status).toBe(303);
    const client = new URL(done.location as string);
    expect(`${client.origin}${client.pathname}`).toBe(REDIRECT);
    expect(client.searchParams.get('state')).toBe('st-123');
    const tokens = await redeem(t, done.location as string, verifier);
    expect(tokens.status).toBe(200);
    const me = await whoami(t, tokens.body.access_token);
    expect(me.user.email).toBe('alice@acme.test');
    const sessions = await t.call('GET', `/users/${me.user.id}/sessions`);
    expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'oidc' })]);
  });

  it('sends an e-mail of a single sign-on domain from the e-mail step to the provider, any other to the password step', async () => {
    const t = await platformWithSso(idp());
    const browser = new FormBrowser(t.platform.fetch);
    const page = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge));
    const routed = await browser.post(`${AUTH_URL}/authorize`, { ...formFields(page.text), email: 'Bob@ACME.test' });
    // A page that moves on by itself (a refresh): a redirect after a form would meet the page's CSP form-action.
    expect(routed.status).toBe(200);
    expect(routed.text).toContain('<meta http-equiv="refresh" content="0;url=');
    expect(onwards(routed.text).startsWith(`${idp().issuer}/auth?`)).toBe(true);
    const other = await browser.post(`${AUTH_URL}/authorize`, { ...formFields(page.text), email: 'ann@other.test' });
    expect(other.status).toBe(200);
    expect(other.text).toContain('name="password"');
    // login_hint of another domain opens the form at the password step, the e-mail filled in.
    const hinted = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge, { login_hint: 'ann@other.test' }));
    expect(hinted.status).toBe(200);
    expect(hinted.text).toContain('value="ann@other.test"');
    expect(hinted.text).toContain('name="password"');
  });

  it('approves a device through the provider when the device page gets an e-mail of its domain and no password', async () => {
    const t = await platformWithSso(idp());
    const started = await form(t, `${AUTH_URL}/device/code`, { client_id: 'plat-cli' });
    const browser = new FormBrowser(t.platform.fetch);
    const page = await browser.get(`${AUTH_URL}/device`);
    const routed = await browser.post(`${AUTH_URL}/device`, {
      ...formFields(page.text),
      user_code: started.user_code,
      email: 'alice@acme.test',
      password: '',
      action: 'approve',
    });
    expect(routed.status).toBe(200);
    const back = await idp().completeSignIn(onwards(routed.text), 'alice');
    const connected = await visit(t.platform.fetch, back);
    expect(connected.status).toBe(200);
    expect(connected.text).toContain('Device connected');
    t.clock.advance(10_000);
    const tokens = await form(t, `${AUTH_URL}/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      client_id: 'plat-cli',
      device_code: started.device_code,
    });
    expect(tokens.access_token).toMatch(/\S+/);
    const me = await whoami(t, tokens.access_token);
    expect(me.user.email).toBe('alice@acme.test');
    const sessions = await t.call('GET', `/users/${me.user.id}/sessions`);
    expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'oidc' })]);
  });

  it('runs plat sso test on a disabled configuration: the profile received, nobody created', async () => {
    const t = await platformWithSso(idp());
    const disabled = await t.call('PUT', `/organizations/${t.orgId}/sso`, {
      body: { ...(await currentBody(t)), enabled: false },
    });
    expect(disabled).toMatchObject({ status: 200, body: { enabled: false } });
    const users = (await t.call('GET', `/organizations/${t.orgId}/users`)).body.pagination;
    const started = await t.call('POST', `/organizations/${t.orgId}/sso/tests`);
    expect(started).toMatchObject({ status: 201, body: { status: 'pending', profile: null, failure: null } });
    expect(started.headers.get('location')).toBe(`/v2/organizations/${t.orgId}/sso/tests/${started.body.id}`);
    const back = await idp().completeSignIn(started.body.signInUrl, 'alice');
    const shown = await visit(t.platform.fetch, back);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Single sign-on works');
    const result = await t.call('GET', `/organizations/${t.orgId}/sso/tests/${started.body.id}`);
    expect(result.body).toMatchObject({
      status: 'succeeded',
      signInUrl: null,
      profile: {
        subject: 'alice',
        mapped: { email: 'alice@acme.test', name: 'Alice Adams', metadata: { department: 'Engineering' } },
        attributes: expect.objectContaining({ email: ['alice@acme.test'], department: ['Engineering'] }),
      },
      failure: null,
    });
    expect((await t.call('GET', `/organizations/${t.orgId}/users`)).body.pagination).toEqual(users);
  });
});

/** Where an identity provider page moves on to: its link. */
function onwards(html: string): string {
  const href = /<a id="continue" href="([^"]+)">/.exec(html)?.[1] as string;
  return href.replaceAll('&amp;', '&');
}

async function form(
  t: { platform: { fetch: (r: Request) => Promise<Response> } },
  url: string,
  fields: Record<string, string>,
) {
  const res = await t.platform.fetch(
    new Request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
  return (await res.json()) as Record<string, any>;
}

async function whoami(t: { platform: { fetch: (r: Request) => Promise<Response> } }, token: string) {
  const res = await t.platform.fetch(
    new Request('http://plat.test/v2/auth/whoami', { headers: { Authorization: `Bearer ${token}` } }),
  );
  return (await res.json()) as { user: { id: string; email: string } };
}

/** The configuration's PUT body as it stands (the stored secret is kept when omitted). */
async function currentBody(t: { call: (m: string, p: string) => Promise<{ body: any }>; orgId: string }) {
  const c = (await t.call('GET', `/organizations/${t.orgId}/sso`)).body;
  return {
    protocol: c.protocol,
    provider: c.provider,
    issuer: c.issuer,
    clientId: c.clientId,
    attributeMapping: c.attributeMapping,
    domains: c.domains,
  };
}
