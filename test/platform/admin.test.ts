import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/platform/auth/passwords.js';
import { PlatformError } from '../../src/platform/errors.js';
import { hashPassword } from '../../src/platform/index.js';
import { baseOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';

// The platform's administrative operations (`platform.admin`, what `plat local` runs without a credential): each an
// operation like the API's, its writes recorded as events whose actor is the system.

describe('administrative operations', () => {
  it('set an account’s password by its e-mail, with an event in each of its organizations', async () => {
    const t = await testPlatform();
    const other = await t.otherOrg();
    // The owner of Acme becomes a member of the other organization too.
    await t.addUser({ email: 'owner@acme.test', orgId: other.orgId });
    const hash = await hashPassword('a new owner password');
    const report = await t.platform.admin.setPassword('OWNER@acme.test', hash);
    expect(report).toEqual({ userId: t.ownerId, organizationIds: [t.orgId, other.orgId] });
    const account = await baseOf(t.platform).stores.users.accountById(t.ownerId);
    expect(await verifyPassword('a new owner password', account?.passwordHash as string)).toBe(true);
    for (const [orgId, key] of [
      [t.orgId, t.ownerKey],
      [other.orgId, other.key],
    ] as const) {
      const events = (await t.call('GET', `/organizations/${orgId}/events?type=user.password_set`, { key })).body.data;
      expect(events, orgId).toMatchObject([
        {
          type: 'user.password_set',
          actor: { type: 'system', id: 'plat local' },
          target: { type: 'user', id: t.ownerId },
        },
      ]);
    }
  });

  it('refuse an e-mail no account has, changing nothing', async () => {
    const t = await testPlatform();
    const writes = baseOf(t.platform).writes();
    await expect(
      t.platform.admin.setPassword('nobody@acme.test', await hashPassword('whatever password')),
    ).rejects.toThrow(PlatformError);
    expect(baseOf(t.platform).writes()).toBe(writes);
    expect(await t.platform.admin.account('nobody@acme.test')).toBeUndefined();
  });

  it('make a first platform once, and show the mailbox newest first', async () => {
    const t = await testPlatform();
    expect(await t.platform.admin.hasOrganization()).toBe(true);
    await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'ada@example.com' } });
    await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'grace@example.com' } });
    const mails = await t.platform.admin.mailbox({});
    expect(mails.map((m) => m.to)).toEqual(['grace@example.com', 'ada@example.com']);
    const delivery = await t.platform.admin.mailbox({ to: 'ADA@example.com', delivery: true });
    expect(delivery).toMatchObject([{ to: 'ada@example.com', delivery: { status: 'queued' } }]);
  });
});
