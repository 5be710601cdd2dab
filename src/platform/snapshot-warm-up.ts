// For the startup snapshot only (src/startup/warm-up.ts): what runs the platform's code while the snapshot is built,
// when SQLite itself cannot be loaded. The stores stay inside the platform; the warm-up gets a `Platform`.
import type { List } from '../contract/common.js';
import type { Organization } from '../contract/organizations.js';
import type { User } from '../contract/users.js';
import { internalsOf } from './internals.js';
import type { Stores } from './store/index.js';

/** When every canned record was made. */
const AT = '2026-01-01T00:00:00.000Z';

/** The stores `GET /organizations/{orgId}/users` reads, answering for one organization, its owner's key, a page. */
function cannedStores(orgId: string, apiKey: string, page: List<User>): Stores {
  const owner = page.data[0] as User;
  const org: Organization = {
    id: orgId,
    name: 'Warm-up',
    slug: 'warm-up',
    plan: 'free',
    mfa: 'optional',
    createdAt: AT,
    updatedAt: AT,
  };
  const stores: {
    apiKeys: Pick<Stores['apiKeys'], 'byHash' | 'touch'>;
    users: Pick<Stores['users'], 'get' | 'standing' | 'list'>;
    organizations: Pick<Stores['organizations'], 'get'>;
  } = {
    apiKeys: {
      byHash: async (hash) => ({
        id: 'key_00000000000000000000',
        name: 'warm-up',
        organizationId: orgId,
        userId: owner.id,
        environment: 'live',
        prefix: apiKey.slice(0, 14),
        last4: apiKey.slice(-4),
        projectIds: null,
        permissions: null,
        multiOrganization: false,
        createdAt: AT,
        expiresAt: null,
        lastUsedAt: null,
        revokedAt: null,
        secretHash: hash,
        ownerStanding: { role: owner.role, status: owner.status, plan: org.plan },
      }),
      touch: async () => {},
    },
    users: {
      get: async (_orgId, userId) => page.data.find((u) => u.id === userId),
      standing: async (_orgId, userId) => {
        const user = page.data.find((u) => u.id === userId);
        return user && { role: user.role, status: user.status, plan: org.plan };
      },
      list: async () => page,
    },
    organizations: { get: async (id) => (id === orgId ? org : undefined) },
  };
  return stores as unknown as Stores;
}

/**
 * A platform that answers `GET /organizations/{orgId}/users` and whatever that request reads (the key, its owner's
 * standing, the organization) from a canned page, with no database: the warm-up's command runs the whole request
 * pipeline against it.
 */
export function cannedPlatform<O, P>(
  orgId: string,
  apiKey: string,
  page: List<User>,
  opts: O,
  over: (stores: Stores, opts: O) => P,
): P {
  return over(cannedStores(orgId, apiKey, page), opts);
}

/** Runs the queries `users list` runs, on a platform over the SQLite stand-in (which finds nothing). */
export async function warmUpStores(platform: object, orgId: string, userId: string): Promise<void> {
  const { stores } = internalsOf(platform).base();
  await stores.organizations.get(orgId);
  await stores.users.get(orgId, userId);
  await stores.users.standing(orgId, userId);
  const listing = { mode: 'cursor', limit: 20, after: null, filters: {} } as const;
  await stores.users.list(orgId, listing, { sort: 'created_at', order: 'desc' }, () => '');
}
