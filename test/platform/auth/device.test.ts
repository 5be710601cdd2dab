import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  AUTH_URL,
  type AuthTestPlatform,
  authorizePlatform,
  FormBrowser,
  formFields,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  tokenRequest,
  withToken,
} from './helpers.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function start(t: AuthTestPlatform, fields: Record<string, string> = {}) {
  const res = await t.fetch(
    new Request(`${AUTH_URL}/device/code`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'plat-cli', ...fields }).toString(),
    }),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function poll(t: AuthTestPlatform, deviceCode: string, clientId = 'plat-cli') {
  return tokenRequest(t.fetch, { grant_type: GRANT, client_id: clientId, device_code: deviceCode });
}

/** Opens the device page (from the complete URI) and posts it. */
async function answer(t: AuthTestPlatform, uri: string, fields: Record<string, string>) {
  const browser = new FormBrowser(t.fetch);
  const page = await browser.get(uri);
  const typed = /id="user_code"[^>]*value="([^"]*)"/.exec(page.text)?.[1] ?? '';
  return browser.post(`${AUTH_URL}/device`, { ...formFields(page.text), user_code: typed, ...fields });
}

describe('the device authorization grant (RFC 8628)', () => {
  it('starts with a device code and a user code to enter at {auth_url}/device', async () => {
    const t = await authorizePlatform();
    const r = await start(t);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${AUTH_URL}/device`,
      verification_uri_complete: `${AUTH_URL}/device?user_code=${r.body.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const page = await new FormBrowser(t.fetch).get(r.body.verification_uri_complete);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<label for="user_code">Code</label>');
    expect(page.text).toContain(`value="${r.body.user_code}"`);
    expect((await start(t, { client_id: 'nobody' })).status).toBe(401);
    expect((await start(t, { scope: 'bogus' })).body.error).toBe('invalid_scope');
  });

  it('answers authorization_pending, slow_down when polled too fast, then tokens once approved — once', async () => {
    const t = await authorizePlatform();
    const { body } = await start(t, { scope: 'projects:read' });
    expect((await poll(t, body.device_code)).body.error).toBe('authorization_pending');
    t.clock.advance(2000);
    const fast = await poll(t, body.device_code);
    expect(fast.body).toEqual({
      error: 'slow_down',
      error_description: 'polling too fast; wait 10 seconds between requests',
    });
    t.clock.advance(5000);
    expect((await poll(t, body.device_code)).body.error).toBe('slow_down');
    t.clock.advance(15_000);
    expect((await poll(t, body.device_code)).body.error).toBe('authorization_pending');

    const wrong = await answer(t, body.verification_uri_complete, {
      email: OWNER_EMAIL,
      password: 'wrong password here',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Incorrect e-mail or password.');
    const ok = await answer(t, body.verification_uri_complete, {
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
      action: 'approve',
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Device connected');

    t.clock.advance(15_000);
    const tokens = await poll(t, body.device_code);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('projects:read');
    const claims = decodeJwt(tokens.body.access_token);
    expect(claims).toMatchObject({ sub: t.ownerId, org: t.orgId, client_id: 'plat-cli', scopes: ['projects:read'] });
    expect((await t.call('GET', '/auth/whoami', withToken(tokens.body.access_token))).status).toBe(200);
    // The session says how it was signed in.
    const sessions = await t.call('GET', `/users/${t.ownerId}/sessions`);
    expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'device' })]);
    const owner = await t.call('GET', `/users/${t.ownerId}`);
    expect(owner.body.lastLoginAt).toBe('2026-01-01T00:00:22.000Z');

    const again = await poll(t, body.device_code);
    expect(again.body).toEqual({
      error: 'invalid_grant',
      error_description: 'the device code was already used; the tokens issued for it are revoked',
    });
    expect((await t.call('GET', '/auth/whoami', withToken(tokens.body.access_token))).status).toBe(401);
    // The code cannot be entered again either.
    const late = await answer(t, body.verification_uri_complete, { email: OWNER_EMAIL, password: OWNER_PASSWORD });
    expect(late.status).toBe(400);
  });

  it('answers access_denied when the person denies, expired_token after ten minutes', async () => {
    const t = await authorizePlatform();
    const denied = (await start(t)).body;
    const r = await answer(t, denied.verification_uri_complete, { action: 'deny' });
    expect(r.text).toContain('Request denied');
    expect((await poll(t, denied.device_code)).body).toEqual({
      error: 'access_denied',
      error_description: 'the request was denied',
    });
    const slow = (await start(t)).body;
    t.clock.advance(600_000);
    expect((await poll(t, slow.device_code)).body.error).toBe('expired_token');
    const page = await answer(t, slow.verification_uri_complete, { email: OWNER_EMAIL, password: OWNER_PASSWORD });
    expect(page.status).toBe(400);
    expect(page.text).toContain('That code is not valid or has expired.');
  });

  it('binds the device code to its client and refuses unknown codes', async () => {
    const t = await authorizePlatform({
      auth: { clients: [{ id: 'other-app', name: 'Other', redirectUris: ['http://127.0.0.1/cb'] }] },
    });
    const { body } = await start(t);
    expect((await poll(t, body.device_code, 'other-app')).body.error).toBe('invalid_grant');
    expect((await poll(t, 'nope')).body).toEqual({ error: 'invalid_grant', error_description: 'invalid device code' });
  });

  it('accepts the code however it is typed, and slows guessing down per address', async () => {
    const t = await authorizePlatform();
    const { body } = await start(t);
    const sloppy = body.user_code.toLowerCase().replace('-', ' ');
    const ok = await answer(t, `${AUTH_URL}/device`, {
      user_code: sloppy,
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
    });
    expect(ok.text).toContain('Device connected');
    const from = new FormBrowser((r) =>
      t.platform.fetch(r, { incoming: { socket: { remoteAddress: '203.0.113.5' } } }),
    );
    const page = await from.get(`${AUTH_URL}/device`);
    for (let i = 0; i < 20; i++) {
      const r = await from.post(`${AUTH_URL}/device`, {
        ...formFields(page.text),
        user_code: 'BBBB-BBBB',
        action: 'deny',
      });
      expect(r.status).toBe(400);
    }
    const locked = await from.post(`${AUTH_URL}/device`, { ...formFields(page.text), user_code: 'BBBB-BBBB' });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('1');
  });

  it('asks a user of several organizations which one, unless the device named it', async () => {
    const t = await authorizePlatform();
    const second = await t.call('POST', '/organizations', { body: { name: 'Second Org' } });
    const { body } = await start(t);
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(body.verification_uri_complete);
    const picker = await browser.post(`${AUTH_URL}/device`, {
      ...formFields(page.text),
      user_code: body.user_code,
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
      action: 'approve',
    });
    expect(picker.text).toContain('Choose an organization');
    const done = await browser.post(`${AUTH_URL}/device`, { ...formFields(picker.text), org: second.body.id });
    expect(done.text).toContain('Device connected');
    t.clock.advance(5000);
    const tokens = await poll(t, body.device_code);
    expect(decodeJwt(tokens.body.access_token).org).toBe(second.body.id);

    const named = (await start(t, { org: t.orgId })).body;
    const direct = await answer(t, named.verification_uri_complete, { email: OWNER_EMAIL, password: OWNER_PASSWORD });
    expect(direct.text).toContain('Device connected');
    const csrfless = await new FormBrowser(t.fetch).post(`${AUTH_URL}/device`, {
      user_code: named.user_code,
      action: 'deny',
    });
    expect(csrfless.status).toBe(403);
  });
});
