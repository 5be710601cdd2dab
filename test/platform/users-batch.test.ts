import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fixedClock, sequentialIds } from '../../src/platform/clock.js';
import { PlatformError } from '../../src/platform/errors.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { startServer } from '../../src/platform/server.js';
import { dbCount, dbRows, dbRun } from '../helpers/db.js';
import { baseOf, sqlOf } from '../helpers/internals.js';
import { send, type TestPlatform, testPlatform } from '../helpers/platform.js';

// POST /organizations/{orgId}/users/batch (docs/api.md, "Decisions"): outcomes, failure isolation, modes, dry runs, limits.

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});

const count = (table: string) => dbCount(t.platform, table);
/** Rows of every table a batch may write to. */
const TABLES = ['accounts', 'org_users', 'invitations', 'outbox', 'team_members', 'events'] as const;
const rows = async () =>
  Object.fromEntries(await Promise.all(TABLES.map(async (x) => [x, await count(x)]))) as Record<
    (typeof TABLES)[number],
    number
  >;
const batch = (body: unknown, key?: string) =>
  t.call('POST', `/organizations/${t.orgId}/users/batch`, { body, ...(key !== undefined && { key }) });
const eventsOf = async (type: string) =>
  (await dbRows<any>(t.platform, 'SELECT target_id, data FROM events WHERE type = ? ORDER BY id', type)).map((e) => ({
    target: e.target_id,
    data: JSON.parse(e.data),
  }));
/**
 * FTS5 checks the search index against the members table (rank 1: with the table's content, an external one): an
 * entry missing, extra or stale throws. SQLite only: PostgreSQL's search indexes are the table's own, kept by the
 * database, with no separate index to drift from it.
 */
const searchIndexMatchesTable = async () => {
  if (sqlOf(t.platform).dialect !== 'sqlite') return;
  await dbRun(t.platform, "INSERT INTO org_users_search (org_users_search, rank) VALUES ('integrity-check', 1)");
};
const user = async (id: string) => (await t.call('GET', `/users/${id}`)).body;
const teamsOf = (userId: string) => baseOf(t.platform).stores.teams.teamIdsOf(t.orgId, userId);
async function team(name: string): Promise<string> {
  return (await t.call('POST', `/organizations/${t.orgId}/teams`, { body: { name } })).body.id;
}

