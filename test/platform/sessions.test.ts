import { describe, expect, it } from 'vitest';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';
import { bearer, createSession, sessionBearer } from '../helpers/sessions.js';

const T0 = '2026-01-01T00:00:00.000Z';
/** The time every test starts at: setup ends two seconds in. */
const NOW = '2026-01-01T00:00:02.000Z';

async function events(t: TestPlatform, type: string) {
  const r = await t.call('GET', `/organizations/${t.orgId}/events?type=${type}`);
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Owner, admin and member, each with one live session and a key; the owner has two live and two ended ones. */
async function setup() {
  const t = await testPlatform({ bearer: sessionBearer });
  const admin = await t.addUser({ email: 'ada@acme.test', name: 'Ada', role: 'admin' });
  const member = await t.addUser({ email: 'max@acme.test', name: 'Max' });
  const ownerCli = await createSession(t, t.ownerId);
  t.clock.advance(1000);
  const ownerBrowser = await createSession(t, t.ownerId, {
    clientId: null,
    ipAddress: null,
    userAgent: 'Firefox/140.0',
    expiresAt: null,
  });
  const adminSession = await createSession(t, admin.userId);
  const memberSession = await createSession(t, member.userId);
  const revoked = await createSession(t, t.ownerId);
  await baseOf(t.platform).stores.sessions.revoke(revoked, baseOf(t.platform).now());
  await createSession(t, t.ownerId, { expiresAt: NOW });
  t.clock.advance(1000);
  return { t, admin, member, ownerCli, ownerBrowser, adminSession, memberSession };
}

describe('GET /users/{userId}/sessions', () => {
  it('lists the active sessions of the user in this organization, newest first, every field', async () => {
    const s = await setup();
    const { t } = s;
    const r = await t.call('GET', `/users/${t.ownerId}/sessions`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        {
          id: s.ownerBrowser,
          userId: t.ownerId,
          method: 'password',
          amr: ['pwd'],
          ipAddress: null,
          userAgent: 'Firefox/140.0',
          createdAt: '2026-01-01T00:00:01.000Z',
          lastActive: '2026-01-01T00:00:01.000Z',
          expiresAt: null,
          current: false,
        },
        {
          id: s.ownerCli,
          userId: t.ownerId,
          method: 'password',
          amr: ['pwd'],
          ipAddress: '203.0.113.7',
          userAgent: 'plat/0.1.0',
          createdAt: T0,
          lastActive: T0,
          expiresAt: '2026-01-31T00:00:00.000Z',
          current: false,
        },
      ],
    });
  });

  it('marks the session of the calling access token as current', async () => {
    const { t, ownerCli, ownerBrowser } = await setup();
    const r = await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerCli));
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => [x.id, x.current])).toEqual([
      [ownerBrowser, false],
      [ownerCli, true],
    ]);
  });

  it('does not show sessions the user signed into another organization with', async () => {
    const t = await testPlatform({ bearer: sessionBearer });
    const other = await t.otherOrg();
    await t.addUser({ email: 'owner@acme.test', orgId: other.orgId, role: 'member' });
    const here = await createSession(t, t.ownerId);
    await createSession(t, t.ownerId, { orgId: other.orgId });
    const r = await t.call('GET', `/users/${t.ownerId}/sessions`);
    expect(r.body.data.map((x: any) => x.id)).toEqual([here]);
  });

  it('lets every user list their own sessions, and only sessions:read holders list others', async () => {
    const { t, admin, member, memberSession, adminSession } = await setup();
    const own = await t.call('GET', `/users/${member.userId}/sessions`, { key: member.key });
    expect(own.status).toBe(200);
    expect(own.body.data.map((x: any) => x.id)).toEqual([memberSession]);
    const viaToken = await t.call('GET', `/users/${member.userId}/sessions`, bearer(memberSession));
    expect(viaToken.body.data).toEqual([expect.objectContaining({ id: memberSession, current: true })]);

    const others = await t.call('GET', `/users/${admin.userId}/sessions`, { key: member.key });
    expect(others.status).toBe(403);
    expect(others.body.error.code).toBe('insufficient_permissions');

    const byAdmin = await t.call('GET', `/users/${member.userId}/sessions`, { key: admin.key });
    expect(byAdmin.body.data.map((x: any) => x.id)).toEqual([memberSession]);
    const byOwner = await t.call('GET', `/users/${admin.userId}/sessions`);
    expect(byOwner.body.data.map((x: any) => x.id)).toEqual([adminSession]);
  });

  it('holds a restricted key to its permissions even for its own sessions', async () => {
    const { t } = await setup();
    const narrow = await t.keyFor(t.ownerId, { permissions: ['users:read'] });
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, { key: narrow })).status).toBe(403);
    const reader = await t.keyFor(t.ownerId, { permissions: ['sessions:read'] });
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, { key: reader })).status).toBe(200);
    const del = await t.call('DELETE', `/users/${t.ownerId}/sessions`, { key: reader });
    expect(del.status).toBe(403);
  });

  it('answers 404 for an unknown user or one of another organization', async () => {
    const { t } = await setup();
    const other = await t.otherOrg();
    await createSession(t, other.ownerId, { orgId: other.orgId });
    for (const path of [`/users/user_9999/sessions`, `/users/${other.ownerId}/sessions`, `/users/nope/sessions`]) {
      const r = await t.call('GET', path);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, { key: other.key })).status).toBe(404);
  });
});

