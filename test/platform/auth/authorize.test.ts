import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { baseOf } from '../../helpers/internals.js';
import {
  AUTH_URL,
  type AuthTestPlatform,
  authorizationCode,
  authorizePlatform,
  authorizeUrl,
  FormBrowser,
  formFields,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  pkce,
  REDIRECT,
  redeem,
  signIn,
  withToken,
} from './helpers.js';

const ACTION = `${AUTH_URL}/authorize`;

/** A platform, a browser on it, and a login page already open. */
async function loginPage(t: AuthTestPlatform, extra: Record<string, string> = {}) {
  const browser = new FormBrowser(t.fetch);
  const page = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge, extra));
  return { browser, page, fields: formFields(page.text) };
}

describe('GET {auth_url}/authorize', () => {
  it('shows a login page that needs no script, with labelled fields, a CSRF token and a strict CSP', async () => {
    const t = await authorizePlatform();
    const { browser, page, fields } = await loginPage(t);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:49152");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain('<label for="email">E-mail</label>');
    expect(page.text).toMatch(/<input id="email" name="email" type="email" autocomplete="username"/);
    // E-mail first (docs/sso.md): the password is asked for once the e-mail is known to have no single sign-on.
    expect(page.text).not.toContain('name="password"');
    expect(page.text).toContain('<button type="submit">Continue</button>');
    expect(page.text).toContain(`<form method="post" action="/v2/auth/authorize">`);
    expect(page.text).toMatch(/<a href="\/v2\/auth\/authorize\?[^"]*password=1">Sign in with a password instead<\/a>/);
    const next = await browser.post(ACTION, { ...fields, email: 'someone@acme.test' });
    expect(next.status).toBe(200);
    expect(next.text).toMatch(
      /<input id="email" name="email" type="email" autocomplete="username" required value="someone@acme.test">/,
    );
    expect(next.text).toContain('<label for="password">Password</label>');
    expect(next.text).toMatch(/<input id="password" name="password" type="password" autocomplete="current-password"/);
    expect(next.text).toContain('<button type="submit">Sign in</button>');
    const cookie = page.headers.getSetCookie()[0] ?? '';
    expect(cookie).toMatch(/^plat_csrf=[A-Za-z0-9_-]{43}; Path=\/v2\/auth; HttpOnly; SameSite=Strict$/);
    expect(fields.csrf).toBe(browser.cookies.get('plat_csrf'));
    expect(fields).toMatchObject({
      client_id: 'plat-cli',
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge_method: 'S256',
      state: 'st-123',
    });
  });

  it('lets the form lead to an IPv6 loopback redirect, which CSP can only name by port', async () => {
    const t = await authorizePlatform();
    const { page } = await loginPage(t, { redirect_uri: 'http://[::1]:5000/callback' });
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://*:5000;");
  });

  it('escapes whatever the request carries into the page', async () => {
    const t = await authorizePlatform();
    const { page, fields } = await loginPage(t, { state: '"><script>alert(1)</script>' });
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(fields.state).toBe('"><script>alert(1)</script>');
  });

  it('keeps the CSRF cookie a browser already has, so two open tabs both work', async () => {
    const t = await authorizePlatform();
    const { browser, fields } = await loginPage(t);
    const second = await browser.get(authorizeUrl(AUTH_URL, pkce().challenge));
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(formFields(second.text).csrf).toBe(fields.csrf);
  });

  it('shows an error page, and never redirects, when the client or the redirect URI is not registered', async () => {
    const t = await authorizePlatform();
    const { challenge } = pkce();
    const refused: Record<string, string>[] = [
      { client_id: 'nobody' },
      { client_id: '' },
      { redirect_uri: 'http://127.0.0.1:49152/callback/x' }, // path changed
      { redirect_uri: 'http://127.0.0.1:49152/Callback' },
      { redirect_uri: 'http://127.0.0.1:49152/callback?x=1' }, // query added
      { redirect_uri: 'http://127.0.0.1:49152/callback#f' },
      { redirect_uri: 'http://localhost:49152/callback' }, // host changed (RFC 8252: IP literals only)
      { redirect_uri: 'http://127.0.0.2:49152/callback' },
      { redirect_uri: 'https://127.0.0.1:49152/callback' }, // scheme changed
      { redirect_uri: 'http://127.0.0.1:49152@evil.test/callback' },
      { redirect_uri: 'http://127.0.0.1:0/callback' },
      { redirect_uri: 'http://127.0.0.1:65536/callback' },
      { redirect_uri: 'http://127.0.0.1:080/callback' },
      { redirect_uri: 'http://[::1]:49152/other' },
      { redirect_uri: 'https://evil.test/callback' },
      { redirect_uri: '' },
    ];
    for (const extra of refused) {
      const r = await new FormBrowser(t.fetch).get(authorizeUrl(AUTH_URL, challenge, extra));
      expect({ extra, status: r.status, location: r.location }).toEqual({ extra, status: 400, location: null });
      expect(r.text).toContain('role="alert"');
    }
    const twice = await t.fetch(
      new Request(`${authorizeUrl(AUTH_URL, challenge)}&redirect_uri=${encodeURIComponent(REDIRECT)}`),
    );
    expect(twice.status).toBe(400);
    for (const redirect_uri of [
      'http://127.0.0.1/callback',
      'http://127.0.0.1:1/callback',
      'http://127.0.0.1:65535/callback',
      'http://[::1]:5000/callback',
      'http://[::1]/callback',
    ]) {
      const r = await new FormBrowser(t.fetch).get(authorizeUrl(AUTH_URL, challenge, { redirect_uri }));
      expect({ redirect_uri, status: r.status }).toEqual({ redirect_uri, status: 200 });
    }
  });

  it('returns the other errors to the client as RFC 6749 redirects, with state and iss', async () => {
    const t = await authorizePlatform();
    const { challenge } = pkce();
    const cases: [Record<string, string>, string, string][] = [
      [{ code_challenge: '' }, 'invalid_request', 'code_challenge is required (PKCE with S256)'],
      [{ code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256'],
      [{ code_challenge_method: '' }, 'invalid_request', 'code_challenge_method must be S256'],
      [{ code_challenge: 'short' }, 'invalid_request', 'malformed code_challenge'],
      [{ response_type: 'token' }, 'unsupported_response_type', 'only response_type=code'],
      [{ response_type: '' }, 'invalid_request', 'response_type is required'],
      [{ scope: 'projects:read root:all' }, 'invalid_scope', 'unknown scope: root:all'],
      [{ org: 'not an org' }, 'invalid_request', 'org is not an organization identifier'],
    ];
    for (const [extra, error, description] of cases) {
      const url = new URL(authorizeUrl(AUTH_URL, challenge, extra));
      for (const [k, v] of Object.entries(extra)) if (v === '') url.searchParams.delete(k);
      const r = await new FormBrowser(t.fetch).get(url.href);
      expect(r.status).toBe(303);
      const back = new URL(r.location as string);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error,
        error_description: description,
        state: 'st-123',
        iss: AUTH_URL,
      });
    }
    const repeated = await t.fetch(new Request(`${authorizeUrl(AUTH_URL, challenge)}&scope=a&scope=b`));
    expect(new URL(repeated.headers.get('location') as string).searchParams.get('error_description')).toBe(
      'scope is given more than once',
    );
  });
});

