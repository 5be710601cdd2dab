import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../src/contract/limits.js';
import { baseOf } from '../../helpers/internals.js';
import { bearer, createSession, sessionBearer } from '../../helpers/sessions.js';
import { limitedPlatform, limitsOf, setPlan, T0S } from './helpers.js';

describe('rate limits by plan', () => {
  it('allows a free organization its burst of 10, then 429 with a truthful Retry-After, then refills', async () => {
    const t = await limitedPlatform();
    await setPlan(t, 'free');
    const path = `/organizations/${t.orgId}`;
    const remaining: (number | undefined)[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await t.call('GET', path);
      expect(r.status).toBe(200);
      remaining.push(limitsOf(r).remaining);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await t.call('GET', path);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: 'rate limit exceeded: 60 requests a minute for this credential; retry in 1 s',
        status: 429,
        requestId: refused.headers.get('x-request-id'),
      },
    });
    expect(limitsOf(refused)).toEqual({ limit: 60, remaining: 0, reset: T0S + 10, retryAfter: 1 });
    t.clock.advance(999);
    expect((await t.call('GET', path)).status).toBe(429);
    t.clock.advance(1);
    const again = await t.call('GET', path);
    expect(again.status).toBe(200);
    expect(limitsOf(again)).toEqual({ limit: 60, remaining: 0, reset: T0S + 11, retryAfter: undefined });
    t.clock.advance(60_000);
    expect(limitsOf(await t.call('GET', path)).remaining).toBe(9);
  });

  it.each(Object.entries(PLAN_LIMITS))('gives %s its figures', async (plan, rule) => {
    const t = await limitedPlatform();
    await setPlan(t, plan as keyof typeof PLAN_LIMITS);
    let last = await t.call('GET', '/organizations');
    for (let i = 1; i < rule.burst; i++) last = await t.call('GET', '/organizations');
    expect(last.status).toBe(200);
    expect(limitsOf(last)).toMatchObject({ limit: rule.perMinute, remaining: 0 });
    const refused = await t.call('GET', '/organizations');
    expect(refused.status).toBe(429);
    expect(limitsOf(refused)).toMatchObject({ limit: rule.perMinute, remaining: 0, retryAfter: 1 });
    // Refilled at perMinute / 60 a second: one second brings perMinute / 60 requests.
    t.clock.advance(1000);
    let accepted = 0;
    while ((await t.call('GET', '/organizations')).status === 200) accepted++;
    expect(accepted).toBe(rule.perMinute / 60);
  });

  it('applies a plan change at once, keeping at most the new capacity of tokens', async () => {
    const t = await limitedPlatform();
    const path = `/organizations/${t.orgId}`;
    expect(limitsOf(await t.call('GET', path))).toMatchObject({ limit: 6000, remaining: 999 });
    const down = await t.call('PATCH', path, { body: { plan: 'free' } });
    expect(down.status).toBe(200);
    // The PATCH itself was still spent under enterprise; the next request is under free, capped at its burst.
    expect(limitsOf(down)).toMatchObject({ limit: 6000, remaining: 998 });
    expect(limitsOf(await t.call('GET', path))).toMatchObject({ limit: 60, remaining: 9 });
    await t.call('PATCH', path, { body: { plan: 'enterprise' } });
    // Back on enterprise: the new rate at once, but the bucket keeps its 8 tokens, it is not filled up.
    expect(limitsOf(await t.call('GET', path))).toMatchObject({ limit: 6000, remaining: 7, reset: T0S + 10 });
  });

  it('gives every API key its own bucket', async () => {
    const t = await limitedPlatform();
    await setPlan(t, 'free');
    const other = await t.keyFor(t.ownerId);
    for (let i = 0; i < 10; i++) await t.call('GET', '/organizations');
    expect((await t.call('GET', '/organizations')).status).toBe(429);
    const r = await t.call('GET', '/organizations', { key: other });
    expect(r.status).toBe(200);
    expect(limitsOf(r).remaining).toBe(9);
  });

  it('gives an OAuth user one bucket per organization, shared by the sessions, apart from the keys', async () => {
    const t = await limitedPlatform({ bearer: sessionBearer });
    await setPlan(t, 'free');
    const first = await createSession(t, t.ownerId);
    const second = await createSession(t, t.ownerId);
    for (let i = 0; i < 5; i++) await t.call('GET', '/organizations', bearer(first));
    const r = await t.call('GET', '/organizations', bearer(second));
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 4 });
    expect(limitsOf(await t.call('GET', '/organizations')).remaining).toBe(9);
    const o = await t.otherOrg();
    const elsewhere = await createSession(t, t.ownerId, { orgId: o.orgId });
    await baseOf(t.platform).stores.users.insertMembership({
      orgId: o.orgId,
      userId: t.ownerId,
      email: 'owner@acme.test',
      name: null,
      role: 'member',
      status: 'active',
      now: baseOf(t.platform).now(),
    });
    // Same user, another organization (on enterprise): another bucket, that organization's plan.
    const there = await t.call('GET', '/organizations', bearer(elsewhere));
    expect(there.status).toBe(200);
    expect(limitsOf(there)).toMatchObject({ limit: 6000, remaining: 999 });
  });

  it('is off when configured so: no headers, no 429', async () => {
    const t = await limitedPlatform({ limits: { enabled: false } });
    await setPlan(t, 'free');
    for (let i = 0; i < 30; i++) {
      const r = await t.call('GET', '/organizations');
      expect(r.status).toBe(200);
      expect(limitsOf(r).limit).toBeUndefined();
    }
    for (let i = 0; i < 30; i++)
      expect((await t.call('GET', '/organizations', { key: 'plat_live_nope' })).status).toBe(401);
  });
});