describe('DELETE /users/{userId}/sessions/{sessionId}', () => {
  it('revokes one session: 204, gone from the list, its token fails, one event', async () => {
    const { t, ownerCli, ownerBrowser } = await setup();
    const r = await t.call('DELETE', `/users/${t.ownerId}/sessions/${ownerCli}`, {
      headers: { 'X-Request-Id': 'trace-1' },
    });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const list = await t.call('GET', `/users/${t.ownerId}/sessions`);
    expect(list.body.data.map((x: any) => x.id)).toEqual([ownerBrowser]);
    const after = await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerCli));
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('authentication_failed');
    expect((await baseOf(t.platform).stores.sessions.byId(ownerCli))?.revokedAt).toBe(NOW);
    expect(await events(t, 'session.revoked')).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'session.revoked',
        organizationId: t.orgId,
        actor: { type: 'api_key', id: 'key_0001' },
        target: { type: 'session', id: ownerCli },
        requestId: 'trace-1',
        createdAt: NOW,
        data: { userId: t.ownerId },
      },
    ]);
    // Again: nothing left to do, still 204, no second event.
    expect((await t.call('DELETE', `/users/${t.ownerId}/sessions/${ownerCli}`)).status).toBe(204);
    expect(await events(t, 'session.revoked')).toHaveLength(1);
  });

  it('lets a user revoke their own session through that very session', async () => {
    const { t, memberSession, member } = await setup();
    const r = await t.call('DELETE', `/users/${member.userId}/sessions/${memberSession}`, bearer(memberSession));
    expect(r.status).toBe(204);
    expect((await t.call('GET', `/users/${member.userId}/sessions`, bearer(memberSession))).status).toBe(401);
    const [event] = await events(t, 'session.revoked');
    expect(event.actor).toEqual({ type: 'user', id: member.userId });
  });

  it('needs sessions:write for another user, and owner rank for an owner; nothing changes on refusal', async () => {
    const { t, admin, member, adminSession, memberSession, ownerCli } = await setup();
    const byMember = await t.call('DELETE', `/users/${admin.userId}/sessions/${adminSession}`, { key: member.key });
    expect(byMember.status).toBe(403);
    const onOwner = await t.call('DELETE', `/users/${t.ownerId}/sessions/${ownerCli}`, { key: admin.key });
    expect(onOwner.status).toBe(403);
    expect(onOwner.body.error.message).toBe("only owners can revoke an owner's sessions");
    const onAll = await t.call('DELETE', `/users/${t.ownerId}/sessions`, { key: admin.key });
    expect(onAll.status).toBe(403);
    expect(await events(t, 'session.revoked')).toEqual([]);
    expect((await baseOf(t.platform).stores.sessions.byId(ownerCli))?.revokedAt).toBeNull();

    expect(
      (await t.call('DELETE', `/users/${member.userId}/sessions/${memberSession}`, { key: admin.key })).status,
    ).toBe(204);
    expect((await t.call('DELETE', `/users/${admin.userId}/sessions/${adminSession}`)).status).toBe(204);
  });

  it("answers 404 for an unknown session, another user's, or another organization's", async () => {
    const { t, admin, adminSession, ownerCli } = await setup();
    const other = await t.otherOrg();
    const foreign = await createSession(t, other.ownerId, { orgId: other.orgId });
    for (const path of [
      `/users/${t.ownerId}/sessions/sess_9999`,
      `/users/${t.ownerId}/sessions/${adminSession}`,
      `/users/${admin.userId}/sessions/${ownerCli}`,
      `/users/${other.ownerId}/sessions/${foreign}`,
      `/users/${t.ownerId}/sessions/not-a-session`,
    ]) {
      const r = await t.call('DELETE', path);
      expect(r.status, path).toBe(404);
    }
    expect((await t.call('DELETE', `/users/${t.ownerId}/sessions/${ownerCli}`, { key: other.key })).status).toBe(404);
    expect((await baseOf(t.platform).stores.sessions.byId(foreign))?.revokedAt).toBeNull();
  });
});

