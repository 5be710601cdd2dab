import { beforeEach, describe, expect, it } from 'vitest';
import { hashInvitationToken } from '../../src/platform/operations/invitations.js';
import type { Mail } from '../../src/platform/store/outbox.js';
import { dbCount, dbRow, dbRows } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = '2026-01-01T00:00:00.000Z';
const IN_7_DAYS = '2026-01-08T00:00:00.000Z';
const LINK = /^http:\/\/plat\.test\/v2\/auth\/invitations\/accept\?token=([A-Za-z0-9_-]{43})$/;

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});

const stores = () => baseOf(t.platform).stores;
const count = (table: string) => dbCount(t.platform, table);
/** Rows of every table a failed invitation must leave alone. */
const snapshot = async () =>
  Object.fromEntries(
    await Promise.all(
      ['accounts', 'org_users', 'invitations', 'outbox', 'team_members', 'events'].map(async (x) => [
        x,
        await count(x),
      ]),
    ),
  );
const events = async (type: string) =>
  (
    (await dbRows(t.platform, 'SELECT * FROM events WHERE type = ? ORDER BY id', type)) as {
      actor_type: string;
      actor_id: string;
      target_type: string;
      target_id: string;
      data: string;
      org_id: string;
    }[]
  ).map((e) => ({
    org: e.org_id,
    actor: `${e.actor_type}:${e.actor_id}`,
    target: `${e.target_type}:${e.target_id}`,
    data: JSON.parse(e.data),
  }));
const mails = (): Promise<Mail[]> => stores().outbox.list();
const tokenOf = (mail: Mail | undefined): string => {
  const m = LINK.exec(mail?.links[0] ?? '');
  if (!m) throw new Error(`no invitation link in ${JSON.stringify(mail)}`);
  return m[1] as string;
};

function invite(body: unknown, key?: string, orgId = t.orgId) {
  return t.call('POST', `/organizations/${orgId}/users`, { body, ...(key !== undefined && { key }) });
}

/** What the acceptance page does with a link (built elsewhere): find by hash, mark accepted, activate the user. */
function accept(token: string): Promise<boolean> {
  return baseOf(t.platform).tx(async (base) => {
    const inv = await base.stores.invitations.findPendingByTokenHash(hashInvitationToken(token), base.now());
    if (!inv || !(await base.stores.invitations.markAccepted(inv.id, base.now()))) return false;
    const user = await base.stores.users.get(inv.organizationId, inv.userId);
    if (!user) return false;
    await base.stores.users.update(inv.organizationId, { ...user, status: 'active', updatedAt: base.now() });
    return true;
  });
}

