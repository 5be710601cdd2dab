import type { Organization, Plan } from '../../contract/organizations.js';
import type { Db } from './db.js';

type Row = { id: string; name: string; slug: string; plan: Plan; created_at: string; updated_at: string };

function toOrganization(r: Row): Organization {
  return { id: r.id, name: r.name, slug: r.slug, plan: r.plan, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** Organizations: their SQL in one place. */
export function organizationsStore(db: Db) {
  const get = db.prepare<[string], Row>('SELECT * FROM organizations WHERE id = ?');
  const slugTaken = db.prepare<[string], { one: 1 }>('SELECT 1 AS one FROM organizations WHERE slug = ?');
  const insert = db.prepare(
    'INSERT INTO organizations (id, name, slug, plan, created_at, updated_at) VALUES (@id, @name, @slug, @plan, @createdAt, @updatedAt)',
  );
  const update = db.prepare(
    'UPDATE organizations SET name = @name, plan = @plan, updated_at = @updatedAt WHERE id = @id',
  );
  const forUser = db.prepare<[string], Row>(
    `SELECT o.* FROM organizations o JOIN org_users m ON m.org_id = o.id
     WHERE m.user_id = ? AND m.status != 'suspended' ORDER BY o.created_at, o.id`,
  );
  return {
    get: (id: string) => {
      const r = get.get(id);
      return r && toOrganization(r);
    },
    slugTaken: (slug: string) => slugTaken.get(slug) !== undefined,
    insert: (o: Organization) => void insert.run(o),
    update: (o: Organization) => void update.run(o),
    /** Organizations where the user is a member that is not suspended. */
    listForUser: (userId: string) => forUser.all(userId).map(toOrganization),
  };
}