describe('DELETE /users/{userId}/sessions', () => {
  it('revokes every active session and says how many', async () => {
    const { t, ownerCli, adminSession } = await setup();
    const r = await t.call('DELETE', `/users/${t.ownerId}/sessions`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ revoked: 2 }); // not the one revoked before, nor the expired one
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`)).body).toEqual({ data: [] });
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerCli))).status).toBe(401);
    expect((await baseOf(t.platform).stores.sessions.byId(adminSession))?.revokedAt).toBeNull();
    const [event] = await events(t, 'sessions.revoked');
    expect(event).toMatchObject({
      target: { type: 'user', id: t.ownerId },
      data: { revoked: 2, keptSessionId: null },
    });
    // Nothing left: 0, and no event for a write that did nothing.
    expect((await t.call('DELETE', `/users/${t.ownerId}/sessions`)).body).toEqual({ revoked: 0 });
    expect(await events(t, 'sessions.revoked')).toHaveLength(1);
  });

  it('keeps the current session with keepCurrent=true', async () => {
    const { t, ownerCli } = await setup();
    const r = await t.call('DELETE', `/users/${t.ownerId}/sessions?keepCurrent=true`, bearer(ownerCli));
    expect(r.body).toEqual({ revoked: 1 });
    const list = await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerCli));
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => [x.id, x.current])).toEqual([[ownerCli, true]]);
    const [event] = await events(t, 'sessions.revoked');
    expect(event.data).toEqual({ revoked: 1, keptSessionId: ownerCli });
  });

  it('revokes the current session too without keepCurrent, or with keepCurrent=false', async () => {
    const { t, ownerCli, ownerBrowser } = await setup();
    const r = await t.call('DELETE', `/users/${t.ownerId}/sessions?keepCurrent=false`, bearer(ownerCli));
    expect(r.body).toEqual({ revoked: 2 });
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerBrowser))).status).toBe(401);
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`, bearer(ownerCli))).status).toBe(401);
  });

  it("keepCurrent has nothing to keep for another user's sessions", async () => {
    const { t, admin, ownerCli } = await setup();
    await createSession(t, admin.userId);
    const r = await t.call('DELETE', `/users/${admin.userId}/sessions?keepCurrent=true`, bearer(ownerCli));
    expect(r.body).toEqual({ revoked: 2 });
  });

  it('rejects a keepCurrent that is not a boolean, and unknown parameters, with 400', async () => {
    const { t } = await setup();
    for (const q of ['keepCurrent=yes', 'keep=true']) {
      const r = await t.call('DELETE', `/users/${t.ownerId}/sessions?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    expect((await t.call('GET', `/users/${t.ownerId}/sessions`)).body.data).toHaveLength(2);
  });
});

describe('POST /users/{userId}/suspend', () => {
  it("revokes all of the user's sessions and API keys at once", async () => {
    const { t, member, memberSession } = await setup();
    const second = await createSession(t, member.userId);
    const extraKey = await t.keyFor(member.userId);
    expect((await t.call('GET', `/users/${member.userId}`, { key: extraKey })).status).toBe(200);
    const r = await t.call('POST', `/users/${member.userId}/suspend`);
    expect(r.status).toBe(200);
    const stores = baseOf(t.platform).stores;
    for (const id of [memberSession, second]) expect((await stores.sessions.byId(id))?.revokedAt).toBe(NOW);
    expect((await t.call('GET', `/users/${member.userId}/sessions`)).body).toEqual({ data: [] });
    for (const key of [member.key, extraKey]) {
      const res = await t.call('GET', `/users/${member.userId}`, { key });
      expect(res.status).toBe(401);
    }
    expect((await t.call('GET', `/users/${member.userId}/sessions`, bearer(second))).status).toBe(401);
    const keys = await t.call('GET', `/organizations/${t.orgId}/api-keys`);
    const mine = keys.body.data.filter((k: any) => k.userId === member.userId);
    expect(mine.map((k: any) => k.revokedAt)).toEqual([NOW, NOW]);
    // Unsuspending brings nothing back.
    await t.call('POST', `/users/${member.userId}/unsuspend`);
    expect((await t.call('GET', `/users/${member.userId}`, { key: member.key })).status).toBe(401);
    expect((await t.call('GET', `/users/${member.userId}/sessions`, bearer(second))).status).toBe(401);
  });
});