describe('POST /organizations/{orgId}/users (invite)', () => {
  it('creates a pending user with a new unverified account, a hashed token, a mail and an event', async () => {
    const res = await invite({ email: 'bob@example.test', name: 'Bob Builder' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/v2/invitations/inv_0001');
    expect(res.body).toEqual({
      id: 'inv_0001',
      email: 'bob@example.test',
      name: 'Bob Builder',
      role: 'member',
      teams: [],
      status: 'pending',
      userId: 'user_0002',
      organizationId: t.orgId,
      createdAt: T0,
      expiresAt: IN_7_DAYS,
    });

    const user = await t.call('GET', '/users/user_0002');
    expect(user.body).toEqual({
      id: 'user_0002',
      email: 'bob@example.test',
      name: 'Bob Builder',
      avatarUrl: null,
      status: 'pending',
      emailVerified: false,
      role: 'member',
      createdAt: T0,
      updatedAt: T0,
      lastLoginAt: null,
      metadata: {},
    });
    expect(await stores().users.accountByEmail('bob@example.test')).toEqual({
      id: 'user_0002',
      email: 'bob@example.test',
      emailVerified: false,
      passwordHash: null,
      passwordImportedBy: null,
    });

    const [mail, ...rest] = await mails();
    expect(rest).toEqual([]);
    const token = tokenOf(mail);
    const link = `http://plat.test/v2/auth/invitations/accept?token=${token}`;
    expect(mail).toEqual({
      id: 'mail_0001',
      to: 'bob@example.test',
      subject: "You're invited to join Acme",
      text: [
        'Hello Bob Builder,',
        '',
        'Olive Owner invited you to join Acme as a member.',
        '',
        'Accept the invitation and choose your password here:',
        link,
        '',
        `This link works once and expires at ${IN_7_DAYS}. If you did not expect this invitation, ignore this e-mail.`,
        '',
      ].join('\n'),
      links: [link],
      createdAt: T0,
    });
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);

    // Only the hash is stored; the token appears nowhere but in the mail itself, which is sealed.
    const row = (await dbRow(t.platform, 'SELECT * FROM invitations')) as Record<string, unknown>;
    expect(row.token_hash).toBe(hashInvitationToken(token));
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.invited_by).toBe(t.ownerId);
    expect(await dbRow(t.platform, 'SELECT text, links FROM outbox')).toEqual({
      text: expect.stringMatching(/^enc:v1:/),
      links: expect.stringMatching(/^enc:v1:/),
    });
    for (const table of ['invitations', 'events', 'org_users', 'accounts', 'outbox']) {
      expect(JSON.stringify(await dbRows(t.platform, `SELECT * FROM ${table}`))).not.toContain(token);
    }

    expect(await events('user.invited')).toEqual([
      {
        org: t.orgId,
        actor: 'api_key:key_0001',
        target: 'user:user_0002',
        data: { invitationId: 'inv_0001', email: 'bob@example.test', role: 'member', teams: [], newAccount: true },
      },
    ]);
  });

  it('gives the acceptance page a pending invitation by token hash, accepted exactly once', async () => {
    await invite({ email: 'bob@example.test' });
    const token = tokenOf((await mails())[0]);
    const base = baseOf(t.platform);
    const found = await base.stores.invitations.findPendingByTokenHash(hashInvitationToken(token), base.now());
    expect(found).toMatchObject({ id: 'inv_0001', userId: 'user_0002', status: 'pending' });
    expect(await base.stores.invitations.findPendingByTokenHash(hashInvitationToken(`${token}x`), base.now())).toBe(
      undefined,
    );
    expect(await accept(token)).toBe(true);
    expect(await accept(token)).toBe(false);
    expect(await base.stores.invitations.markAccepted('inv_0001', base.now())).toBe(false);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('accepted');
    expect((await t.call('GET', '/users/user_0002')).body.status).toBe('active');
  });

  it('defaults: no name, role member, no teams; the mail greets the address', async () => {
    const res = await invite({ email: 'x@example.test' });
    expect(res.body).toMatchObject({ name: null, role: 'member', teams: [] });
    expect((await mails())[0]?.text.startsWith('Hello x@example.test,\n')).toBe(true);
  });

  it('adds a pending membership to an account of another organization without touching it there', async () => {
    const other = await t.otherOrg();
    const accounts = await count('accounts');
    const res = await invite({ email: 'BOSS@other.test', name: 'Oscar at Acme', role: 'admin' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'boss@other.test', userId: other.ownerId, role: 'admin' });
    expect(await count('accounts')).toBe(accounts);
    expect(await stores().users.get(t.orgId, other.ownerId)).toMatchObject({
      status: 'pending',
      name: 'Oscar at Acme',
    });
    expect(await stores().users.get(other.orgId, other.ownerId)).toMatchObject({
      status: 'active',
      role: 'owner',
      name: 'Oscar Other',
    });
    expect((await events('user.invited'))[0]?.data.newAccount).toBe(false);
    expect((await mails())[0]?.to).toBe('boss@other.test');
    expect((await mails())[0]?.text).toContain('to join Acme as an admin.');
  });

  it('409 for an e-mail already in the organization, active or pending, in any case; nothing written', async () => {
    await invite({ email: 'bob@example.test' });
    const before = await snapshot();
    for (const email of ['owner@acme.test', 'OWNER@acme.test', 'bob@example.test']) {
      const res = await invite({ email });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'conflict', status: 409 });
    }
    expect((await invite({ email: 'owner@acme.test' })).body.error.message).toBe(
      'owner@acme.test is already a member of this organization',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('puts the user in the given teams (duplicates ignored)', async () => {
    const a = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Alpha' } })).body.id;
    const b = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Beta' } })).body.id;
    const res = await invite({ email: 'bob@example.test', teams: [b, a, b] });
    expect(res.status).toBe(201);
    expect(res.body.teams).toEqual([b, a]);
    const members = await t.call('GET', `/teams/${a}/members`);
    expect(members.body.data).toEqual([
      { user: { id: 'user_0002', name: null, email: 'bob@example.test', avatarUrl: null }, createdAt: T0 },
    ]);
  });

  it('422 on the teams field for an unknown team or a team of another organization; nothing written', async () => {
    const other = await t.otherOrg();
    const foreign = (
      await t.call('POST', `/organizations/${other.orgId}/teams`, { key: other.key, body: { name: 'X' } })
    ).body.id;
    const mine = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Mine' } })).body.id;
    const before = await snapshot();
    const res = await invite({ email: 'bob@example.test', teams: [mine, 'team_9999', foreign] });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: `teams: unknown teams: team_9999, ${foreign}`,
      status: 422,
      requestId: expect.any(String),
      details: [{ field: 'teams', message: `unknown teams: team_9999, ${foreign}` }],
    });
    expect(await snapshot()).toEqual(before);
    expect(await stores().users.accountByEmail('bob@example.test')).toBe(undefined);
  });

  describe('roles and keys', () => {
    it('owners may invite owners; admins may invite members and admins, not owners', async () => {
      const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
      expect((await invite({ email: 'a@x.test', role: 'admin' }, admin.key)).status).toBe(201);
      expect((await invite({ email: 'm@x.test' }, admin.key)).status).toBe(201);
      const before = await snapshot();
      const res = await invite({ email: 'o@x.test', role: 'owner' }, admin.key);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'insufficient_permissions',
        message: 'only owners can grant, remove or change the owner role',
      });
      expect(await snapshot()).toEqual(before);
      expect((await invite({ email: 'o@x.test', role: 'owner' })).status).toBe(201);
    });

    it('members cannot invite but can read invitations', async () => {
      await invite({ email: 'bob@example.test' });
      const member = await t.addUser({ email: 'mem@acme.test' });
      const before = await snapshot();
      const res = await invite({ email: 'c@x.test' }, member.key);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe('this operation requires the users:write permission');
      expect(await snapshot()).toEqual(before);
      expect((await t.call('GET', `/organizations/${t.orgId}/invitations`, { key: member.key })).status).toBe(200);
      expect((await t.call('GET', '/invitations/inv_0001', { key: member.key })).status).toBe(200);
      expect((await t.call('POST', '/invitations/inv_0001/resend', { key: member.key })).status).toBe(403);
      expect((await t.call('DELETE', '/invitations/inv_0001', { key: member.key })).status).toBe(403);
    });

    it('a key restricted to users:read reads but cannot write; one without users:read cannot read', async () => {
      await invite({ email: 'bob@example.test' });
      const readOnly = await t.keyFor(t.ownerId, { permissions: ['users:read'] });
      expect((await invite({ email: 'c@x.test' }, readOnly)).status).toBe(403);
      expect((await t.call('POST', '/invitations/inv_0001/resend', { key: readOnly })).status).toBe(403);
      expect((await t.call('DELETE', '/invitations/inv_0001', { key: readOnly })).status).toBe(403);
      expect((await t.call('GET', '/invitations/inv_0001', { key: readOnly })).status).toBe(200);
      const projectsOnly = await t.keyFor(t.ownerId, { permissions: ['projects:read'] });
      expect((await t.call('GET', '/invitations/inv_0001', { key: projectsOnly })).status).toBe(403);
      expect((await t.call('GET', `/organizations/${t.orgId}/invitations`, { key: projectsOnly })).status).toBe(403);
      const writeOnly = await t.keyFor(t.ownerId, { permissions: ['users:write'] });
      expect((await invite({ email: 'c@x.test' }, writeOnly)).status).toBe(201);
    });
  });

  describe('tenancy', () => {
    it("another organization's ids answer 404", async () => {
      const other = await t.otherOrg();
      await invite({ email: 'theirs@x.test' }, other.key, other.orgId);
      const theirs = 'inv_0001';
      const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
      for (const key of [t.ownerKey, admin.key]) {
        expect((await invite({ email: 'c@x.test' }, key, other.orgId)).status).toBe(404);
        expect((await t.call('GET', `/organizations/${other.orgId}/invitations`, { key })).status).toBe(404);
        expect((await t.call('GET', `/invitations/${theirs}`, { key })).status).toBe(404);
        expect((await t.call('POST', `/invitations/${theirs}/resend`, { key })).status).toBe(404);
        expect((await t.call('DELETE', `/invitations/${theirs}`, { key })).status).toBe(404);
      }
      expect((await t.call('GET', `/invitations/${theirs}`, { key: other.key })).body.status).toBe('pending');
      expect((await t.call('GET', `/organizations/${t.orgId}/invitations`)).body.data).toEqual([]);
    });

    it('unknown and malformed invitation ids answer 404', async () => {
      for (const path of ['/invitations/inv_9999', '/invitations/user_0001', '/invitations/inv_!']) {
        const res = await t.call('GET', path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });
  });

  describe('bad input', () => {
    const path = () => `/organizations/${t.orgId}/users`;
    it('400 for a missing field, malformed JSON, wrong content type or no body', async () => {
      const before = await snapshot();
      const missing = await t.call('POST', path(), { body: { name: 'No Email' } });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'invalid_request', message: 'missing required field: email' });
      const malformed = await t.call('POST', path(), { body: '{"email":' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toBe('the request body is not valid JSON');
      const text = await t.call('POST', path(), {
        body: JSON.stringify({ email: 'bob@example.test' }),
        headers: { 'Content-Type': 'text/plain' },
      });
      expect(text.status).toBe(400);
      expect(text.body.error.message).toBe('Content-Type must be application/json');
      expect((await t.call('POST', path())).status).toBe(400);
      expect(await snapshot()).toEqual(before);
    });

    it('422 with details for an invalid or unknown field', async () => {
      const before = await snapshot();
      const cases: [unknown, string][] = [
        [{ email: 'not-an-email' }, 'email'],
        [{ email: 'bob@example.test', role: 'king' }, 'role'],
        [{ email: 'bob@example.test', name: '' }, 'name'],
        [{ email: 'bob@example.test', teams: 'team_0001' }, 'teams'],
        [{ email: 'bob@example.test', admin: true }, 'admin'],
        [{ email: 42 }, 'email'],
      ];
      for (const [body, field] of cases) {
        const res = await invite(body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.code).toBe('validation_error');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
      }
      expect((await invite({ email: 'bob@example.test', admin: true })).body.error.details).toEqual([
        { field: 'admin', message: 'unknown field' },
      ]);
      expect(await snapshot()).toEqual(before);
    });
  });
});

