import { describe, expect, it } from 'vitest';
import type { TestPlatform } from '../../helpers/platform.js';
import { samlPlatforms } from '../../helpers/sso-saml.js';
import { callFrom, limitedPlatform, limitsOf, setPlan, T0S } from './helpers.js';

const A = '198.51.100.1';
const B = '198.51.100.2';

describe('requests without valid credentials', () => {
  it('are limited per client IP: 10 at once, then 429 for every bad credential from that address', async () => {
    const t = await limitedPlatform();
    const seen: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await callFrom(t, A, 'GET', '/organizations', { key: `plat_live_guess${i}` });
      expect(r.status).toBe(401);
      seen.push(limitsOf(r).remaining);
    }
    for (let i = 0; i < 5; i++) {
      const r = await callFrom(t, A, 'GET', '/organizations', { key: null });
      expect(r.status).toBe(401);
      seen.push(limitsOf(r).remaining);
    }
    expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await callFrom(t, A, 'GET', '/organizations', { key: 'plat_live_guess' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(limitsOf(refused)).toEqual({ limit: 30, remaining: 0, reset: T0S + 20, retryAfter: 2 });
    // A valid key is never refused for its address's failures: behind a proxy, every user shares one address, and
    // one stranger's guesses must not lock them all out.
    const valid = await callFrom(t, A, 'GET', '/organizations');
    expect(valid.status).toBe(200);
    expect(limitsOf(valid)).toMatchObject({ limit: 6000, remaining: 999 });
    expect((await callFrom(t, B, 'GET', '/organizations', { key: 'plat_live_guess' })).status).toBe(401);
    // Retry-After is truthful.
    t.clock.advance(1999);
    expect((await callFrom(t, A, 'GET', '/organizations', { key: null })).status).toBe(429);
    t.clock.advance(1);
    const back = await callFrom(t, A, 'GET', '/organizations', { key: null });
    expect(back.status).toBe(401);
    expect(limitsOf(back)).toMatchObject({ limit: 30, remaining: 0 });
  });

  it('spend nothing on public pages, which read no credential and show no budget', async () => {
    const t = await limitedPlatform();
    const none = { limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined };
    for (let i = 0; i < 30; i++) {
      const r = await callFrom(t, A, 'GET', '/health', { key: null });
      expect(r.status).toBe(200);
      expect(limitsOf(r)).toEqual(none);
    }
    // A key on a public page is not read: a bad one tells a guesser nothing, so it costs nothing.
    for (let i = 0; i < 30; i++) {
      expect(limitsOf(await callFrom(t, A, 'GET', '/health', { key: `plat_live_guess${i}` }))).toEqual(none);
    }
    expect((await callFrom(t, A, 'GET', '/organizations', { key: 'plat_live_guess' })).status).toBe(401);
    expect(limitsOf(await callFrom(t, A, 'GET', '/health'))).toEqual(none);
  });

  it('share one address bucket in-process, where there is no peer address', async () => {
    const t = await limitedPlatform();
    for (let i = 0; i < 10; i++) expect((await t.call('GET', '/organizations', { key: null })).status).toBe(401);
    expect((await t.call('GET', '/organizations', { key: null })).status).toBe(429);
  });
});

describe('headers on every response', () => {
  it('are on 401, 404, 422 and 429 as on 200, with the request id', async () => {
    const t = await limitedPlatform();
    await setPlan(t, 'free');
    const cases = [
      [401, await t.call('GET', '/organizations', { key: 'plat_live_nope' })],
      [404, await t.call('GET', '/users/user_9999')],
      [422, await t.call('PATCH', `/organizations/${t.orgId}`, { body: { plan: 'gold' } })],
      [400, await t.call('GET', `/organizations/${t.orgId}/users?per_page=500`)],
    ] as const;
    for (const [status, r] of cases) {
      expect(r.status).toBe(status);
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
      expect(limitsOf(r).limit).toBeGreaterThan(0);
      expect(limitsOf(r).reset).toBeGreaterThanOrEqual(T0S);
      expect(limitsOf(r).retryAfter).toBeUndefined();
    }
    expect(limitsOf(cases[0][1]).limit).toBe(30);
    // The three with a valid key spent its bucket: 10 - 3.
    expect(limitsOf(cases[3][1])).toMatchObject({ limit: 60, remaining: 7 });
    // A path no route answers, or a method it does not take, is answered before any credential is read: it spends
    // nothing and shows no budget.
    for (const r of [await t.call('GET', '/no-such-thing'), await t.call('PUT', '/organizations')]) {
      expect([404, 405]).toContain(r.status);
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
      expect(limitsOf(r).limit).toBeUndefined();
    }
    for (let i = 0; i < 7; i++) await t.call('GET', '/organizations');
    const r = await t.call('GET', '/organizations');
    expect(r.status).toBe(429);
    expect(limitsOf(r)).toEqual({ limit: 60, remaining: 0, reset: T0S + 10, retryAfter: 1 });
    expect(r.headers.get('x-request-id')).toBe(r.body.error.requestId);
  });
});

describe("identity providers' answers (docs/sso.md)", () => {
  const setupSaml = samlPlatforms();
  /** A SAML response posted to the ACS from A, refused (this organization has no single sign-on). */
  const forgedAcs = (t: TestPlatform, key?: null) =>
    callFrom(t, A, 'POST', `/sso/saml/${t.orgId}/acs`, {
      ...(key === null && { key }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'SAMLResponse=PHNhbWxwOlJlc3BvbnNlLz4%3D',
    });

  it("spend the sender's address budget, SAML and OIDC alike: anyone can post one, and each costs checks", async () => {
    const t = await limitedPlatform();
    const remaining: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const acs = await forgedAcs(t, null);
      // Refused (this organization has no single sign-on), but read: the budget is spent before.
      expect(acs.status).toBe(403);
      remaining.push(limitsOf(acs).remaining);
      const callback = await callFrom(t, A, 'GET', `/sso/oidc/${t.orgId}/callback?code=x&state=forged${i}`, {
        key: null,
      });
      expect(callback.status).toBe(400);
      remaining.push(limitsOf(callback).remaining);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await forgedAcs(t, null);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(refused.body.error.message).toMatch(
      /^too many refused sign-ins through an identity provider from this address/,
    );
    // Another address still gets its answers read.
    const elsewhere = await callFrom(t, B, 'GET', `/sso/oidc/${t.orgId}/callback?code=x&state=forged`, { key: null });
    expect(elsewhere.status).toBe(400);
  });

  it('spend it whatever credentials ride along: a valid API key opens no other budget', async () => {
    const t = await limitedPlatform();
    const remaining: (number | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const acs = await forgedAcs(t);
      expect(acs.status).toBe(403);
      remaining.push(limitsOf(acs).remaining);
    }
    expect(remaining).toEqual([9, 8, 7]);
    // The key's own budget is untouched.
    expect(limitsOf(await callFrom(t, A, 'GET', '/organizations'))).toMatchObject({ limit: 6000, remaining: 999 });
  });

  it('spend nothing when a person signs in: only refused answers are charged', async () => {
    const s = await setupSaml({ platform: { limits: { enabled: true } } });
    for (let i = 0; i < 12; i++) {
      const sent = await s.signIn();
      const acs = await s.postAcs(sent.form.fields);
      expect(acs.status).toBe(303);
      expect(acs.headers.get('x-ratelimit-remaining')).toBe('10');
    }
    // The same response again is a replay, refused and charged.
    const sent = await s.signIn();
    expect((await s.postAcs(sent.form.fields)).status).toBe(303);
    const replay = await s.postAcs(sent.form.fields);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('x-ratelimit-remaining')).toBe('9');
  });
});
