import { sql } from 'kysely';
import type { Plan } from '../../contract/organizations.js';
import type { OrgRole } from '../../contract/permissions.js';
import type { User, UserSort, UserStatus } from '../../contract/users.js';
import type { Standing } from './api-keys.js';
import { containsPattern, containsText, nocaseEquals } from './dialects.js';
import { type Listing, type ListSpec, nocaseSort, runList, type SortPosition } from './paging.js';
import { SEALED } from './secret-box.js';
import { type Awaitable, andThen, type Dialect, pointRead, type Q, type StoreEnv } from './sql.js';

type Row = {
  org_id: string;
  user_id: string;
  email: string;
  name: string | null;
  avatar_url: string | null;
  role: OrgRole;
  status: UserStatus;
  metadata: string;
  last_login_at: string | null;
  joined_at: string | null;
  created_at: string;
  updated_at: string;
  email_verified: number;
};

function toUser(r: Row): User {
  return {
    id: r.user_id,
    email: r.email,
    name: r.name,
    avatarUrl: r.avatar_url,
    status: r.status,
    // Verified for this organization once the person has joined it: a pending user is never verified here.
    emailVerified: r.email_verified === 1 && r.joined_at !== null,
    role: r.role,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastLoginAt: r.last_login_at,
    metadata: JSON.parse(r.metadata) as User['metadata'],
  };
}

/**
 * A member and their account's verification, read by a subquery of the select list rather than a join: PostgreSQL
 * evaluates it for the rows of the page alone, once they are sorted, where a join reads the account of every row the
 * sort takes in (all of a search's matches).
 */
const COLUMNS = 'm.*, (SELECT a.email_verified FROM accounts a WHERE a.id = m.user_id) AS email_verified';

/** How each sort of the users' listing orders, per dialect: names and e-mails case-insensitively (SQLite's NOCASE). */
const sorts = (dialect: Dialect): Record<UserSort, ListSpec['sort']> => ({
  created_at: { expr: 'm.created_at', key: 'created_at', nullable: false },
  name: nocaseSort(dialect, 'm.name', 'name', true),
  email: nocaseSort(dialect, 'm.email', 'email', false),
  last_login_at: { expr: 'm.last_login_at', key: 'last_login_at', nullable: true },
});
const SORTS: Record<Dialect, Record<UserSort, ListSpec['sort']>> = {
  sqlite: sorts('sqlite'),
  postgres: sorts('postgres'),
};

/**
 * An account as stored (for sign-in and invitations). `passwordImportedBy`: the organization whose import set its
 * password (migration 12), a password the person never showed to be theirs to anyone else; null when they chose it.
 */
export type Account = {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string | null;
  passwordImportedBy: string | null;
};

type AccountRow = {
  id: string;
  email: string;
  email_verified: number;
  password_hash: string | null;
  password_imported_by: string | null;
};

/**
 * The hashes stored sealed: an imported Firebase scrypt hash holds the Firebase project's signer key (see
 * auth/imported-hashes.ts). Stored as this prefix and the sealed rest, so that they can be found (and discarded with the
 * key, `plat local forget-secrets`) without opening them.
 */
const SEALED_HASH_PREFIX = '$firebase-scrypt$';
const SEALED_HASH_STORED = `${SEALED_HASH_PREFIX}enc:`;

/** A member with their account's verification: what every authenticated request reads of its user. */
const memberById = pointRead((q: Q, orgId: string, userId: string) =>
  q
    .selectFrom('org_users as m')
    .innerJoin('accounts as a', 'a.id', 'm.user_id')
    .selectAll('m')
    .select('a.email_verified')
    .where('m.org_id', '=', orgId)
    .where('m.user_id', '=', userId)
    .$narrowType<{ role: OrgRole; status: UserStatus }>(),
);