describe('POST {auth_url}/authorize', () => {
  it('redirects to the loopback URI with a code, the state and iss, and records the login', async () => {
    const t = await authorizePlatform();
    const { location } = await authorizationCode(t);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(AUTH_URL);
    const owner = await t.call('GET', `/users/${t.ownerId}`);
    expect(owner.body.lastLoginAt).toBe('2026-01-01T00:00:00.000Z');
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=user.signed_in`);
    expect(events.body.data.map((e: any) => [e.actor, e.data])).toEqual([
      [
        { type: 'user', id: t.ownerId },
        { clientId: 'plat-cli', method: 'password', amr: ['pwd'] },
      ],
    ]);
  });

  it('refuses a form without the CSRF token of the browser', async () => {
    const t = await authorizePlatform();
    const { browser, fields } = await loginPage(t);
    const creds = { email: OWNER_EMAIL, password: OWNER_PASSWORD };
    const missing = await browser.post(ACTION, { ...fields, csrf: '', ...creds });
    expect(missing.status).toBe(403);
    expect(missing.location).toBeNull();
    expect(missing.text).toContain('This form has expired');
    const other = await browser.post(ACTION, { ...fields, csrf: 'A'.repeat(43), ...creds });
    expect(other.status).toBe(403);
    const wide = await browser.post(ACTION, { ...fields, csrf: 'é'.repeat(43), ...creds });
    expect(wide.status).toBe(403);
    const noCookie = await new FormBrowser(t.fetch).post(ACTION, { ...fields, ...creds });
    expect(noCookie.status).toBe(403);
  });

  it('answers a wrong password, an unknown e-mail and an account without a password alike', async () => {
    const t = await authorizePlatform();
    await t.addUser({ email: 'nopass@acme.test' });
    const answers = [];
    for (const [email, password] of [
      [OWNER_EMAIL, 'wrong password, long enough'],
      ['nobody@acme.test', OWNER_PASSWORD],
      ['nopass@acme.test', OWNER_PASSWORD],
    ] as const) {
      const { browser } = await loginPage(t);
      const r = await signIn(browser, authorizeUrl(AUTH_URL, pkce().challenge), email, password);
      answers.push({
        status: r.status,
        location: r.location,
        error: /<p class="error" role="alert" id="error">([^<]*)<\/p>/.exec(r.text)?.[1],
      });
      expect(r.text).toContain(`value="${email}"`);
    }
    expect(answers).toEqual(Array(3).fill({ status: 401, location: null, error: 'Incorrect e-mail or password.' }));
  });

  it('slows failed sign-ins down per account, whether the e-mail exists or not, on the injected clock', async () => {
    const t = await authorizePlatform();
    const attempt = async (email: string, password: string) =>
      signIn(new FormBrowser(t.fetch), authorizeUrl(AUTH_URL, pkce().challenge), email, password);
    for (const email of [OWNER_EMAIL, 'ghost@acme.test']) {
      for (let i = 0; i < 5; i++) expect((await attempt(email, 'not the password at all')).status).toBe(401);
      const locked = await attempt(email, OWNER_PASSWORD);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('1');
      expect(locked.text).toContain('Too many failed sign-ins. Try again in 1 second.');
    }
    t.clock.advance(1000);
    expect((await attempt(OWNER_EMAIL, 'not the password at all')).status).toBe(401);
    const longer = await attempt(OWNER_EMAIL, OWNER_PASSWORD);
    expect(longer.headers.get('retry-after')).toBe('2');
    t.clock.advance(2000);
    expect((await attempt(OWNER_EMAIL, OWNER_PASSWORD)).status).toBe(303);
    // Success cleared the account's counter.
    expect((await attempt(OWNER_EMAIL, 'not the password at all')).status).toBe(401);
    expect((await attempt(OWNER_EMAIL, OWNER_PASSWORD)).status).toBe(303);
  });

  it('slows failed sign-ins down per client address across accounts', async () => {
    const t = await authorizePlatform();
    const from = (ip: string) =>
      new FormBrowser((r) => t.platform.fetch(r, { incoming: { socket: { remoteAddress: ip } } }));
    // Four accounts, five failures each: no account is locked yet, the address is (20 failures).
    for (let u = 0; u < 4; u++) {
      await t.addUser({ email: `u${u}@acme.test`, password: 'the right password' });
      for (let i = 0; i < 5; i++) {
        const url = authorizeUrl(AUTH_URL, pkce().challenge);
        expect((await signIn(from('203.0.113.9'), url, `u${u}@acme.test`, 'wrong-wrong-wrong')).status).toBe(401);
      }
    }
    const blocked = await signIn(
      from('203.0.113.9'),
      authorizeUrl(AUTH_URL, pkce().challenge),
      OWNER_EMAIL,
      OWNER_PASSWORD,
    );
    expect(blocked.status).toBe(429);
    const elsewhere = await signIn(
      from('198.51.100.1'),
      authorizeUrl(AUTH_URL, pkce().challenge),
      OWNER_EMAIL,
      OWNER_PASSWORD,
    );
    expect(elsewhere.status).toBe(303);
  });

  it('lets a user of several organizations pick one; the token acts there', async () => {
    const t = await authorizePlatform();
    const base = baseOf(t.platform);
    const other = await base.stores.organizations.get(t.orgId);
    expect(other).toBeDefined();
    const second = await t.call('POST', '/organizations', { body: { name: 'Second Org' } });
    expect(second.status).toBe(201);
    const { browser } = await loginPage(t);
    const { verifier, challenge } = pkce();
    const picker = await signIn(browser, authorizeUrl(AUTH_URL, challenge), OWNER_EMAIL, OWNER_PASSWORD);
    expect(picker.status).toBe(200);
    expect(picker.text).toContain('Choose an organization');
    expect(picker.text).toContain('<legend>Organization to sign in to</legend>');
    expect(picker.text).toContain('<label for="org-1">Second Org</label>');
    const fields = formFields(picker.text);
    expect(fields.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fields.email).toBeUndefined();
    expect(fields.password).toBeUndefined();
    const done = await browser.post(ACTION, { ...fields, org: second.body.id });
    expect(done.status).toBe(303);
    // The ticket is single-use.
    const again = await browser.post(ACTION, { ...fields, org: second.body.id });
    expect(again.status).toBe(400);
    expect(again.text).toContain('This step has expired');
    // The code gives a token for the organization picked: it acts there by default (no X-Org-Id).
    const code = new URL(done.location as string).searchParams.get('code') as string;
    const tokens = await redeem(t, code, verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token).org).toBe(second.body.id);
    const whoami = await t.call('GET', '/auth/whoami', withToken(tokens.body.access_token));
    expect(whoami.body.organization.id).toBe(second.body.id);
    const there = await t.call('GET', `/organizations/${second.body.id}/users`, withToken(tokens.body.access_token));
    expect(there.status).toBe(200);
    expect(there.body.data.map((u: any) => u.email)).toEqual([OWNER_EMAIL]);
  });

  it('uses the org parameter instead of asking, and denies an organization the user is not active in', async () => {
    const t = await authorizePlatform();
    const second = await t.call('POST', '/organizations', { body: { name: 'Second Org' } });
    const { verifier, location } = await authorizationCode(t, { extra: { org: second.body.id } });
    const tokens = await redeem(t, location.searchParams.get('code') as string, verifier);
    expect(decodeJwt(tokens.body.access_token).org).toBe(second.body.id);
    const foreign = await t.addUser({ email: 'solo@acme.test', password: 'solo password is long' });
    expect(foreign).toMatch(/^user_/);
    const r = await signIn(
      new FormBrowser(t.fetch),
      authorizeUrl(AUTH_URL, pkce().challenge, { org: second.body.id }),
      'solo@acme.test',
      'solo password is long',
    );
    expect(r.status).toBe(303);
    expect(Object.fromEntries(new URL(r.location as string).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the user is not an active member of the requested organization',
      state: 'st-123',
      iss: AUTH_URL,
    });
  });

  it('grants the scopes asked for that the user holds, and invalid_scope when it holds none of them', async () => {
    const t = await authorizePlatform();
    await t.addUser({ email: 'mia@acme.test', password: 'member password is long' });
    const member = { email: 'mia@acme.test', password: 'member password is long' };
    const some = await authorizationCode(t, { ...member, extra: { scope: 'projects:read sso:write' } });
    const tokens = await redeem(t, some.code, some.verifier);
    expect(tokens.body.scope).toBe('projects:read');
    const all = await authorizationCode(t, member);
    expect((await redeem(t, all.code, all.verifier)).body.scope).toBe(
      'org:read users:read projects:read projects:write members:read members:write resources:read resources:write sessions:read sessions:write',
    );
    const none = await signIn(
      new FormBrowser(t.fetch),
      authorizeUrl(AUTH_URL, pkce().challenge, { scope: 'sso:write' }),
      member.email,
      member.password,
    );
    expect(new URL(none.location as string).searchParams.get('error')).toBe('invalid_scope');
  });
});
