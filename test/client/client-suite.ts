import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type ClientOptions, type Fetch, PlatformClient, type RequestInfo } from '../../src/client/client.js';
import { ApiError } from '../../src/client/errors.js';
import { API } from '../../src/contract/endpoints/index.js';
import type { User } from '../../src/contract/users.js';
import type { TestPlatform } from '../helpers/platform.js';

/** A platform reachable through one transport, seeded by `t`. */
export interface ClientTarget {
  t: TestPlatform;
  fetch: Fetch;
  baseUrl: string;
  close(): Promise<void> | void;
}

const SEEDED = 25;

/** The same calls, whatever carries them: the client must not know which transport it runs over. */
export function describeClient(name: string, setup: () => Promise<ClientTarget>): void {
  describe(`PlatformClient over ${name}`, () => {
    let target: ClientTarget;
    let make: (extra?: Partial<ClientOptions>) => PlatformClient;

    beforeAll(async () => {
      target = await setup();
      for (let i = 1; i <= SEEDED; i++) {
        const n = String(i).padStart(2, '0');
        await target.t.addUser({ email: `user${n}@acme.test`, name: `User ${n}` });
      }
      make = (extra = {}) =>
        new PlatformClient({
          fetch: target.fetch,
          baseUrl: target.baseUrl,
          auth: async () => ({ 'X-API-Key': target.t.ownerKey }),
          ...extra,
        });
    });
    afterAll(async () => {
      await target?.close();
    });

    it('reads and changes records through typed calls', async () => {
      const client = make();
      const org = await client.organizations.get(target.t.orgId);
      expect(org).toMatchObject({ id: target.t.orgId, name: 'Acme', plan: 'enterprise' });
      const { data } = await client.organizations.list();
      expect(data.map((o) => o.id)).toContain(target.t.orgId);
      const renamed = await client.organizations.update(target.t.orgId, { name: 'Acme Renamed' });
      expect(renamed.name).toBe('Acme Renamed');
      await client.organizations.update(target.t.orgId, { name: 'Acme' });

      const user = await client.users.get(target.t.ownerId);
      expect(user).toMatchObject({ id: target.t.ownerId, email: 'owner@acme.test', role: 'owner' });
    });

    it('pages by offset', async () => {
      const page = await make().users.list(target.t.orgId, { page: 2, per_page: 10, sort: 'email', order: 'asc' });
      expect(page.pagination).toEqual({ total: SEEDED + 1, page: 2, perPage: 10, totalPages: 3, hasMore: true });
      expect(page.data.map((u) => u.email)).toEqual(
        Array.from({ length: 10 }, (_, i) => `user${String(i + 10).padStart(2, '0')}@acme.test`),
      );
    });

    it('pages by cursor, and page() returns whichever mode the query picks', async () => {
      const client = make();
      const path = `/organizations/${target.t.orgId}/users`;
      const first = await client.page<User>(path, { limit: 10, sort: 'email', order: 'asc' });
      expect(first.pagination).toMatchObject({ limit: 10, hasMore: true });
      expect(first.data[0]?.email).toBe('owner@acme.test');
      const cursor = 'nextCursor' in first.pagination ? first.pagination.nextCursor : null;
      expect(cursor).toEqual(expect.any(String));
      const second = await client.users.list(target.t.orgId, { cursor: cursor as string, limit: 10 });
      expect(second.data[0]?.email).toBe('user10@acme.test');
    });

    it('all() walks every page by cursor, reporting progress', async () => {
      const seen: RequestInfo[] = [];
      const client = make({ onRequest: (i) => seen.push(i) });
      const counts: number[] = [];
      const emails: string[] = [];
      const path = `/organizations/${target.t.orgId}/users`;
      for await (const u of client.all<User>(path, { limit: 7, sort: 'email', order: 'asc' }, (n) => counts.push(n))) {
        emails.push(u.email);
      }
      expect(emails).toHaveLength(SEEDED + 1);
      expect(new Set(emails).size).toBe(SEEDED + 1);
      expect(emails).toEqual([...emails].sort());
      expect(counts).toEqual([7, 14, 21, 26]);
      expect(seen).toHaveLength(4);
      expect(new URL(seen[1]?.url as string).searchParams.get('sort')).toBeNull();
      expect(new URL(seen[1]?.url as string).searchParams.get('cursor')).toEqual(expect.any(String));

      seen.length = 0;
      let total = 0;
      for await (const _ of client.all<User>(path)) total++;
      expect(total).toBe(SEEDED + 1);
      expect(seen).toHaveLength(1);
      expect(new URL(seen[0]?.url as string).searchParams.get('limit')).toBe('100');
    });

    it('has a method for every endpoint of the contract, and <name>All beside each paginated list', () => {
      const client = make() as unknown as Record<string, Record<string, unknown>>;
      /** Whether the response is a page of records: a `pagination` beside `data` (read from the schema itself). */
      const paginated = (schema: z.ZodType | undefined) => {
        const inner = schema instanceof z.ZodLazy ? schema.unwrap() : schema;
        return inner instanceof z.ZodObject && 'pagination' in inner.shape;
      };
      const walkers: string[] = [];
      for (const [group, endpoints] of Object.entries(API)) {
        for (const [name, endpoint] of Object.entries(endpoints)) {
          expect(typeof client[group]?.[name], `${group}.${name}`).toBe('function');
          if (`${name}All` in endpoints) continue; // sessions.revokeAll is an endpoint of its own
          const walks = typeof client[group]?.[`${name}All`] === 'function';
          expect(walks, `${group}.${name}All`).toBe(paginated(endpoint.response));
          if (walks) walkers.push(`${group}.${name}All`);
        }
      }
      expect(walkers.sort()).toEqual([
        'apiKeys.listAll',
        'events.listAll',
        'invitations.listAll',
        'members.listAll',
        'projects.listAll',
        'teams.listAll',
        'teams.membersAll',
        'users.listAll',
        'webhooks.deliveriesAll',
      ]);
    });

    it('listAll walks a list through its derived method, escaping the path parameters', async () => {
      const seen: RequestInfo[] = [];
      const client = make({ onRequest: (i) => seen.push(i) });
      const counts: number[] = [];
      const emails: string[] = [];
      const query = { limit: 10, sort: 'email', order: 'asc' } as const;
      for await (const u of client.users.listAll(target.t.orgId, query, (n) => counts.push(n))) emails.push(u.email);
      expect(emails).toHaveLength(SEEDED + 1);
      expect(emails).toEqual([...emails].sort());
      expect(counts).toEqual([10, 20, 26]);
      expect(new URL(seen[0]?.url as string).pathname).toBe(`/v2/organizations/${target.t.orgId}/users`);

      // An id holding a slash stays one path segment: an unknown team, not another route.
      const walk = async () => {
        for await (const _ of client.teams.membersAll('team_x/members')) throw new Error('no member expected');
      };
      const err = await walk().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 404, code: 'not_found' });
      expect(seen.at(-1)?.url).toContain('/teams/team_x%2Fmembers/members');
    });

    it('reports each call to onRequest without secrets', async () => {
      const seen: RequestInfo[] = [];
      await make({ onRequest: (i) => seen.push(i), requestId: 'cli-test-1' }).users.get(target.t.ownerId);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        method: 'GET',
        url: `${target.baseUrl}/users/${target.t.ownerId}`,
        status: 200,
        ms: expect.any(Number),
        requestId: 'cli-test-1',
        attempt: 1,
      });
      // Present when the instance sends X-RateLimit-* headers, and then complete.
      const rateLimit = seen[0]?.rateLimit;
      if (rateLimit)
        expect(rateLimit).toEqual({
          limit: expect.any(Number),
          remaining: expect.any(Number),
          reset: expect.any(Number),
        });
      expect(JSON.stringify(seen)).not.toContain(target.t.ownerKey);
    });

    it('turns a 404 into an ApiError with the envelope fields', async () => {
      const err = await make({ requestId: 'cli-404' })
        .users.get('user_missing')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        status: 404,
        code: 'not_found',
        requestId: 'cli-404',
        retries: 0,
        details: undefined,
        message: 'user not found',
        body: { code: 'not_found', status: 404, requestId: 'cli-404', message: 'user not found' },
      });
    });

    it('turns a 422 into an ApiError with details', async () => {
      const err = (await make()
        .users.update(target.t.ownerId, { name: '   ' })
        .catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(422);
      expect(err.code).toBe('validation_error');
      expect(err.details).toEqual([{ field: 'name', message: expect.any(String) }]);
      expect(err.requestId).toMatch(/^req_/);
    });

    it('turns a bad query into a 400 invalid_request', async () => {
      const err = await make()
        .users.list(target.t.orgId, { per_page: 500 })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, code: 'invalid_request' });
    });

    it('sends X-Org-Id', async () => {
      const other = await target.t.otherOrg();
      const err = await make({ orgId: other.orgId })
        .organizations.get(other.orgId)
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 403, code: 'insufficient_permissions' });
    });

    it('returns undefined for 204', async () => {
      const { userId } = await target.t.addUser({ email: 'leaving@acme.test' });
      const client = make();
      await expect(client.users.delete(userId)).resolves.toBeUndefined();
      await expect(client.users.get(userId)).rejects.toMatchObject({ status: 404 });
    });

    it('asks onUnauthorized once after a 401 and retries with the new credential', async () => {
      let key = 'plat_live_wrong';
      let asked = 0;
      const client = make({
        auth: async () => ({ 'X-API-Key': key }),
        onUnauthorized: async () => {
          asked++;
          key = target.t.ownerKey;
          return true;
        },
      });
      await expect(client.organizations.get(target.t.orgId)).resolves.toMatchObject({ id: target.t.orgId });
      expect(asked).toBe(1);

      const refused = make({
        auth: async () => ({ 'X-API-Key': 'plat_live_wrong' }),
        onUnauthorized: async () => false,
      });
      await expect(refused.organizations.get(target.t.orgId)).rejects.toMatchObject({
        status: 401,
        code: 'authentication_failed',
      });
    });
  });
}
