import type { MfaPolicy } from '../../contract/mfa.js';
import type { Organization, Plan } from '../../contract/organizations.js';
import { type Awaitable, andThen, pointRead, type Q, type StoreEnv } from './sql.js';

type Row = { id: string; name: string; slug: string; plan: Plan; mfa: string; created_at: string; updated_at: string };

function toOrganization(r: Row): Organization {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    plan: r.plan,
    mfa: r.mfa as MfaPolicy,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** One organization by id: every request's rate limit reads its plan, so the query is built once. */
const byId = pointRead((q: Q, id: string) =>
  q.selectFrom('organizations').selectAll().where('id', '=', id).$narrowType<{ plan: Plan }>(),
);

/** Organizations: their SQL in one place. */
export function organizationsStore(q: Q, _env: StoreEnv) {
  return {
    get: (id: string): Awaitable<Organization | undefined> => andThen(byId(q, id), (r) => r && toOrganization(r)),
    /** Whether the platform holds any organization (whether it was ever made). */
    any: async (): Promise<boolean> => {
      const r = await q.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
      return r !== undefined;
    },
    /** The organization with this slug, or undefined. */
    bySlug: async (slug: string): Promise<Organization | undefined> => {
      const r = await q
        .selectFrom('organizations')
        .selectAll()
        .where('slug', '=', slug)
        .$narrowType<{ plan: Plan }>()
        .executeTakeFirst();
      return r && toOrganization(r);
    },
    slugTaken: async (slug: string): Promise<boolean> => {
      const r = await q.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
      return r !== undefined;
    },
    insert: async (o: Organization): Promise<void> => {
      await q
        .insertInto('organizations')
        .values({
          id: o.id,
          name: o.name,
          slug: o.slug,
          plan: o.plan,
          mfa: o.mfa,
          created_at: o.createdAt,
          updated_at: o.updatedAt,
        })
        .execute();
    },
    update: async (o: Organization): Promise<void> => {
      await q
        .updateTable('organizations')
        .set({ name: o.name, plan: o.plan, mfa: o.mfa, updated_at: o.updatedAt })
        .where('id', '=', o.id)
        .execute();
    },
    /** Organizations where the user is a member that is not suspended. */
    listForUser: async (userId: string): Promise<Organization[]> => {
      const rows = await q
        .selectFrom('organizations as o')
        .innerJoin('org_users as m', 'm.org_id', 'o.id')
        .selectAll('o')
        .where('m.user_id', '=', userId)
        .where('m.status', '!=', 'suspended')
        .orderBy('o.created_at')
        .orderBy('o.id')
        .$narrowType<{ plan: Plan }>()
        .execute();
      return rows.map(toOrganization);
    },
  };
}
