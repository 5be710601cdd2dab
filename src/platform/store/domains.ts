import type { Selectable } from 'kysely';
import type { DomainStatus } from '../../contract/domains.js';
import type { DomainsTable } from './schema.js';
import type { Q, StoreEnv } from './sql.js';

/** A domain claim as stored: the record's fields but its verification, which its token makes. */
export interface StoredDomain {
  id: string;
  organizationId: string;
  domain: string;
  status: DomainStatus;
  /** The random part of the TXT record's value. */
  token: string;
  createdAt: string;
  verifiedAt: string | null;
}

type Row = Selectable<DomainsTable>;

function toStored(r: Row): StoredDomain {
  return {
    id: r.id,
    organizationId: r.org_id,
    domain: r.domain,
    status: r.status as DomainStatus,
    token: r.token,
    createdAt: r.created_at,
    verifiedAt: r.verified_at,
  };
}

/**
 * Domains organizations claim and prove (docs/domains.md): their SQL in one place. Names are stored in lower case.
 * One organization at most holds a domain `verified` or `legacy` (the `domains_holder` index): `hold` gives a claim
 * that standing, in the transaction that first took it from any other holder.
 */
export function domainsStore(q: Q, _env: StoreEnv) {
  return {
    /** The organization's claims, by name. */
    list: async (orgId: string): Promise<StoredDomain[]> => {
      const rows = await q.selectFrom('domains').selectAll().where('org_id', '=', orgId).orderBy('domain').execute();
      return rows.map(toStored);
    },
    /** How many domains the organization claims. */
    count: async (orgId: string): Promise<number> => {
      const r = await q
        .selectFrom('domains')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** The organization's claim by id, or undefined (another organization's is undefined too). */
    get: async (orgId: string, id: string): Promise<StoredDomain | undefined> => {
      const r = await q
        .selectFrom('domains')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toStored(r);
    },
    /** The organization's claim of this domain (lower case), or undefined. */
    byName: async (orgId: string, domain: string): Promise<StoredDomain | undefined> => {
      const r = await q
        .selectFrom('domains')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('domain', '=', domain)
        .executeTakeFirst();
      return r && toStored(r);
    },
    /** The claim that holds this domain (lower case) — `verified` or `legacy` — whichever organization's, or undefined. */
    holder: async (domain: string): Promise<StoredDomain | undefined> => {
      const r = await q
        .selectFrom('domains')
        .selectAll()
        .where('domain', '=', domain)
        .where('status', 'in', ['verified', 'legacy'])
        .executeTakeFirst();
      return r && toStored(r);
    },
    insert: async (d: StoredDomain): Promise<void> => {
      await q
        .insertInto('domains')
        .values({
          id: d.id,
          org_id: d.organizationId,
          domain: d.domain,
          status: d.status,
          token: d.token,
          created_at: d.createdAt,
          verified_at: d.verifiedAt,
        })
        .execute();
    },
    /** Sets a claim's standing (and when it was verified). */
    setStatus: async (id: string, status: DomainStatus, verifiedAt: string | null): Promise<void> => {
      await q.updateTable('domains').set({ status, verified_at: verifiedAt }).where('id', '=', id).execute();
    },
    /** Deletes one of the organization's claims; false when there was none. */
    remove: async (orgId: string, id: string): Promise<boolean> => {
      const r = await q.deleteFrom('domains').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
  };
}
