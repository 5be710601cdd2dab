import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { totpCode } from '../../helpers/mfa.js';
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
  redeem,
  tokenRequest,
  tokensFor,
  withToken,
} from './helpers.js';

const MEMBER_EMAIL = 'mia@acme.test';
const MEMBER_PASSWORD = 'member password of some length';

/** Enrolls an authenticator app for the holder of `token` by API; its secret and the recovery codes. */
async function enrollByApi(t: AuthTestPlatform, token: string) {
  const started = await t.call('POST', '/auth/mfa/totp', { ...withToken(token), body: { name: 'Phone' } });
  expect(started.status).toBe(201);
  const { factorId, secret } = started.body;
  const verified = await t.call('POST', `/auth/mfa/totp/${factorId}/verify`, {
    ...withToken(token),
    body: { code: totpCode(secret, t.clock().getTime()) },
  });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return { factorId: factorId as string, secret: secret as string, recoveryCodes: verified.body.recoveryCodes };
}

/** The password step of a PKCE sign-in: the page it leads to (the second factor, when there is one). */
async function passwordStep(t: AuthTestPlatform, email: string, password: string) {
  const { verifier, challenge } = pkce();
  const browser = new FormBrowser(t.fetch);
  const page = await browser.get(authorizeUrl(AUTH_URL, challenge));
  const r = await browser.post(`${AUTH_URL}/authorize`, { ...formFields(page.text), email, password });
  return { browser, verifier, r };
}

/** Posts a step page's form with `fields`. */
function next(browser: FormBrowser, page: { text: string }, fields: Record<string, string> = {}) {
  return browser.post(`${AUTH_URL}/authorize`, { ...formFields(page.text), ...fields });
}

/** Redeems the code a final redirect carries; the token set. */
async function redeemRedirect(t: AuthTestPlatform, r: { status: number; location: string | null }, verifier: string) {
  expect(r.status).toBe(303);
  const code = new URL(r.location as string).searchParams.get('code') as string;
  const tokens = await redeem(t, code, verifier);
  expect(tokens.status).toBe(200);
  return tokens.body as { access_token: string; refresh_token: string };
}

/** A sign-in with the password and the app's code for the next 30-second step; its token set. */
async function signInWithCode(t: AuthTestPlatform, secret: string) {
  t.clock.advance(30_000);
  const { browser, verifier, r } = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
  return redeemRedirect(t, await next(browser, r, { code: totpCode(secret, t.clock().getTime()) }), verifier);
}

async function events(t: AuthTestPlatform, type: string) {
  return (await t.call('GET', `/organizations/${t.orgId}/events?type=${type}`)).body.data as any[];
}