describe('POST /organizations/{orgId}/users/batch', () => {
  it('creates pending users with their teams and metadata, one event each, mailing nobody unless asked', async () => {
    const eng = await team('Engineering');
    const r = await batch({
      users: [
        { email: 'ada@example.test', name: 'Ada', role: 'admin', teams: ['engineering'], metadata: { level: 3 } },
        { email: 'bob@example.test', teams: [eng], metadata: { gone: null, desk: 'B2' } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      results: [
        {
          index: 0,
          email: 'ada@example.test',
          outcome: 'created',
          userId: expect.stringMatching(/^user_/),
          error: null,
        },
        {
          index: 1,
          email: 'bob@example.test',
          outcome: 'created',
          userId: expect.stringMatching(/^user_/),
          error: null,
        },
      ],
      summary: { created: 2, updated: 0, unchanged: 0, failed: 0 },
    });
    const [ada, bob] = r.body.results.map((x: any) => x.userId);
    expect(await user(ada)).toMatchObject({ status: 'pending', name: 'Ada', role: 'admin', metadata: { level: 3 } });
    expect(await user(bob)).toMatchObject({ status: 'pending', name: null, role: 'member', metadata: { desk: 'B2' } });
    expect([await teamsOf(ada), await teamsOf(bob)]).toEqual([[eng], [eng]]);
    expect((await eventsOf('user.invited')).map((e) => [e.target, e.data.batch, e.data.mailed])).toEqual([
      [ada, true, false],
      [bob, true, false],
    ]);
    expect(await count('outbox')).toBe(0);
    // Their invitations exist, unsent: a resend mails one.
    const invitations = await t.call('GET', `/organizations/${t.orgId}/invitations`);
    expect(invitations.body.data.map((i: any) => i.status)).toEqual(['pending', 'pending']);
  });

  it('mails the invitations of the users it creates with invite: true', async () => {
    const r = await batch({ users: [{ email: 'ada@example.test' }, { email: 'bob@example.test' }], invite: true });
    expect(r.body.summary.created).toBe(2);
    const mails = await baseOf(t.platform).stores.outbox.list();
    expect(mails.map((m) => m.to).sort()).toEqual(['ada@example.test', 'bob@example.test']);
  });

  it('fails bad items alone, each with its error, and changes nothing for them', async () => {
    const eng = await team('Engineering');
    const before = await rows();
    const r = await batch({
      users: [
        { email: 'ok@example.test', teams: [eng] },
        { email: 'not an address' },
        { email: 'nobody@example' },
        { email: 'unknown-team@example.test', teams: ['Engineering', 'Sales'] },
        { email: 'OK@example.test' },
        { email: 'typo@example.test', rolle: 'admin' },
        { email: 'bad-role@example.test', role: 'emperor' },
        { name: 'No e-mail' },
        'ada@example.test',
        { email: 'fine@example.test', metadata: { k: 'v' } },
      ],
    });
    expect(r.status).toBe(200);
    const outcome = (i: number) => {
      const x = r.body.results[i];
      return [x.outcome, x.error?.code, x.error?.details?.map((d: any) => d.field)];
    };
    expect(outcome(0)).toEqual(['created', undefined, undefined]);
    expect(outcome(1)).toEqual(['failed', 'validation_error', ['email']]);
    expect(outcome(2)).toEqual(['failed', 'validation_error', ['email']]);
    expect(outcome(3)).toEqual(['failed', 'validation_error', ['teams']]);
    expect(r.body.results[3].error.message).toBe('teams: unknown team: Sales');
    expect(outcome(4)).toEqual(['failed', 'validation_error', ['email']]);
    expect(r.body.results[4].error.message).toBe('email: the same e-mail as item 0 of this batch');
    expect(outcome(5)).toEqual(['failed', 'validation_error', ['rolle']]);
    expect(outcome(6)).toEqual(['failed', 'validation_error', ['role']]);
    expect(outcome(7)).toEqual(['failed', 'validation_error', ['email']]);
    expect(r.body.results[7].email).toBe('');
    expect(outcome(8)).toEqual(['failed', 'validation_error', ['(item)']]);
    expect(outcome(9)).toEqual(['created', undefined, undefined]);
    expect(r.body.summary).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 8 });
    // Exactly two users' worth of rows: the failed items left nothing behind.
    const after = await rows();
    expect(after.accounts - before.accounts).toBe(2);
    expect(after.org_users - before.org_users).toBe(2);
    expect(after.team_members - before.team_members).toBe(1);
    expect(after.events - before.events).toBe(2);
  });

  it('leaves a member that already matches unchanged — whatever the form of its e-mail — and refuses one that differs', async () => {
    const first = await batch({ users: [{ email: 'ada@example.test', name: 'Ada', metadata: { n: 1 } }] });
    const adaId = first.body.results[0].userId;
    const before = await rows();
    const again = await batch({
      users: [
        { email: '  ADA@Example.TEST ', name: 'Ada', metadata: { n: 1 } },
        { email: 'owner@acme.test', role: 'owner', name: 'Olive Owner' },
      ],
    });
    expect(again.body.results.map((x: any) => [x.outcome, x.userId, x.email])).toEqual([
      ['unchanged', adaId, 'ada@example.test'],
      ['unchanged', t.ownerId, 'owner@acme.test'],
    ]);
    expect(await rows()).toEqual(before);
    const differs = await batch({ users: [{ email: 'ada@example.test', name: 'Ada Lovelace' }] });
    expect(differs.body.results[0]).toMatchObject({
      outcome: 'failed',
      userId: null,
      error: {
        code: 'conflict',
        message: 'ada@example.test is already a member with another name: upsert to update it',
      },
    });
    expect((await user(adaId)).name).toBe('Ada');
  });

  it('makes an account of another organization a pending member here', async () => {
    const other = await t.otherOrg();
    await t.addUser({ email: 'shared@example.test', orgId: other.orgId });
    const r = await batch({ users: [{ email: 'shared@example.test' }] });
    expect(r.body.results[0]).toMatchObject({ outcome: 'created', error: null });
    expect(await count('accounts')).toBe(3);
    expect((await eventsOf('user.invited'))[0]?.data.newAccount).toBe(false);
  });

  it('upserts: name, role, metadata merged (null deletes), teams replaced; unchanged when nothing differs', async () => {
    const [eng, ops, sales] = [await team('Engineering'), await team('Ops'), await team('Sales')];
    const made = await batch({
      users: [{ email: 'ada@example.test', name: 'Ada', teams: [eng, ops], metadata: { a: 1, b: 'x' } }],
    });
    const id = made.body.results[0].userId;
    const r = await batch({
      mode: 'upsert',
      users: [
        {
          email: 'ada@example.test',
          name: 'Ada L.',
          role: 'admin',
          teams: ['ops', 'SALES'],
          metadata: { a: null, c: true },
        },
        { email: 'new@example.test', name: 'New' },
      ],
    });
    expect(r.body.results.map((x: any) => x.outcome)).toEqual(['updated', 'created']);
    expect(await user(id)).toMatchObject({
      name: 'Ada L.',
      role: 'admin',
      status: 'pending',
      metadata: { b: 'x', c: true },
    });
    expect(await teamsOf(id)).toEqual([ops, sales].sort());
    // The invitation a resend would mail says what they are now.
    const invitations = await t.call('GET', `/organizations/${t.orgId}/invitations`);
    expect(invitations.body.data.find((i: any) => i.userId === id)).toMatchObject({
      name: 'Ada L.',
      role: 'admin',
      teams: [ops, sales],
    });
    expect(await eventsOf('user.updated')).toEqual([
      {
        target: id,
        data: {
          fields: ['name', 'role', 'metadata', 'teams'],
          batch: true,
          role: { from: 'member', to: 'admin' },
          teams: { added: [sales], removed: [eng] },
        },
      },
    ]);
    const same = await batch({
      mode: 'upsert',
      users: [{ email: 'ada@example.test', teams: [sales, ops], metadata: { c: true } }],
    });
    expect(same.body.results[0].outcome).toBe('unchanged');
    expect(await eventsOf('user.updated')).toHaveLength(1);
  });

  it('keeps the rules of single changes per item: admins neither make nor change owners; the last owner stays', async () => {
    const { userId: adminId, key: adminKey } = await t.addUser({ email: 'adam@acme.test', role: 'admin' });
    const r = await batch(
      {
        mode: 'upsert',
        users: [
          { email: 'boss@example.test', role: 'owner' },
          { email: 'owner@acme.test', name: 'Renamed by an admin' },
          { email: 'member@example.test' },
        ],
      },
      adminKey,
    );
    expect(r.body.results.map((x: any) => [x.outcome, x.error?.code])).toEqual([
      ['failed', 'insufficient_permissions'],
      ['failed', 'insufficient_permissions'],
      ['created', undefined],
    ]);
    const demote = await batch({ mode: 'upsert', users: [{ email: 'owner@acme.test', role: 'admin' }] });
    expect(demote.body.results[0]).toMatchObject({ outcome: 'failed', error: { code: 'conflict' } });
    expect((await user(t.ownerId)).role).toBe('owner');
    expect((await user(adminId)).role).toBe('admin');
  });

  it('reports in a dry run exactly the outcomes of the real run, changing nothing', async () => {
    await batch({ users: [{ email: 'ada@example.test', name: 'Ada' }] });
    const body = {
      mode: 'upsert',
      users: [{ email: 'ada@example.test', name: 'Ada L.' }, { email: 'new@example.test' }, { email: 'bad' }],
      invite: true,
    };
    const before = await rows();
    const dry = await batch({ ...body, dryRun: true });
    expect(await rows()).toEqual(before);
    const real = await batch(body);
    const strip = (x: any) => ({ ...x, userId: x.outcome === 'created' ? null : x.userId });
    expect(dry.body.results).toEqual(real.body.results.map(strip));
    expect(dry.body.summary).toEqual({ created: 1, updated: 1, unchanged: 0, failed: 1 });
    expect(dry.body.results[1].userId).toBeNull();
  });

  it('keeps search in step with what it changed, and only with that', async () => {
    const sales = await team('Sales');
    const found = async (q: string) =>
      (await t.call('GET', `/organizations/${t.orgId}/users?search=${encodeURIComponent(q)}`)).body.data
        .map((u: any) => u.email)
        .sort();
    const indexMatchesTable = () => searchIndexMatchesTable();

    await batch({
      users: [
        { email: 'ada@example.test', name: 'Ada Lovelace' },
        { email: 'grace@example.test', name: 'Grace Hopper', teams: ['Nope'] },
        { email: 'alan@example.test', name: 'Alan Turing', teams: [sales] },
      ],
    });
    expect(await found('lovelace')).toEqual(['ada@example.test']);
    expect(await found('hopper')).toEqual([]);
    expect(await found('turing')).toEqual(['alan@example.test']);
    await batch({ users: [{ email: 'edsger@example.test', name: 'Edsger Dijkstra' }], dryRun: true });
    expect(await found('dijkstra')).toEqual([]);
    await batch({
      mode: 'upsert',
      users: [
        { email: 'ada@example.test', name: 'Ada King' },
        { email: 'alan@example.test', role: 'admin' },
      ],
    });
    expect(await found('lovelace')).toEqual([]);
    expect(await found('king')).toEqual(['ada@example.test']);
    expect(await found('turing')).toEqual(['alan@example.test']);
    indexMatchesTable();
    // Single changes after a batch keep it in step too.
    const ada = (await t.call('GET', `/organizations/${t.orgId}/users?search=king`)).body.data[0].id;
    await t.call('PATCH', `/users/${ada}`, { body: { name: 'Countess of Lovelace' } });
    expect(await found('countess')).toEqual(['ada@example.test']);
    expect(await found('king')).toEqual([]);
    await t.call('DELETE', `/users/${ada}`);
    expect(await found('countess')).toEqual([]);
    indexMatchesTable();
  });

  it('fails an item alone even when it fails having written: the batch runs again, a savepoint per item', async () => {
    // Every check of an item comes before its first write, so this cannot happen through the API: a store made to fail
    // after writing stands for what the checks did not foresee.
    const attempts: string[] = [];
    t = await testPlatform({
      wrapStores: (stores) => {
        const { invitations } = stores;
        const insert: typeof invitations.insert = async (invitation) => {
          await invitations.insert(invitation);
          attempts.push(invitation.email);
          if (invitation.email === 'doomed@example.test') {
            throw new PlatformError('conflict', 'planted: failed after writing');
          }
        };
        return { ...stores, invitations: { ...invitations, insert } };
      },
    });
    const before = await rows();
    const r = await batch({
      users: [
        { email: 'first@example.test', name: 'First Person' },
        { email: 'doomed@example.test', name: 'Doomed Person' },
        { email: 'last@example.test', name: 'Last Person' },
      ],
    });
    expect(r.status).toBe(200);
    // Items one after the other until the failure, then the whole batch again, each item in a savepoint.
    expect(attempts).toEqual([
      'first@example.test',
      'doomed@example.test',
      'first@example.test',
      'doomed@example.test',
      'last@example.test',
    ]);
    expect(r.body.results.map((x: any) => x.outcome)).toEqual(['created', 'failed', 'created']);
    expect(r.body.results[1].error).toMatchObject({ code: 'conflict', message: 'planted: failed after writing' });
    // Two users, each with an account, a membership, an invitation and an event; nothing of the doomed one.
    const after = await rows();
    expect(after.accounts - before.accounts).toBe(2);
    expect(after.org_users - before.org_users).toBe(2);
    expect(after.invitations - before.invitations).toBe(2);
    expect(after.events - before.events).toBe(2);
    expect(await baseOf(t.platform).stores.users.accountByEmail('doomed@example.test')).toBeUndefined();
    const searched = (await t.call('GET', `/organizations/${t.orgId}/users?search=person`)).body.data;
    expect(searched.map((u: any) => u.email).sort()).toEqual(['first@example.test', 'last@example.test']);
    await searchIndexMatchesTable();
  });

  it('refuses the whole request for what is not a batch: no items, too many, unknown fields; users:write; 404 across organizations', async () => {
    const { key: memberKey } = await t.addUser({ email: 'max@acme.test' });
    const other = await t.otherOrg();
    const before = await rows();
    const status = async (body: unknown, key?: string) => (await batch(body, key)).status;
    expect(await status({ users: [] })).toBe(422);
    const many = Array.from({ length: 1001 }, (_, i) => ({ email: `u${i}@example.test` }));
    expect(await status({ users: many })).toBe(422);
    expect(await status({ users: [{ email: 'a@example.test' }], mode: 'merge' })).toBe(422);
    expect(await status({ users: [{ email: 'a@example.test' }], extra: 1 })).toBe(422);
    expect(await status({ users: [{ email: 'a@example.test' }] }, memberKey)).toBe(403);
    const across = await t.call('POST', `/organizations/${other.orgId}/users/batch`, {
      body: { users: [{ email: 'a@example.test' }] },
    });
    expect(across.status).toBe(404);
    expect(await rows()).toEqual(before);
  });

  it('takes 1,000 items in one request, counted once by the rate limits', async () => {
    const limited = await testPlatform({ limits: { enabled: true } });
    const users = Array.from({ length: 1000 }, (_, i) => ({ email: `user${i}@example.test`, metadata: { i } }));
    const r = await limited.call('POST', `/organizations/${limited.orgId}/users/batch`, { body: { users } });
    expect(r.status).toBe(200);
    expect(r.body.summary).toEqual({ created: 1000, updated: 0, unchanged: 0, failed: 0 });
    const next = await limited.call('GET', '/organizations');
    expect(Number(r.headers.get('x-ratelimit-remaining')) - Number(next.headers.get('x-ratelimit-remaining'))).toBe(1);
  });
});

describe('over HTTP', () => {
  it('answers the same outcomes from plat serve, failures isolated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-batch-'));
    const server = await startServer({
      db: join(dir, 'batch.db'),
      port: 0,
      clock: fixedClock(),
      ids: sequentialIds(),
      logger: () => {},
    });
    try {
      const boot = await bootstrap(baseOf(server.platform), { orgName: 'Acme', email: 'owner@acme.test' });
      const body = { users: [{ email: 'ada@example.test' }, { email: 'broken' }, { email: 'bob@example.test' }] };
      const r = await send(
        fetch,
        server.url,
        boot.apiKey,
        'POST',
        `/organizations/${boot.organizationId}/users/batch`,
        {
          body,
        },
      );
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: any) => x.outcome)).toEqual(['created', 'failed', 'created']);
      const list = await send(fetch, server.url, boot.apiKey, 'GET', `/organizations/${boot.organizationId}/users`);
      expect(list.body.data.map((u: any) => u.email).sort()).toEqual([
        'ada@example.test',
        'bob@example.test',
        'owner@acme.test',
      ]);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
