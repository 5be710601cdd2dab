import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../src/platform/errors.js';
import { dbRows, dbRun } from '../helpers/db.js';
import { baseOf, sqlOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';
import { FormBrowser, formFields } from './auth/helpers.js';

// The users list answers `total` from `member_counts`, which triggers on `org_users` keep in the transaction of each
// change (store/migrations/0007_member_counts.sqlite.ts and .postgres.ts): it must stay right however the members
// change — through the API, by a cascade, in a rolled-back savepoint, or by SQL beside the store.

type Totals = { all: number; active: number; pending: number; suspended: number };

/** What the users list answers as `total`: for all members, and for each status. */
async function totals(t: TestPlatform, orgId = t.orgId, key?: string): Promise<Totals> {
  const total = async (filter: string): Promise<number> => {
    const r = await t.call('GET', `/organizations/${orgId}/users?per_page=1${filter}`, key ? { key } : {});
    expect(r.status).toBe(200);
    return r.body.pagination.total;
  };
  return {
    all: await total(''),
    active: await total('&status=active'),
    pending: await total('&status=pending'),
    suspended: await total('&status=suspended'),
  };
}

/** `member_counts` holds what counting `org_users` finds, organization by organization and status by status. */
async function expectCountsOfTable(t: TestPlatform): Promise<void> {
  const rows = async (text: string) =>
    (await dbRows<{ org_id: string; status: string; n: number | string }>(t.platform, text)).map((r) => ({
      ...r,
      n: Number(r.n),
    }));
  const counted = await rows(
    'SELECT org_id, status, count(*) AS n FROM org_users GROUP BY org_id, status ORDER BY org_id, status',
  );
  const kept = await rows(
    'SELECT org_id, status, members AS n FROM member_counts WHERE members <> 0 ORDER BY org_id, status',
  );
  expect(kept).toEqual(counted);
}

const plus = (before: Totals, change: Partial<Totals>): Totals => ({
  all: before.all + (change.all ?? 0),
  active: before.active + (change.active ?? 0),
  pending: before.pending + (change.pending ?? 0),
  suspended: before.suspended + (change.suspended ?? 0),
});

describe('the users list’s total', () => {
  it('counts an invitation as pending, and its acceptance as active', async () => {
    const t = await testPlatform();
    const before = await totals(t);
    expect(before).toEqual({ all: 1, active: 1, pending: 0, suspended: 0 });
    const invited = await t.call('POST', `/organizations/${t.orgId}/users`, {
      body: { email: 'nina@example.test', name: 'Nina New' },
    });
    expect(invited.status).toBe(201);
    expect(await totals(t)).toEqual(plus(before, { all: 1, pending: 1 }));

    const link = (await baseOf(t.platform).stores.outbox.list({ to: 'nina@example.test' }))[0]?.links[0] as string;
    const browser = new FormBrowser(t.platform.fetch);
    const page = await browser.get(link);
    const password = 'a long enough passphrase';
    const done = await browser.post(`${new URL(link).origin}/v2/auth/invitations/accept`, {
      ...formFields(page.text),
      name: 'Nina',
      password,
      confirm: password,
    });
    expect(done.status).toBe(200);
    expect(await totals(t)).toEqual(plus(before, { all: 1, active: 1 }));
    await expectCountsOfTable(t);
  });

  it('follows a member through suspension, unsuspension and deletion; other changes leave it as it was', async () => {
    const t = await testPlatform();
    const before = await totals(t);
    const { userId } = await t.addUser({ email: 'ada@example.test', name: 'Ada' });
    const { userId: invited } = await t.addUser({ email: 'bob@example.test', status: 'pending' });
    expect(await totals(t)).toEqual(plus(before, { all: 2, active: 1, pending: 1 }));

    expect((await t.call('POST', `/users/${userId}/suspend`)).status).toBe(200);
    expect((await t.call('POST', `/users/${invited}/suspend`)).status).toBe(200);
    expect(await totals(t)).toEqual(plus(before, { all: 2, suspended: 2 }));
    // Suspending again, renaming, a new role: the status stays, and so do the counts.
    expect((await t.call('POST', `/users/${userId}/suspend`)).status).toBe(200);
    expect((await t.call('PATCH', `/users/${userId}`, { body: { name: 'Ada L.', role: 'admin' } })).status).toBe(200);
    expect(await totals(t)).toEqual(plus(before, { all: 2, suspended: 2 }));

    expect((await t.call('POST', `/users/${userId}/unsuspend`)).status).toBe(200);
    expect((await t.call('POST', `/users/${invited}/unsuspend`)).status).toBe(200);
    expect(await totals(t)).toEqual(plus(before, { all: 2, active: 1, pending: 1 }));

    expect((await t.call('DELETE', `/users/${userId}`)).status).toBe(204);
    expect(await totals(t)).toEqual(plus(before, { all: 1, pending: 1 }));
    expect((await t.call('DELETE', `/users/${invited}`)).status).toBe(204);
    expect(await totals(t)).toEqual(before);
    await expectCountsOfTable(t);
  });

  it('still counts the matches of a search, not the members', async () => {
    const t = await testPlatform();
    await t.addUser({ email: 'ada@example.test', name: 'Ada Lovelace' });
    await t.addUser({ email: 'grace@example.test', name: 'Grace Hopper', status: 'suspended' });
    const total = async (query: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/users?${query}`)).body.pagination.total;
    expect(await total('search=example.test')).toBe(2);
    expect(await total('search=love')).toBe(1);
    expect(await total('search=ho&status=suspended')).toBe(1);
    expect(await total('search=ho&status=active')).toBe(0);
    expect(await total('search=nobody')).toBe(0);
  });

  it('loses the members of a deleted organization with it, and only those', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    await t.addUser({ email: 'ada@example.test', orgId: other.orgId });
    await t.addUser({ email: 'bob@example.test', orgId: other.orgId, status: 'suspended' });
    // A member of both: the deletion takes one membership.
    await t.addUser({ email: 'ada@example.test' });
    const mine = await totals(t);
    expect(await totals(t, other.orgId, other.key)).toEqual({ all: 3, active: 2, pending: 0, suspended: 1 });
    await dbRun(t.platform, 'DELETE FROM organizations WHERE id = ?', other.orgId);
    expect(await dbRows(t.platform, 'SELECT * FROM org_users WHERE org_id = ?', other.orgId)).toEqual([]);
    expect(await dbRows(t.platform, 'SELECT * FROM member_counts WHERE org_id = ?', other.orgId)).toEqual([]);
    expect(await totals(t)).toEqual(mine);
    await expectCountsOfTable(t);
  });

  it('counts none of a batch’s item rolled back in its savepoint, nor anything of a dry run', async () => {
    const t = await testPlatform({
      wrapStores: (stores) => {
        const { invitations } = stores;
        const insert: typeof invitations.insert = async (invitation) => {
          await invitations.insert(invitation);
          if (invitation.email === 'doomed@example.test') {
            throw new PlatformError('conflict', 'planted: failed after writing');
          }
        };
        return { ...stores, invitations: { ...invitations, insert } };
      },
    });
    const before = await totals(t);
    const batch = (body: unknown) => t.call('POST', `/organizations/${t.orgId}/users/batch`, { body });
    const users = [{ email: 'first@example.test' }, { email: 'doomed@example.test' }, { email: 'last@example.test' }];
    const dry = await batch({ users, dryRun: true });
    expect(dry.body.summary).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 1 });
    expect(await totals(t)).toEqual(before);
    const r = await batch({ users });
    expect(r.body.results.map((x: { outcome: string }) => x.outcome)).toEqual(['created', 'failed', 'created']);
    expect(await totals(t)).toEqual(plus(before, { all: 2, pending: 2 }));
    await expectCountsOfTable(t);
  });

  it('counts rows written beside the store: an insert, a change of status or organization, a deletion', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    await t.addUser({ email: 'ada@example.test' });
    const before = await totals(t);
    const T = '2026-01-01T00:00:00.000Z';
    await dbRun(
      t.platform,
      'INSERT INTO accounts (id, email, email_verified, created_at, updated_at) VALUES (?, ?, 1, ?, ?)',
      'user_raw',
      'raw@example.test',
      T,
      T,
    );
    const insert = (orgId: string, status: string) =>
      dbRun(
        t.platform,
        `INSERT INTO org_users (org_id, user_id, email, role, status, created_at, updated_at)
         VALUES (?, 'user_raw', 'raw@example.test', 'member', ?, ?, ?)`,
        orgId,
        status,
        T,
        T,
      );
    await insert(t.orgId, 'suspended');
    expect(await totals(t)).toEqual(plus(before, { all: 1, suspended: 1 }));
    await dbRun(t.platform, "UPDATE org_users SET status = 'active' WHERE user_id = 'user_raw'");
    expect(await totals(t)).toEqual(plus(before, { all: 1, active: 1 }));
    // Every membership at once, each to the status it has: nothing changes.
    await dbRun(t.platform, 'UPDATE org_users SET status = status, org_id = org_id');
    expect(await totals(t)).toEqual(plus(before, { all: 1, active: 1 }));
    await dbRun(
      t.platform,
      "UPDATE org_users SET org_id = ?, status = 'pending' WHERE user_id = 'user_raw'",
      other.orgId,
    );
    expect(await totals(t)).toEqual(before);
    expect(await totals(t, other.orgId, other.key)).toEqual({ all: 2, active: 1, pending: 1, suspended: 0 });
    await insert(t.orgId, 'pending');
    expect(await totals(t)).toEqual(plus(before, { all: 1, pending: 1 }));
    // Several rows in one statement (as a bulk load writes them): this organization's other members join the other one.
    await dbRun(
      t.platform,
      `INSERT INTO org_users (org_id, user_id, email, role, status, created_at, updated_at)
       SELECT ?, s.user_id, s.email, s.role, 'suspended', s.created_at, s.updated_at FROM org_users s
       WHERE s.org_id = ? AND s.user_id <> 'user_raw'`,
      other.orgId,
      t.orgId,
    );
    expect(await totals(t, other.orgId, other.key)).toEqual({ all: 4, active: 1, pending: 1, suspended: 2 });
    if (sqlOf(t.platform).dialect === 'sqlite') {
      // Rows written beside the store are in SQLite's search index once it is rebuilt (store/users.ts), which its
      // delete trigger needs to find them there.
      await dbRun(t.platform, "INSERT INTO org_users_search (org_users_search) VALUES ('rebuild')");
    }
    await dbRun(t.platform, "DELETE FROM org_users WHERE user_id = 'user_raw'");
    expect(await totals(t)).toEqual(before);
    expect(await totals(t, other.orgId, other.key)).toEqual({ all: 3, active: 1, pending: 0, suspended: 2 });
    await expectCountsOfTable(t);
  });
});