describe('enrolling an authenticator app by API', () => {
  it('answers the secret and otpauth URI, confirms with a code, and gives recovery codes with the first factor', async () => {
    const t = await authorizePlatform();
    const { access_token } = await tokensFor(t);
    const started = await t.call('POST', '/auth/mfa/totp', { ...withToken(access_token), body: {} });
    expect(started.status).toBe(201);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(started.body.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/plat (plat.test):${OWNER_EMAIL}`);
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret: started.body.secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    // Not a factor until confirmed.
    expect((await t.call('GET', `/users/${t.ownerId}/mfa`)).body.data).toEqual([]);

    const path = `/auth/mfa/totp/${started.body.factorId}/verify`;
    const wrong = await t.call('POST', path, { ...withToken(access_token), body: { code: '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details[0].field).toBe('code');
    expect((await events(t, 'mfa.failed')).map((e) => e.data)).toEqual([
      { factor: 'totp', factorId: started.body.factorId },
    ]);

    const code = totpCode(started.body.secret, t.clock().getTime());
    const ok = await t.call('POST', path, { ...withToken(access_token), body: { code } });
    expect(ok.status).toBe(200);
    expect(ok.body.factor).toEqual({
      id: started.body.factorId,
      type: 'totp',
      name: 'Authenticator app',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(ok.body.recoveryCodes).toHaveLength(10);
    expect(new Set(ok.body.recoveryCodes).size).toBe(10);
    for (const c of ok.body.recoveryCodes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    // The session signed in with the password alone may no longer change the factors; one signed in with the app may.
    const stale = await t.call('POST', '/auth/mfa/totp', { ...withToken(access_token), body: {} });
    expect(stale.status).toBe(403);
    expect(stale.body.error.message).toMatch(/signed in without your second factor/);
    const fresh = (await signInWithCode(t, started.body.secret)).access_token;
    // Confirmed once: a second verification is a conflict.
    expect((await t.call('POST', path, { ...withToken(fresh), body: { code } })).status).toBe(409);

    const list = await t.call('GET', `/users/${t.ownerId}/mfa`, withToken(access_token));
    expect(list.body.data.map((f: any) => [f.type, f.remaining])).toEqual([
      ['totp', undefined],
      ['recovery_codes', 10],
    ]);
    expect(JSON.stringify(list.body)).not.toContain(started.body.secret);
    expect((await events(t, 'mfa.enrolled')).map((e) => e.data)).toEqual([
      { factorId: started.body.factorId, factor: 'totp', name: 'Authenticator app' },
    ]);

    // A second app: confirmed without new recovery codes.
    const second = await t.call('POST', '/auth/mfa/totp', { ...withToken(fresh), body: { name: 'Tablet' } });
    t.clock.advance(30_000);
    const again = await t.call('POST', `/auth/mfa/totp/${second.body.factorId}/verify`, {
      ...withToken(fresh),
      body: { code: totpCode(second.body.secret, t.clock().getTime()) },
    });
    expect(again.status).toBe(200);
    expect(again.body.recoveryCodes).toBeNull();
  });

  it('keeps the secret sealed in the database', async () => {
    const t = await authorizePlatform();
    const { access_token } = await tokensFor(t);
    const { secret } = await enrollByApi(t, access_token);
    const { sqlOf } = await import('../../helpers/internals.js');
    const rows = await sqlOf(t.platform).q.selectFrom('mfa_factors').select('secret').execute();
    const stored = rows.map((r) => r.secret).filter((s) => s !== null);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^enc:v1:/);
    expect(stored[0]).not.toContain(secret);
  });
});

describe('signing in with an authenticator app', () => {
  it('asks for the code after the password; the tokens, session and whoami say pwd otp mfa', async () => {
    const t = await authorizePlatform();
    const first = await tokensFor(t);
    const { secret } = await enrollByApi(t, first.access_token);
    t.clock.advance(30_000);

    const { browser, verifier, r } = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    expect(r.status).toBe(200);
    expect(r.text).toContain('Two-step verification');
    expect(r.text).toContain('autocomplete="one-time-code"');
    // The factor step's ticket is not a signed-in one: without a code, nothing.
    const empty = await next(browser, r, { code: '' });
    expect(empty.status).toBe(401);
    const wrong = await next(browser, empty, { code: '123456' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That code is not right');
    const ok = await next(browser, wrong, { code: totpCode(secret, t.clock().getTime()) });
    const tokens = await redeemRedirect(t, ok, verifier);
    expect(decodeJwt(tokens.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
    const whoami = await t.call('GET', '/auth/whoami', withToken(tokens.access_token));
    expect(whoami.body.amr).toEqual(['pwd', 'otp', 'mfa']);
    const sessions = await t.call('GET', `/users/${t.ownerId}/sessions`, withToken(tokens.access_token));
    const current = sessions.body.data.find((s: any) => s.current);
    expect(current.amr).toEqual(['pwd', 'otp', 'mfa']);
    // A refreshed access token still says how the session was signed in.
    const refreshed = await tokenRequest(t.fetch, {
      grant_type: 'refresh_token',
      client_id: 'plat-cli',
      refresh_token: tokens.refresh_token,
    });
    expect(decodeJwt(refreshed.body.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
    // An API key says nothing of a sign-in.
    expect((await t.call('GET', '/auth/whoami')).body.amr).toBeNull();
    expect(decodeJwt(first.access_token).amr).toEqual(['pwd']);
  });

  it('takes each code once: the same code in a second sign-in is refused', async () => {
    const t = await authorizePlatform();
    const { secret } = await enrollByApi(t, (await tokensFor(t)).access_token);
    t.clock.advance(30_000);
    const code = totpCode(secret, t.clock().getTime());
    const one = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    await redeemRedirect(t, await next(one.browser, one.r, { code }), one.verifier);
    const two = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    expect((await next(two.browser, two.r, { code })).status).toBe(401);
    // A code of a later step passes.
    t.clock.advance(30_000);
    const three = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    const later = await next(three.browser, three.r, { code: totpCode(secret, t.clock().getTime()) });
    await redeemRedirect(t, later, three.verifier);
  });

  it('accepts each recovery code once, and counts what is left', async () => {
    const t = await authorizePlatform();
    const { recoveryCodes } = await enrollByApi(t, (await tokensFor(t)).access_token);
    const code = (recoveryCodes[3] as string).toUpperCase().replace(/-/g, ' ');
    const one = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    const tokens = await redeemRedirect(t, await next(one.browser, one.r, { code }), one.verifier);
    expect(decodeJwt(tokens.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
    const two = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    expect((await next(two.browser, two.r, { code })).status).toBe(401);
    const list = await t.call('GET', `/users/${t.ownerId}/mfa`);
    expect(list.body.data.find((f: any) => f.type === 'recovery_codes').remaining).toBe(9);
  });

  it('replaces the recovery codes on request, with a sign-in that used the factor; the old ones stop working', async () => {
    const t = await authorizePlatform();
    const before = (await tokensFor(t)).access_token;
    const none = await t.call('POST', '/auth/mfa/recovery-codes', withToken(before));
    expect(none.status).toBe(409);
    const { secret, recoveryCodes: old } = await enrollByApi(t, before);
    expect((await t.call('POST', '/auth/mfa/recovery-codes', withToken(before))).status).toBe(403);
    const fresh = (await signInWithCode(t, secret)).access_token;
    const r = await t.call('POST', '/auth/mfa/recovery-codes', withToken(fresh));
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store'); // shown this once: kept by no cache
    expect(r.body.recoveryCodes).toHaveLength(10);
    expect(r.body.recoveryCodes.filter((c: string) => old.includes(c))).toEqual([]);
    const one = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    expect((await next(one.browser, one.r, { code: old[0] })).status).toBe(401);
    const two = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    await redeemRedirect(t, await next(two.browser, two.r, { code: r.body.recoveryCodes[0] }), two.verifier);
    expect((await events(t, 'mfa.enrolled')).map((e) => e.data.factor).sort()).toEqual(['recovery_codes', 'totp']);
  });

  it('allows 5 wrong codes in 15 minutes, then none, right or wrong, until they have passed', async () => {
    const t = await authorizePlatform();
    const { secret } = await enrollByApi(t, (await tokensFor(t)).access_token);
    const token = (await signInWithCode(t, secret)).access_token;
    t.clock.advance(30_000);
    let { browser, verifier, r } = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD);
    for (let i = 0; i < 5; i++) {
      r = await next(browser, r, { code: String(100000 + i) });
      expect(r.status).toBe(401);
    }
    r = await next(browser, r, { code: totpCode(secret, t.clock().getTime()) });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBe(15 * 60);
    expect(r.text).toContain('Too many wrong codes');
    expect(await events(t, 'mfa.failed')).toHaveLength(5);
    // The limit is the user's, wherever the code is typed: confirming another app by API is refused too.
    const started = await t.call('POST', '/auth/mfa/totp', { ...withToken(token), body: {} });
    const refused = await t.call('POST', `/auth/mfa/totp/${started.body.factorId}/verify`, {
      ...withToken(token),
      body: { code: totpCode(started.body.secret, t.clock().getTime()) },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(15 * 60));
    // Once the 15 minutes have passed (the step itself lasts 5: sign in again), the right code signs in.
    t.clock.advance(15 * 60_000);
    expect((await next(browser, r, { code: totpCode(secret, t.clock().getTime()) })).status).toBe(400);
    ({ browser, verifier, r } = await passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD));
    await redeemRedirect(t, await next(browser, r, { code: totpCode(secret, t.clock().getTime()) }), verifier);
  });
});

describe("an organization's mfa policy", () => {
  it('is set by owners only, and walks a member without a factor through enrolment at the next sign-in', async () => {
    const t = await authorizePlatform();
    const memberId = await t.addUser({ email: MEMBER_EMAIL, password: MEMBER_PASSWORD });
    await t.addUser({ email: 'ada@acme.test', password: MEMBER_PASSWORD, role: 'admin' });
    const before = await tokensFor(t, { email: MEMBER_EMAIL, password: MEMBER_PASSWORD });
    const adminToken = (await tokensFor(t, { email: 'ada@acme.test', password: MEMBER_PASSWORD })).access_token;
    const byAdmin = await t.call('PATCH', `/organizations/${t.orgId}`, {
      ...withToken(adminToken),
      body: { mfa: 'required' },
    });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.message).toBe('only owners can change the mfa policy');
    const bad = await t.call('PATCH', `/organizations/${t.orgId}`, { body: { mfa: 'always' } });
    expect(bad.status).toBe(422);
    const set = await t.call('PATCH', `/organizations/${t.orgId}`, { body: { mfa: 'required' } });
    expect(set.status).toBe(200);
    expect(set.body.mfa).toBe('required');

    // A session from before goes on: the policy applies at sign-in.
    expect((await t.call('GET', '/auth/whoami', withToken(before.access_token))).status).toBe(200);

    const { browser, r } = await passwordStep(t, MEMBER_EMAIL, MEMBER_PASSWORD);
    expect(r.status).toBe(200);
    expect(r.text).toContain('Set up two-step verification');
    expect(r.text).toContain('Acme requires a second factor');
    expect(r.text).toMatch(/<svg width="200" height="200" xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const secret = /<code id="secret">([A-Z2-7]+)<\/code>/.exec(r.text)?.[1] as string;
    const uri = /<a id="otpauth" href="([^"]+)"/.exec(r.text)?.[1] as string;
    expect(decodeURIComponent(uri.replace(/&amp;/g, '&'))).toContain(`secret=${secret}`);
    // No way around it: the enrolment's ticket is not a signed-in one.
    const skipped = await next(browser, r, { factor_id: 'mfa_nope', code: '' });
    expect(skipped.status).toBe(400);
    const again = await passwordStep(t, MEMBER_EMAIL, MEMBER_PASSWORD);
    const secret2 = /<code id="secret">([A-Z2-7]+)<\/code>/.exec(again.r.text)?.[1] as string;
    const wrong = await next(again.browser, again.r, { code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain(secret2);
    const codes = await next(again.browser, wrong, { code: totpCode(secret2, t.clock().getTime()) });
    expect(codes.status).toBe(200);
    expect(codes.text).toContain('Save your recovery codes');
    expect([...codes.text.matchAll(/<li><code>([a-z2-9-]+)<\/code><\/li>/g)]).toHaveLength(10);
    const done = await next(again.browser, codes);
    const tokens = await redeemRedirect(t, done, again.verifier);
    expect(decodeJwt(tokens.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
    // The abandoned first enrolment left no factor behind.
    const factors = await t.call('GET', `/users/${memberId}/mfa`);
    expect(factors.body.data.map((f: any) => f.type)).toEqual(['totp', 'recovery_codes']);
  });

  it('asks for the factor at the device page too (plat login --device), and the token says so', async () => {
    const t = await authorizePlatform();
    const { secret } = await enrollByApi(t, (await tokensFor(t)).access_token);
    t.clock.advance(30_000);
    const started = await t.fetch(
      new Request(`${AUTH_URL}/device/code`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'plat-cli' }).toString(),
      }),
    );
    const device = (await started.json()) as any;
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(device.verification_uri_complete);
    const factor = await browser.post(`${AUTH_URL}/device`, {
      ...formFields(page.text),
      user_code: device.user_code,
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
      action: 'approve',
    });
    expect(factor.status).toBe(200);
    expect(factor.text).toContain('Two-step verification');
    const poll = () =>
      tokenRequest(t.fetch, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        client_id: 'plat-cli',
        device_code: device.device_code,
      });
    expect((await poll()).body.error).toBe('authorization_pending');
    const approved = await browser.post(`${AUTH_URL}/device`, {
      ...formFields(factor.text),
      code: totpCode(secret, t.clock().getTime()),
    });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('Device connected');
    t.clock.advance(6000);
    const tokens = await poll();
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('keeps a session signed in without a factor out of another organization that requires one', async () => {
    const t = await authorizePlatform();
    const other = await t.call('POST', '/organizations', { body: { name: 'Strict' } });
    const token = (await tokensFor(t, { extra: { org: t.orgId } })).access_token;
    const elsewhere = withToken(token, { 'X-Org-Id': other.body.id });
    expect((await t.call('GET', '/auth/whoami', elsewhere)).status).toBe(200);
    const policy = await t.call('PATCH', `/organizations/${other.body.id}`, {
      ...elsewhere,
      body: { mfa: 'required' },
    });
    expect(policy.status).toBe(200);
    const refused = await t.call('GET', '/auth/whoami', elsewhere);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/requires a second factor/);
    // Its own organization still answers it.
    expect((await t.call('GET', '/auth/whoami', withToken(token))).status).toBe(200);
  });
});

describe("listing and resetting a member's factors", () => {
  it('lets admins reset a member (recovery codes go too), not an owner; members see only their own', async () => {
    const t = await authorizePlatform();
    const memberId = await t.addUser({ email: MEMBER_EMAIL, password: MEMBER_PASSWORD });
    const adminId = await t.addUser({ email: 'ada@acme.test', password: MEMBER_PASSWORD, role: 'admin' });
    const member = (await tokensFor(t, { email: MEMBER_EMAIL, password: MEMBER_PASSWORD })).access_token;
    const admin = (await tokensFor(t, { email: 'ada@acme.test', password: MEMBER_PASSWORD })).access_token;
    const { factorId } = await enrollByApi(t, member);
    await enrollByApi(t, (await tokensFor(t)).access_token);

    const mine = await t.call('GET', `/users/${memberId}/mfa`, withToken(member));
    expect(mine.status).toBe(200);
    expect(mine.body.data).toHaveLength(2);
    const theirs = await t.call('GET', `/users/${t.ownerId}/mfa`, withToken(member));
    expect(theirs.status).toBe(403);
    const memberResets = await t.call('DELETE', `/users/${t.ownerId}/mfa/${factorId}`, withToken(member));
    expect(memberResets.status).toBe(403);
    const ownerFactors = (await t.call('GET', `/users/${t.ownerId}/mfa`)).body.data;
    const adminResetsOwner = await t.call('DELETE', `/users/${t.ownerId}/mfa/${ownerFactors[0].id}`, withToken(admin));
    expect(adminResetsOwner.status).toBe(403);
    expect(adminResetsOwner.body.error.message).toBe("only owners can reset an owner's second factors");
    // Another user's factor id under this user's path is not found.
    expect((await t.call('DELETE', `/users/${memberId}/mfa/${ownerFactors[0].id}`, withToken(admin))).status).toBe(404);

    const reset = await t.call('DELETE', `/users/${memberId}/mfa/${factorId}`, withToken(admin));
    expect(reset.status).toBe(204);
    expect((await t.call('GET', `/users/${memberId}/mfa`)).body.data).toEqual([]);
    expect((await events(t, 'mfa.removed')).map((e) => [e.actor.id, e.data])).toEqual([
      [adminId, { factorId, factor: 'totp', reset: true, recoveryCodesRemoved: true }],
    ]);
    // The member signs in with the password alone again.
    const { r, verifier } = await passwordStep(t, MEMBER_EMAIL, MEMBER_PASSWORD);
    await redeemRedirect(t, r, verifier);
  });

  it('reaches no account through an organization that only invited it, nor one an admin cannot reset elsewhere', async () => {
    const t = await authorizePlatform();
    const memberId = await t.addUser({ email: MEMBER_EMAIL, password: MEMBER_PASSWORD });
    await enrollByApi(t, (await tokensFor(t, { email: MEMBER_EMAIL, password: MEMBER_PASSWORD })).access_token);
    const factorId = (await t.call('GET', `/users/${memberId}/mfa`)).body.data[0].id;
    // Another organization invites Mia's e-mail: the invitation is theirs, her account and its factors are not.
    const evil = await t.call('POST', '/organizations', { body: { name: 'Evil' } });
    const there = { headers: { 'X-Org-Id': evil.body.id } };
    const invited = await t.call('POST', `/organizations/${evil.body.id}/users`, {
      ...there,
      body: { email: MEMBER_EMAIL },
    });
    expect(invited.status).toBe(201);
    expect((await t.call('GET', `/users/${memberId}/mfa`, there)).status).toBe(404);
    expect((await t.call('DELETE', `/users/${memberId}/mfa/${factorId}`, there)).status).toBe(404);
    expect(await events(t, 'mfa.removed')).toEqual([]);

    // An admin of Acme may not reset the factors of someone who owns another organization.
    await t.addUser({ email: 'ada@acme.test', password: MEMBER_PASSWORD, role: 'admin' });
    const other = await t.call('POST', '/organizations', { body: { name: 'Mia Co' } });
    await t.addUser({ email: MEMBER_EMAIL, orgId: other.body.id, role: 'owner' });
    const admin = (await tokensFor(t, { email: 'ada@acme.test', password: MEMBER_PASSWORD })).access_token;
    const refused = await t.call('DELETE', `/users/${memberId}/mfa/${factorId}`, withToken(admin));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `this user is also a member of organization ${other.body.id}, where you may not reset their second factors`,
    );
    expect((await t.call('GET', `/users/${memberId}/mfa`)).body.data).toHaveLength(2);
  });

  it("keeps API keys and restricted tokens from changing their own user's factors", async () => {
    const t = await authorizePlatform();
    const narrow = (await tokensFor(t, { extra: { scope: 'projects:read' } })).access_token;
    const { factorId } = await enrollByApi(t, (await tokensFor(t)).access_token);
    const byKey = await t.call('DELETE', `/users/${t.ownerId}/mfa/${factorId}`);
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.message).toBe('changing your own second factors needs your sign-in, not an API key');
    const enrol = await t.call('POST', '/auth/mfa/totp', { ...withToken(narrow), body: {} });
    expect(enrol.status).toBe(403);
    expect(enrol.body.error.message).toBe('this operation requires the sessions:write permission');
  });
});

describe('wrong codes sent at once', () => {
  it('are checked no more than 5 times in all: each try is counted before its code is looked at', async () => {
    const t = await authorizePlatform();
    await enrollByApi(t, (await tokensFor(t)).access_token);
    t.clock.advance(30_000);
    const pages = await Promise.all(Array.from({ length: 12 }, () => passwordStep(t, OWNER_EMAIL, OWNER_PASSWORD)));
    const answers = await Promise.all(pages.map(({ browser, r }, i) => next(browser, r, { code: String(200000 + i) })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    expect(await events(t, 'mfa.failed')).toHaveLength(5);
  });
});