/** A member's role and status alone. */
const standingOf = pointRead((q: Q, orgId: string, userId: string) =>
  q
    .selectFrom('org_users as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['m.role', 'm.status', 'o.plan'])
    .where('m.org_id', '=', orgId)
    .where('m.user_id', '=', userId)
    .$narrowType<{ role: OrgRole; status: UserStatus; plan: Plan }>(),
);

/** An organization's members, all of them or in one status: the counts its triggers keep (`member_counts`). */
const membersOf = pointRead((q: Q, orgId: string) =>
  q
    .selectFrom('member_counts')
    .select((eb) => eb.fn.sum<number | string | null>('members').as('n'))
    .where('org_id', '=', orgId),
);
const membersIn = pointRead((q: Q, orgId: string, status: string) =>
  q.selectFrom('member_counts').select('members as n').where('org_id', '=', orgId).where('status', '=', status),
);

/** How many members `orgId` has (in `status`, when given), read from the counts kept beside the table, not counted. */
async function memberCount(q: Q, orgId: string, status?: UserStatus): Promise<number> {
  const r = status ? await membersIn(q, orgId, status) : await membersOf(q, orgId);
  return Number(r?.n ?? 0);
}

/**
 * Users and their memberships: their SQL in one place. A user is an account (e-mail, password, verification) plus one
 * membership per organization. The membership holds everything an organization may change (name, avatar, role, status,
 * metadata), so no organization can write what another sees. The account's e-mail is copied into the membership (it
 * never changes) for sorting and search.
 */
export function usersStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  const { secrets } = env;
  const search = searchUpkeep(q, dialect);
  const sealHash = (userId: string, hash: string | null): string | null =>
    hash?.startsWith(SEALED_HASH_PREFIX)
      ? SEALED_HASH_PREFIX + secrets.seal(hash.slice(SEALED_HASH_PREFIX.length), SEALED.passwordHash(userId))
      : hash;
  const openHash = (userId: string, stored: string | null): string | null =>
    stored?.startsWith(SEALED_HASH_STORED)
      ? SEALED_HASH_PREFIX + secrets.open(stored.slice(SEALED_HASH_PREFIX.length), SEALED.passwordHash(userId))
      : stored;
  const toAccount = (r: AccountRow): Account => ({
    id: r.id,
    email: r.email,
    emailVerified: r.email_verified === 1,
    passwordHash: openHash(r.id, r.password_hash),
    passwordImportedBy: r.password_imported_by,
  });
  const account = (column: 'id' | 'email', value: string) => {
    const query = q
      .selectFrom('accounts')
      .select(['id', 'email', 'email_verified', 'password_hash', 'password_imported_by']);
    // The e-mail compares case-insensitively (SQLite's column is NOCASE; PostgreSQL's unique index is on its key).
    const one = column === 'email' ? query.where(nocaseEquals(dialect, 'email', value)) : query.where('id', '=', value);
    return one.executeTakeFirst();
  };
  const membershipCount = async (userId: string) => {
    const r = await q
      .selectFrom('org_users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  };

  /** The organization's members in the order they joined it (one instant's by id): `org_users_created`'s order. */
  const inJoiningOrder = (orgId: string) =>
    q
      .selectFrom('org_users as m')
      .selectAll('m')
      // A column of the page's rows only: the rows an OFFSET skips are read from the index alone.
      .select((eb) =>
        eb
          .selectFrom('accounts as a')
          .select('a.email_verified')
          .whereRef('a.id', '=', 'm.user_id')
          .as('email_verified'),
      )
      .where('m.org_id', '=', orgId)
      .orderBy('m.created_at')
      .orderBy('m.user_id')
      .$narrowType<{ role: OrgRole; status: UserStatus }>();

  return {
    /** The user as a member of `orgId`, or undefined when not a member there. */
    get: (orgId: string, userId: string): Awaitable<User | undefined> =>
      andThen(memberById(q, orgId, userId), (r) => r && toUser(r)),
    /** The user's role and status in the organization, and its plan (what a request acts with); undefined if not a member. */
    standing: (orgId: string, userId: string): Awaitable<Standing | undefined> => standingOf(q, orgId, userId),
    /** Every member of the organization, in the order they joined it (SCIM's filtered lists read them all). */
    all: async (orgId: string): Promise<User[]> => (await inJoiningOrder(orgId).execute()).map((r) => toUser(r as Row)),
    /** `limit` members from the `offset`-th on, in the order they joined (SCIM's pages of an unfiltered list). */
    slice: async (orgId: string, offset: number, limit: number): Promise<User[]> =>
      (await inJoiningOrder(orgId).limit(limit).offset(offset).execute()).map((r) => toUser(r as Row)),
    /** How many members the organization has (a count kept beside the table). */
    count: (orgId: string): Promise<number> => memberCount(q, orgId),
    accountByEmail: async (email: string): Promise<Account | undefined> => {
      const r = await account('email', email);
      return r && toAccount(r);
    },
    accountById: async (id: string): Promise<Account | undefined> => {
      const r = await account('id', id);
      return r && toAccount(r);
    },
    /**
     * A new account; with a password hash when the user brings one, imported by the organization `importedBy` (see
     * auth/imported-hashes.ts).
     */
    insertAccount: async (
      id: string,
      email: string,
      emailVerified: boolean,
      now: string,
      imported?: { passwordHash: string; importedBy: string },
    ): Promise<void> => {
      await q
        .insertInto('accounts')
        .values({
          id,
          email,
          email_verified: emailVerified ? 1 : 0,
          password_hash: sealHash(id, imported?.passwordHash ?? null),
          password_imported_by: imported?.importedBy ?? null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    },
    insertMembership: async (m: {
      orgId: string;
      userId: string;
      email: string;
      name: string | null;
      role: OrgRole;
      status: UserStatus;
      metadata?: Record<string, string | number | boolean>;
      now: string;
    }): Promise<void> => {
      const { seq } = await q
        .insertInto('org_users')
        .values({
          org_id: m.orgId,
          user_id: m.userId,
          email: m.email,
          name: m.name,
          role: m.role,
          status: m.status,
          metadata: JSON.stringify(m.metadata ?? {}),
          joined_at: m.status === 'active' ? m.now : null,
          created_at: m.now,
          updated_at: m.now,
        })
        .returning('seq')
        .executeTakeFirstOrThrow();
      await search.added(seq, m.name, m.email);
    },
    /** Writes the organization-owned fields of a user back. */
    update: async (orgId: string, u: User): Promise<void> => {
      const before = await search.entryOf(orgId, u.id);
      await q
        .updateTable('org_users')
        .set((eb) => ({
          name: u.name,
          avatar_url: u.avatarUrl,
          role: u.role,
          status: u.status,
          metadata: JSON.stringify(u.metadata),
          joined_at: u.status === 'active' ? eb.fn.coalesce('joined_at', eb.val(u.updatedAt)) : eb.ref('joined_at'),
          updated_at: u.updatedAt,
        }))
        .where('org_id', '=', orgId)
        .where('user_id', '=', u.id)
        .execute();
      if (before && before.name !== u.name) await search.changed(before, u.name);
    },
    /**
     * Runs `fn` (in the caller's transaction: this store must run on it) with the search index brought up to date once,
     * at its end, instead of at each membership written: FTS5 writes what it holds to disk at every savepoint, so a
     * batch that keeps one per item would otherwise write the index a thousand times. The deferral holds for every
     * store on the same transaction, savepoints included.
     */
    deferSearch: <T>(fn: () => Promise<T>): Promise<T> => search.deferred(fn),
    activeOwnerCount: async (orgId: string): Promise<number> => {
      const r = await q
        .selectFrom('org_users')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('org_id', '=', orgId)
        .where('role', '=', 'owner')
        .where('status', '=', 'active')
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
    /** Whether the user ever became an active member of the organization (accepted, or added active). */
    hasJoined: async (orgId: string, userId: string): Promise<boolean> => {
      const r = await q
        .selectFrom('org_users')
        .select('joined_at')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Boolean(r?.joined_at);
    },
    /** How many organizations the account is a member of, pending memberships included. */
    membershipCount,
    /**
     * Stores the account's password hash (a PHC string, or an imported one: auth/passwords.ts): the person's own, or
     * one the organization `importedBy` imported.
     */
    setPassword: async (userId: string, hash: string, now: string, importedBy: string | null = null): Promise<void> => {
      await q
        .updateTable('accounts')
        .set({ password_hash: sealHash(userId, hash), password_imported_by: importedBy, updated_at: now })
        .where('id', '=', userId)
        .execute();
    },
    /** Discards an imported password (another organization takes the account in): the account has none. */
    discardImportedPassword: async (userId: string, now: string): Promise<void> => {
      await q
        .updateTable('accounts')
        .set({ password_hash: null, password_imported_by: null, updated_at: now })
        .where('id', '=', userId)
        .where('password_imported_by', 'is not', null)
        .execute();
    },
    /**
     * Replaces the hash `from` with `to` (a sign-in's rehash of an imported hash) unless the account's password changed
     * meanwhile; whether it did. In the caller's transaction.
     */
    rehashPassword: async (userId: string, from: string, to: string, now: string): Promise<boolean> => {
      const current = await account('id', userId);
      if (!current || openHash(userId, current.password_hash) !== from) return false;
      const r = await q
        .updateTable('accounts')
        .set({ password_hash: sealHash(userId, to), updated_at: now })
        .where('id', '=', userId)
        .where('password_hash', '=', current.password_hash as string)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Discards the sealed imported hashes (their key is lost, `plat local forget-secrets`); the accounts they were. */
    forgetSealedHashes: async (now: string): Promise<number> => {
      const r = await q
        .updateTable('accounts')
        .set({ password_hash: null, password_imported_by: null, updated_at: now })
        .where('password_hash', 'like', `${SEALED_HASH_STORED}%`)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Sign-in: the account proved it reads its e-mail (an invitation link was followed). */
    markEmailVerified: async (userId: string, now: string): Promise<void> => {
      await q.updateTable('accounts').set({ email_verified: 1, updated_at: now }).where('id', '=', userId).execute();
    },
    /** Sign-in: the membership's `lastLoginAt`. */
    recordLogin: async (orgId: string, userId: string, now: string): Promise<void> => {
      await q
        .updateTable('org_users')
        .set({ last_login_at: now })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .execute();
    },
    /** Removes the membership, and the account when it belonged to no other organization. */
    remove: async (orgId: string, userId: string): Promise<void> => {
      // A trigger takes the membership out of the search index (as it does for rows an organization's deletion takes).
      search.refuseDeferred('remove a member');
      await q.deleteFrom('org_users').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      if ((await membershipCount(userId)) === 0) await q.deleteFrom('accounts').where('id', '=', userId).execute();
    },
    list: async (
      orgId: string,
      listing: Listing,
      f: { status?: UserStatus; search?: string; sort: UserSort; order: 'asc' | 'desc' },
      nextCursor: (p: SortPosition) => string,
    ) => {
      const where = ['m.org_id = ?'];
      const params: unknown[] = [orgId];
      if (f.status) {
        where.push('m.status = ?');
        params.push(f.status);
      }
      // A trigram index answers substrings of three characters or more: on SQLite the FTS5 table (its own query
      // syntax), on PostgreSQL pg_trgm's indexes, which read the same LIKE that shorter substrings scan with (kept
      // apart as `matches`, which the listing reads from those indexes when a short walk of its sort does not find a
      // page).
      const indexed = f.search !== undefined && [...f.search].length >= 3;
      let matches: ListSpec['matches'];
      if (f.search) {
        const like = `(${containsText('m.name')} OR ${containsText('m.email')})`;
        const patterns = [containsPattern(f.search), containsPattern(f.search)];
        if (dialect === 'sqlite' && indexed) {
          where.push('m.seq IN (SELECT rowid FROM org_users_search WHERE org_users_search MATCH ?)');
          params.push(`"${f.search.replaceAll('"', '""')}"`);
        } else if (dialect === 'postgres' && indexed) {
          matches = { sql: like, params: patterns, alias: 'm' };
        } else {
          where.push(like);
          params.push(...patterns);
        }
      }
      const spec: ListSpec = {
        from: 'FROM org_users m',
        matches,
        // Without a search the total is a count the database keeps; a search counts its matches.
        total: f.search ? undefined : () => memberCount(q, orgId, f.status),
        columns: COLUMNS,
        where,
        params,
        sort: SORTS[dialect][f.sort],
        order: f.order,
        id: { expr: 'm.user_id', key: 'user_id' },
      };
      const { rows, pagination } = await runList<Row>(q, spec, listing, nextCursor);
      return { data: rows.map(toUser), pagination };
    },
  };
}

/** A membership's entry in the search index: its row and the name and e-mail indexed for it. */
type SearchEntry = { seq: number; name: string | null; email: string };

/**
 * The deferrals under way (see `deferred`), by the transaction they run in: every store over that transaction (a
 * savepoint's context builds its own) shares its deferral. Each touched row → its entry as the index holds it (null:
 * not indexed).
 */
const deferrals = new WeakMap<Q, Map<number, SearchEntry | null>>();

/**
 * Upkeep of `org_users_search` (trigram FTS5 over name and e-mail, its content the `org_users` table): memberships
 * inserted or renamed are indexed here, removed ones by the table's delete trigger. Outside `deferred` each change is
 * indexed at once; inside it, the first state of each touched row is remembered and the index brought up to date at
 * the end — rows a savepoint rolled back in between are skipped, as they no longer exist. No member may be deleted
 * during a deferral (nor by a cascade). A row written to `org_users` other than through this store is not in the
 * index until `INSERT INTO org_users_search (org_users_search) VALUES ('rebuild')`.
 * On PostgreSQL the search indexes are the table's own (pg_trgm), kept by the database: nothing is written here, but
 * the rules of a deferral are the same on both, so that what runs on one runs on the other.
 */
function searchUpkeep(q: Q, dialect: Dialect) {
  const upkeep = dialect === 'sqlite';
  const insert = (seq: number, name: string | null, email: string) =>
    sql`INSERT INTO org_users_search (rowid, name, email) VALUES (${seq}, ${name}, ${email})`.execute(q);
  const remove = (entry: SearchEntry) =>
    sql`INSERT INTO org_users_search (org_users_search, rowid, name, email)
      VALUES ('delete', ${entry.seq}, ${entry.name}, ${entry.email})`.execute(q);
  const flush = async (touched: Map<number, SearchEntry | null>) => {
    if (touched.size === 0 || !upkeep) return;
    for (const entry of touched.values()) if (entry) await remove(entry);
    const seqs = JSON.stringify([...touched.keys()]);
    await sql`INSERT INTO org_users_search (rowid, name, email)
      SELECT seq, name, email FROM org_users WHERE seq IN (SELECT value FROM json_each(${seqs}))`.execute(q);
    touched.clear();
  };
  return {
    /** The member's entry as the index holds it (undefined where the database keeps the index itself). */
    entryOf: async (orgId: string, userId: string): Promise<SearchEntry | undefined> =>
      upkeep
        ? q
            .selectFrom('org_users')
            .select(['seq', 'name', 'email'])
            .where('org_id', '=', orgId)
            .where('user_id', '=', userId)
            .executeTakeFirst()
        : undefined,
    added: async (seq: number, name: string | null, email: string) => {
      if (!upkeep) return;
      const touched = deferrals.get(q);
      if (!touched) await insert(seq, name, email);
      // A row a rolled-back savepoint left may have had this number, never indexed.
      else if (!touched.has(seq)) touched.set(seq, null);
    },
    changed: async (before: SearchEntry, name: string | null) => {
      const touched = deferrals.get(q);
      if (touched) {
        if (!touched.has(before.seq)) touched.set(before.seq, before);
        return;
      }
      await remove(before);
      await insert(before.seq, name, before.email);
    },
    /**
     * A deletion's trigger must find the index as the table was, which a deferral does not promise (and a flush inside
     * an item's savepoint could be rolled back with the item): no member leaves during one.
     */
    refuseDeferred: (what: string) => {
      if (deferrals.has(q)) throw new Error(`cannot ${what} while the search index is deferred (deferSearch)`);
    },
    deferred: async <T>(fn: () => Promise<T>): Promise<T> => {
      if (!q.isTransaction || deferrals.has(q)) throw new Error('deferSearch runs inside a transaction, once');
      const touched = new Map<number, SearchEntry | null>();
      deferrals.set(q, touched);
      try {
        const result = await fn();
        await flush(touched);
        return result;
      } finally {
        deferrals.delete(q);
      }
    },
  };
}
