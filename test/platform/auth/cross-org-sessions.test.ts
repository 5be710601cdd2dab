import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dbRun } from '../../helpers/db.js';
import { baseOf } from '../../helpers/internals.js';
import { type AuthTestPlatform, authorizePlatform, tokenRequest, tokensFor, withToken } from './helpers.js';

const UMA = { email: 'uma@acme.test', password: 'uma has a long password' };

/** Acme (A, the bootstrap organization) and Beta (B), with Uma a member of both; her tokens sign in to Beta. */
async function twoOrgs(): Promise<{ t: AuthTestPlatform; a: string; b: string; uma: string }> {
  const t = await authorizePlatform();
  const beta = await t.call('POST', '/organizations', { body: { name: 'Beta' } });
  expect(beta.status).toBe(201);
  const uma = await t.addUser({ ...UMA, role: 'member' });
  await t.addUser({ ...UMA, role: 'member', orgId: beta.body.id });
  return { t, a: t.orgId, b: beta.body.id as string, uma };
}

/** Signs Uma in to Beta: a fresh session there. */
function signInToBeta(t: AuthTestPlatform, b: string) {
  return tokensFor(t, { ...UMA, extra: { org: b } });
}

async function statusIn(t: AuthTestPlatform, token: string, orgId: string): Promise<number> {
  return (await t.call('GET', `/organizations/${orgId}/projects`, withToken(token, { 'X-Org-Id': orgId }))).status;
}

describe('sessions of another organization acting here (X-Org-Id)', () => {
  it("stop acting in A when A revokes all the user's sessions, yet keep working in B", async () => {
    const { t, a, b, uma } = await twoOrgs();
    const tokens = await signInToBeta(t, b);
    const sid = decodeJwt(tokens.access_token).sid as string;
    expect(await statusIn(t, tokens.access_token, a)).toBe(200);

    // A sees none of B's sessions, and cannot revoke one by id.
    expect((await t.call('GET', `/users/${uma}/sessions`)).body).toEqual({ data: [] });
    expect((await t.call('DELETE', `/users/${uma}/sessions/${sid}`)).status).toBe(404);
    expect(await statusIn(t, tokens.access_token, a)).toBe(200);

    t.clock.advance(1000);
    const r = await t.call('DELETE', `/users/${uma}/sessions`);
    expect(r).toMatchObject({ status: 200, body: { revoked: 0 } });

    const refused = await t.call('GET', `/organizations/${a}/projects`, withToken(tokens.access_token));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({
      code: 'authentication_failed',
      message: `the session of this access token has been revoked in organization ${a}`,
    });
    expect(await statusIn(t, tokens.access_token, a)).toBe(401);
    const whoamiA = await t.call('GET', '/auth/whoami', withToken(tokens.access_token, { 'X-Org-Id': a }));
    expect(whoamiA.status).toBe(401);

    // B's session itself is untouched: it works in B and no longer lists A.
    expect(await statusIn(t, tokens.access_token, b)).toBe(200);
    const whoamiB = await t.call('GET', '/auth/whoami', withToken(tokens.access_token));
    expect(whoamiB.body).toMatchObject({ organization: { id: b }, sessionId: sid });
    const orgs = await t.call('GET', '/organizations', withToken(tokens.access_token));
    expect(orgs.body.data.map((o: { id: string }) => o.id)).toEqual([b]);
    // Refreshing gives new tokens of the same session: still refused in A.
    const refreshed = await tokenRequest(t.fetch, {
      grant_type: 'refresh_token',
      client_id: 'plat-cli',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(await statusIn(t, refreshed.body.access_token, a)).toBe(401);
    expect(await statusIn(t, refreshed.body.access_token, b)).toBe(200);

    // A later sign-in acts in A again.
    t.clock.advance(1000);
    const fresh = await signInToBeta(t, b);
    expect(await statusIn(t, fresh.access_token, a)).toBe(200);
  });

  it('with keepCurrent, spares the caller’s own session of B and cuts off the others', async () => {
    const { t, a, b, uma } = await twoOrgs();
    const laptop = await signInToBeta(t, b);
    const phone = await signInToBeta(t, b);
    t.clock.advance(1000);
    const r = await t.call(
      'DELETE',
      `/users/${uma}/sessions?keepCurrent=true`,
      withToken(laptop.access_token, { 'X-Org-Id': a }),
    );
    expect(r).toMatchObject({ status: 200, body: { revoked: 0 } });
    expect(await statusIn(t, laptop.access_token, a)).toBe(200);
    expect(await statusIn(t, phone.access_token, a)).toBe(401);
    expect(await statusIn(t, phone.access_token, b)).toBe(200);

    // Revoking all again without keepCurrent cuts off the kept one as well.
    t.clock.advance(1000);
    const all = await t.call('DELETE', `/users/${uma}/sessions`, withToken(laptop.access_token, { 'X-Org-Id': a }));
    expect(all).toMatchObject({ status: 200, body: { revoked: 0 } });
    expect(await statusIn(t, laptop.access_token, a)).toBe(401);
    expect(await statusIn(t, laptop.access_token, b)).toBe(200);
  });

  it('stop acting in A when A suspends the user, and stay stopped after an unsuspend', async () => {
    const { t, a, b, uma } = await twoOrgs();
    const tokens = await signInToBeta(t, b);
    expect(await statusIn(t, tokens.access_token, a)).toBe(200);
    t.clock.advance(1000);
    expect((await t.call('POST', `/users/${uma}/suspend`)).status).toBe(200);
    expect(await statusIn(t, tokens.access_token, a)).toBe(403);
    expect((await t.call('POST', `/users/${uma}/unsuspend`)).status).toBe(200);
    expect(await statusIn(t, tokens.access_token, a)).toBe(401);
    expect(await statusIn(t, tokens.access_token, b)).toBe(200);
  });

  it('keep their cutoff with the membership: deleting the user from A deletes it', async () => {
    const { t, a, b, uma } = await twoOrgs();
    expect((await t.call('DELETE', `/users/${uma}/sessions`)).status).toBe(200);
    expect(await baseOf(t.platform).stores.sessions.cutoff(a, uma)).toBeDefined();
    expect((await t.call('DELETE', `/users/${uma}`)).status).toBe(204);
    expect(await baseOf(t.platform).stores.sessions.cutoff(a, uma)).toBeUndefined();
    expect(await baseOf(t.platform).stores.sessions.cutoff(b, uma)).toBeUndefined();
  });

  it('never act in another organization when single sign-on signed them in: the provider vouches for B only', async () => {
    const { t, a, b } = await twoOrgs();
    const tokens = await signInToBeta(t, b);
    expect(await statusIn(t, tokens.access_token, a)).toBe(200);
    // The session as a sign-in through Beta's identity provider opens it (sso/sign-in.ts sets the method).
    const sid = decodeJwt(tokens.access_token).sid as string;
    for (const method of ['saml', 'oidc']) {
      await dbRun(t.platform, 'UPDATE sessions SET method = ? WHERE id = ?', method, sid);
      const refused = await t.call(
        'GET',
        `/organizations/${a}/projects`,
        withToken(tokens.access_token, { 'X-Org-Id': a }),
      );
      expect(refused.status, method).toBe(403);
      expect(refused.body.error.message).toBe(`this credential cannot act in organization ${a}`);
      expect(await statusIn(t, tokens.access_token, b)).toBe(200);
    }
  });
});