describe('expiry', () => {
  it('is derived from expiresAt and the clock: pending until the instant it expires', async () => {
    await invite({ email: 'bob@example.test' });
    const token = tokenOf((await mails())[0]);
    t.clock.advance(7 * DAY - 1);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('pending');
    t.clock.advance(1);
    expect((await t.call('GET', '/invitations/inv_0001')).body).toMatchObject({
      status: 'expired',
      expiresAt: IN_7_DAYS,
    });
    expect(await accept(token)).toBe(false);
    const base = baseOf(t.platform);
    expect(await base.stores.invitations.markAccepted('inv_0001', base.now())).toBe(false);
    // The user stays pending until an admin resends or revokes.
    expect((await t.call('GET', '/users/user_0002')).body.status).toBe('pending');
  });
});

describe('GET /organizations/{orgId}/invitations', () => {
  async function seed() {
    await invite({ email: 'a@x.test' }); // inv_0001, expires first
    t.clock.advance(DAY);
    await invite({ email: 'b@x.test' }); // inv_0002, to be revoked
    t.clock.advance(DAY);
    await invite({ email: 'c@x.test' }); // inv_0003, to be accepted
    await invite({ email: 'd@x.test' }); // inv_0004, same millisecond: ties break on id
    expect((await t.call('DELETE', '/invitations/inv_0002')).status).toBe(204);
    expect(await accept(tokenOf((await mails()).find((m) => m.to === 'c@x.test')))).toBe(true);
    t.clock.advance(5 * DAY); // inv_0001 is now 7 days old
  }
  const list = (query = '') => t.call('GET', `/organizations/${t.orgId}/invitations${query}`);
  const ids = (body: { data: { id: string }[] }) => body.data.map((i) => i.id);

  it('lists newest first with offset pagination and whole records', async () => {
    await invite({ email: 'a@x.test', name: 'A' });
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id: 'inv_0001',
          email: 'a@x.test',
          name: 'A',
          role: 'member',
          teams: [],
          status: 'pending',
          userId: 'user_0002',
          organizationId: t.orgId,
          createdAt: T0,
          expiresAt: IN_7_DAYS,
        },
      ],
      pagination: { total: 1, page: 1, perPage: 20, totalPages: 1, hasMore: false },
    });
  });

  it('orders by creation time, ties on id, both descending; pages past the end are empty', async () => {
    await seed();
    const all = await list();
    expect(ids(all.body)).toEqual(['inv_0004', 'inv_0003', 'inv_0002', 'inv_0001']);
    expect(all.body.data.map((i: { status: string }) => i.status)).toEqual([
      'pending',
      'accepted',
      'revoked',
      'expired',
    ]);
    const page2 = await list('?per_page=3&page=2');
    expect(ids(page2.body)).toEqual(['inv_0001']);
    expect(page2.body.pagination).toEqual({ total: 4, page: 2, perPage: 3, totalPages: 2, hasMore: false });
    const past = await list('?per_page=3&page=3');
    expect(past.body).toEqual({
      data: [],
      pagination: { total: 4, page: 3, perPage: 3, totalPages: 2, hasMore: false },
    });
  });

  it('filters on the derived status', async () => {
    await seed();
    expect(ids((await list('?status=pending')).body)).toEqual(['inv_0004']);
    expect(ids((await list('?status=expired')).body)).toEqual(['inv_0001']);
    expect(ids((await list('?status=accepted')).body)).toEqual(['inv_0003']);
    expect(ids((await list('?status=revoked')).body)).toEqual(['inv_0002']);
    expect((await list('?status=expired')).body.data[0].status).toBe('expired');
    expect((await list('?status=expired')).body.pagination.total).toBe(1);
  });

  it('pages by cursor, keeping the filter; a cursor with another filter, or bad parameters, is 400', async () => {
    await seed();
    const first = await list('?limit=2');
    expect(ids(first.body)).toEqual(['inv_0004', 'inv_0003']);
    expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String), hasMore: true });
    const second = await list(`?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(ids(second.body)).toEqual(['inv_0002', 'inv_0001']);
    expect(second.body.pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false });

    const filtered = await list('?status=pending&limit=1');
    expect(filtered.body.pagination.hasMore).toBe(false);
    const c = first.body.pagination.nextCursor;
    for (const q of [`?cursor=${c}&status=revoked`, '?status=bogus', '?per_page=101', `?page=1&cursor=${c}`, '?x=1']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('POST /invitations/{id}/resend', () => {
  it('gives a pending invitation a new token, a new 7-day expiry and a new mail; the old link dies', async () => {
    await invite({ email: 'bob@example.test' });
    const oldToken = tokenOf((await mails())[0]);
    t.clock.advance(DAY);
    const res = await t.call('POST', '/invitations/inv_0001/resend');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 'inv_0001',
      email: 'bob@example.test',
      name: null,
      role: 'member',
      teams: [],
      status: 'pending',
      userId: 'user_0002',
      organizationId: t.orgId,
      createdAt: T0,
      expiresAt: '2026-01-09T00:00:00.000Z',
    });
    expect(res.body).toEqual((await t.call('GET', '/invitations/inv_0001')).body);
    const [latest, first] = await mails();
    expect(first?.id).toBe('mail_0001');
    expect(latest).toMatchObject({ id: 'mail_0002', to: 'bob@example.test', createdAt: '2026-01-02T00:00:00.000Z' });
    const newToken = tokenOf(latest);
    expect(newToken).not.toBe(oldToken);
    expect(latest?.text).toContain('expires at 2026-01-09T00:00:00.000Z');
    expect(((await dbRow(t.platform, 'SELECT token_hash FROM invitations')) as { token_hash: string }).token_hash).toBe(
      hashInvitationToken(newToken),
    );
    expect(await accept(oldToken)).toBe(false);
    expect(await events('invitation.resent')).toEqual([
      {
        org: t.orgId,
        actor: 'api_key:key_0001',
        target: 'invitation:inv_0001',
        data: { email: 'bob@example.test', wasExpired: false, expiresAt: '2026-01-09T00:00:00.000Z' },
      },
    ]);
    expect(await accept(newToken)).toBe(true);
  });

  it('revives an expired invitation', async () => {
    await invite({ email: 'bob@example.test' });
    t.clock.advance(30 * DAY);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('expired');
    const res = await t.call('POST', '/invitations/inv_0001/resend');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', expiresAt: '2026-02-07T00:00:00.000Z' });
    expect((await events('invitation.resent'))[0]?.data.wasExpired).toBe(true);
    expect(await accept(tokenOf((await mails())[0]))).toBe(true);
  });

  it('409 for an accepted or revoked invitation, or a user suspended meanwhile; nothing written', async () => {
    await invite({ email: 'a@x.test' });
    await invite({ email: 'b@x.test' });
    await invite({ email: 'c@x.test' });
    expect(await accept(tokenOf((await mails()).find((m) => m.to === 'a@x.test')))).toBe(true);
    expect((await t.call('DELETE', '/invitations/inv_0002')).status).toBe(204);
    expect((await t.call('POST', '/users/user_0004/suspend')).status).toBe(200);
    const before = await snapshot();
    const messages = [];
    for (const id of ['inv_0001', 'inv_0002', 'inv_0003']) {
      const res = await t.call('POST', `/invitations/${id}/resend`);
      expect(res.status).toBe(409);
      messages.push(res.body.error.message);
    }
    expect(messages).toEqual([
      'the invitation is accepted and cannot be resent',
      'the invitation is revoked and cannot be resent',
      'the invited user is suspended, not pending',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it("only owners resend an owner's invitation", async () => {
    await invite({ email: 'o@x.test', role: 'owner' });
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    const before = await snapshot();
    expect((await t.call('POST', '/invitations/inv_0001/resend', { key: admin.key })).status).toBe(403);
    expect((await t.call('DELETE', '/invitations/inv_0001', { key: admin.key })).status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await t.call('POST', '/invitations/inv_0001/resend')).status).toBe(200);
  });

  it('counts a pending user promoted to owner meanwhile as an owner-to-be', async () => {
    await invite({ email: 'p@x.test' });
    expect((await t.call('PATCH', '/users/user_0002', { body: { role: 'owner' } })).status).toBe(200);
    const admin = await t.addUser({ email: 'admin@acme.test', role: 'admin' });
    expect((await t.call('POST', '/invitations/inv_0001/resend', { key: admin.key })).status).toBe(403);
    expect((await t.call('DELETE', '/invitations/inv_0001', { key: admin.key })).status).toBe(403);
    expect((await t.call('DELETE', '/invitations/inv_0001')).status).toBe(204);
  });
});

describe('DELETE /invitations/{id}', () => {
  it('revokes and removes the pending user: membership, teams, account; idempotent', async () => {
    const team = (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name: 'Alpha' } })).body.id;
    await invite({ email: 'bob@example.test', teams: [team] });
    const token = tokenOf((await mails())[0]);
    t.clock.advance(1000);
    const res = await t.call('DELETE', '/invitations/inv_0001');
    expect(res.status).toBe(204);
    expect(res.body).toBe(undefined);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('revoked');
    expect((await t.call('GET', '/users/user_0002')).status).toBe(404);
    expect(await stores().users.accountByEmail('bob@example.test')).toBe(undefined);
    expect((await t.call('GET', `/teams/${team}/members`)).body.data).toEqual([]);
    expect(await count('team_members')).toBe(0);
    expect(await accept(token)).toBe(false);
    expect(await events('invitation.revoked')).toEqual([
      {
        org: t.orgId,
        actor: 'api_key:key_0001',
        target: 'invitation:inv_0001',
        data: { email: 'bob@example.test', userId: 'user_0002', userRemoved: true },
      },
    ]);
    const before = await snapshot();
    expect((await t.call('DELETE', '/invitations/inv_0001')).status).toBe(204);
    expect(await snapshot()).toEqual(before);
    // The address can be invited again.
    const again = await invite({ email: 'bob@example.test' });
    expect(again.body).toMatchObject({ id: 'inv_0002', userId: 'user_0003', status: 'pending' });
  });

  it('keeps an account that belongs to another organization', async () => {
    const other = await t.otherOrg();
    await invite({ email: 'boss@other.test' });
    expect((await t.call('DELETE', '/invitations/inv_0001')).status).toBe(204);
    expect(await stores().users.get(t.orgId, other.ownerId)).toBe(undefined);
    expect(await stores().users.get(other.orgId, other.ownerId)).toMatchObject({ status: 'active', role: 'owner' });
    expect((await stores().users.accountByEmail('boss@other.test'))?.id).toBe(other.ownerId);
    expect((await t.call('GET', '/organizations', { key: other.key })).status).toBe(200);
  });

  it('revokes an expired invitation too', async () => {
    await invite({ email: 'bob@example.test' });
    t.clock.advance(8 * DAY);
    expect((await t.call('DELETE', '/invitations/inv_0001')).status).toBe(204);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('revoked');
    expect((await t.call('GET', '/users/user_0002')).status).toBe(404);
  });

  it('409 for an accepted invitation; nothing written', async () => {
    await invite({ email: 'bob@example.test' });
    expect(await accept(tokenOf((await mails())[0]))).toBe(true);
    const before = await snapshot();
    const res = await t.call('DELETE', '/invitations/inv_0001');
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe(
      'the invitation was accepted; remove the user with DELETE /users/{userId} instead',
    );
    expect(await snapshot()).toEqual(before);
    expect((await t.call('GET', '/users/user_0002')).body.status).toBe('active');
  });

  it('deleting the pending user revokes the invitation', async () => {
    await invite({ email: 'bob@example.test' });
    expect((await t.call('DELETE', '/users/user_0002')).status).toBe(204);
    expect((await t.call('GET', '/invitations/inv_0001')).body.status).toBe('revoked');
  });
});

describe('outbox', () => {
  it('lists the mailbox newest first, by recipient if asked', async () => {
    await invite({ email: 'a@x.test' });
    await invite({ email: 'b@x.test' });
    t.clock.advance(1);
    await t.call('POST', '/invitations/inv_0001/resend');
    expect((await mails()).map((m) => [m.id, m.to])).toEqual([
      ['mail_0003', 'a@x.test'],
      ['mail_0002', 'b@x.test'],
      ['mail_0001', 'a@x.test'],
    ]);
    expect((await stores().outbox.list({ to: 'A@X.test' })).map((m) => m.id)).toEqual(['mail_0003', 'mail_0001']);
    expect((await stores().outbox.list({ limit: 1 })).map((m) => m.id)).toEqual(['mail_0003']);
  });
});
