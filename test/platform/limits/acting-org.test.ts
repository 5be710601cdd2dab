import { describe, expect, it } from 'vitest';
import type { TestPlatform } from '../../helpers/platform.js';
import { bearer, createSession, sessionBearer } from '../../helpers/sessions.js';
import { limitedPlatform, limitsOf, setPlan, T0S } from './helpers.js';

/** The bootstrap organization on `free`, and a second one of the owner's on `enterprise`. */
async function freeAndEnterprise(t: TestPlatform): Promise<string> {
  await setPlan(t, 'free');
  const created = await t.call('POST', '/organizations', { body: { name: 'Big Co' } });
  expect(created.status).toBe(201);
  await setPlan(t, 'enterprise', created.body.id);
  // Spend the free bucket's creation request back: every test starts with a full free bucket.
  t.clock.advance(60_000);
  return created.body.id as string;
}

describe('rate limits of a credential acting in another organization (docs/rate-limits.md)', () => {
  it("give a multi-organization key the acting organization's plan, in a bucket of its own there", async () => {
    const t = await limitedPlatform();
    const big = await freeAndEnterprise(t);
    const home = `/organizations/${t.orgId}`;
    for (let i = 0; i < 10; i++) expect((await t.call('GET', home)).status).toBe(200);
    expect((await t.call('GET', home)).status).toBe(429);

    // X-Org-Id, or the organization in the path: the enterprise plan and a full bucket.
    const byHeader = await t.call('GET', '/organizations', { headers: { 'X-Org-Id': big } });
    expect(byHeader.status).toBe(200);
    expect(limitsOf(byHeader)).toEqual({ limit: 6000, remaining: 999, reset: T0S + 60 + 1, retryAfter: undefined });
    const byPath = await t.call('GET', `/organizations/${big}`);
    expect(byPath.status).toBe(200);
    expect(limitsOf(byPath)).toMatchObject({ limit: 6000, remaining: 998 });

    // The home organization's bucket is still empty, and refills on its own plan.
    expect(limitsOf(await t.call('GET', home))).toMatchObject({ limit: 60, remaining: 0, retryAfter: 1 });
    t.clock.advance(1000);
    expect(limitsOf(await t.call('GET', home))).toMatchObject({ limit: 60, remaining: 0 });
    // …while the enterprise bucket has refilled 100 tokens in that second, up to its capacity.
    expect(limitsOf(await t.call('GET', `/organizations/${big}`))).toMatchObject({ limit: 6000, remaining: 999 });
  });

  it("give a user's token the acting organization's plan, per user within each organization", async () => {
    const t = await limitedPlatform({ bearer: sessionBearer });
    const big = await freeAndEnterprise(t);
    const session = await createSession(t, t.ownerId);
    for (let i = 0; i < 10; i++) await t.call('GET', '/organizations', bearer(session));
    expect((await t.call('GET', '/organizations', bearer(session))).status).toBe(429);
    const there = await t.call('GET', `/organizations/${big}/projects`, bearer(session));
    expect(there.status).toBe(200);
    expect(limitsOf(there)).toMatchObject({ limit: 6000, remaining: 999 });
    const header = { key: null, headers: { ...bearer(session).headers, 'X-Org-Id': big } };
    expect(limitsOf(await t.call('GET', '/organizations', header))).toMatchObject({ limit: 6000, remaining: 998 });
  });

  it('spend the own bucket when naming an organization the credential may not act in', async () => {
    const t = await limitedPlatform();
    await freeAndEnterprise(t);
    const stranger = await t.otherOrg();
    await setPlan(t, 'enterprise', stranger.orgId);
    const r = await t.call('GET', `/organizations/${stranger.orgId}`);
    expect(r.status).toBe(404);
    expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 9 });
    const h = await t.call('GET', '/organizations', { headers: { 'X-Org-Id': stranger.orgId } });
    expect(h.status).toBe(403);
    expect(limitsOf(h)).toMatchObject({ limit: 60, remaining: 8 });
    const unknown = await t.call('GET', '/organizations', { headers: { 'X-Org-Id': 'org_nope' } });
    expect(limitsOf(unknown)).toMatchObject({ limit: 60, remaining: 7 });
  });
});
