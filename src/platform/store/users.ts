import type { OrgRole } from '../../contract/permissions.js';
import type { User, UserSort, UserStatus } from '../../contract/users.js';
import type { Db } from './db.js';
import { type Listing, type ListSpec, runList, type SortPosition } from './paging.js';

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

const COLUMNS = 'm.*, a.email_verified';
const FROM = 'FROM org_users m JOIN accounts a ON a.id = m.user_id';

const SORT_EXPR: Record<UserSort, ListSpec['sort']> = {
  created_at: { expr: 'm.created_at', key: 'created_at', nullable: false },
  name: { expr: 'm.name COLLATE NOCASE', key: 'name', nullable: true },
  email: { expr: 'm.email COLLATE NOCASE', key: 'email', nullable: false },
  last_login_at: { expr: 'm.last_login_at', key: 'last_login_at', nullable: true },
};

/** An account as stored (for sign-in and invitations). */
export type Account = { id: string; email: string; emailVerified: boolean; passwordHash: string | null };

/**
 * Users and their memberships: their SQL in one place. A user is an account (e-mail, password, verification) plus one
 * membership per organization. The membership holds everything an organization may change (name, avatar, role, status,
 * metadata), so no organization can write what another sees. The account's e-mail is copied into the membership (it
 * never changes) for sorting and search.
 */
export function usersStore(db: Db) {
  const get = db.prepare<[string, string], Row>(`SELECT ${COLUMNS} ${FROM} WHERE m.org_id = ? AND m.user_id = ?`);
  const standing = db.prepare<[string, string], Pick<User, 'role' | 'status'>>(
    'SELECT role, status FROM org_users WHERE org_id = ? AND user_id = ?',
  );
  const accountByEmail = db.prepare<
    [string],
    { id: string; email: string; email_verified: number; password_hash: string | null }
  >('SELECT id, email, email_verified, password_hash FROM accounts WHERE email = ?');
  const accountById = db.prepare<
    [string],
    { id: string; email: string; email_verified: number; password_hash: string | null }
  >('SELECT id, email, email_verified, password_hash FROM accounts WHERE id = ?');
  const insertAccount = db.prepare(
    'INSERT INTO accounts (id, email, email_verified, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertMember = db.prepare(
    `INSERT INTO org_users (org_id, user_id, email, name, role, status, metadata, joined_at, created_at, updated_at)
     VALUES (@orgId, @userId, @email, @name, @role, @status, @metadata, CASE WHEN @status = 'active' THEN @now END,
       @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE org_users SET name = @name, avatar_url = @avatarUrl, role = @role, status = @status, metadata = @metadata,
     joined_at = CASE WHEN @status = 'active' THEN coalesce(joined_at, @updatedAt) ELSE joined_at END,
     updated_at = @updatedAt WHERE org_id = @orgId AND user_id = @id`,
  );
  const activeOwners = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM org_users WHERE org_id = ? AND role = 'owner' AND status = 'active'",
  );
  const removeMember = db.prepare('DELETE FROM org_users WHERE org_id = ? AND user_id = ?');
  const search = searchUpkeep(db);
  const membershipCount = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM org_users WHERE user_id = ?');
  const removeAccount = db.prepare('DELETE FROM accounts WHERE id = ?');
  const joined = db.prepare<[string, string], { joined_at: string | null }>(
    'SELECT joined_at FROM org_users WHERE org_id = ? AND user_id = ?',
  );
  const setPassword = db.prepare('UPDATE accounts SET password_hash = ?, updated_at = ? WHERE id = ?');
  const verifyEmail = db.prepare('UPDATE accounts SET email_verified = 1, updated_at = ? WHERE id = ?');
  const recordLogin = db.prepare('UPDATE org_users SET last_login_at = ? WHERE org_id = ? AND user_id = ?');
  const toAccount = (r: {
    id: string;
    email: string;
    email_verified: number;
    password_hash: string | null;
  }): Account => ({
    id: r.id,
    email: r.email,
    emailVerified: r.email_verified === 1,
    passwordHash: r.password_hash,
  });

  return {
    /** The user as a member of `orgId`, or undefined when not a member there. */
    get: (orgId: string, userId: string) => {
      const r = get.get(orgId, userId);
      return r && toUser(r);
    },
    /** A member's role and status in `orgId` alone (what every request asks of its caller), or undefined. */
    standing: (orgId: string, userId: string) => standing.get(orgId, userId),
    accountByEmail: (email: string) => {
      const r = accountByEmail.get(email);
      return r && toAccount(r);
    },
    accountById: (id: string) => {
      const r = accountById.get(id);
      return r && toAccount(r);
    },
    insertAccount: (id: string, email: string, emailVerified: boolean, now: string) =>
      void insertAccount.run(id, email, emailVerified ? 1 : 0, now, now),
    insertMembership: (m: {
      orgId: string;
      userId: string;
      email: string;
      name: string | null;
      role: OrgRole;
      status: UserStatus;
      metadata?: Record<string, string | number | boolean>;
      now: string;
    }) => {
      const { lastInsertRowid } = insertMember.run({ ...m, metadata: JSON.stringify(m.metadata ?? {}) });
      search.added(Number(lastInsertRowid), m.name, m.email);
    },
    /** Writes the organization-owned fields of a user back. */
    update: (orgId: string, u: User) => {
      const before = search.entryOf(orgId, u.id);
      update.run({ ...u, orgId, metadata: JSON.stringify(u.metadata) });
      if (before && before.name !== u.name) search.changed(before, u.name);
    },
    /**
     * Runs `fn` (in the caller's transaction) with the search index brought up to date once, at its end, instead of
     * at each membership written: FTS5 writes what it holds to disk at every savepoint, so a batch that keeps one per
     * item would otherwise write the index a thousand times.
     */
    deferSearch: <T>(fn: () => T): T => search.deferred(fn),
    activeOwnerCount: (orgId: string) => activeOwners.get(orgId)?.n ?? 0,
    /** Whether the user ever became an active member of the organization (accepted, or added active). */
    hasJoined: (orgId: string, userId: string) => Boolean(joined.get(orgId, userId)?.joined_at),
    /** How many organizations the account is a member of, pending memberships included. */
    membershipCount: (userId: string) => membershipCount.get(userId)?.n ?? 0,
    /** Sign-in: stores the account's password hash (PHC string, see auth/passwords.ts). */
    setPassword: (userId: string, hash: string, now: string) => void setPassword.run(hash, now, userId),
    /** Sign-in: the account proved it reads its e-mail (an invitation link was followed). */
    markEmailVerified: (userId: string, now: string) => void verifyEmail.run(now, userId),
    /** Sign-in: the membership's `lastLoginAt`. */
    recordLogin: (orgId: string, userId: string, now: string) => void recordLogin.run(now, orgId, userId),
    /** Removes the membership, and the account when it belonged to no other organization. */
    remove: (orgId: string, userId: string) => {
      // A trigger takes the membership out of the search index (as it does for rows an organization's deletion takes).
      search.refuseDeferred('remove a member');
      removeMember.run(orgId, userId);
      if ((membershipCount.get(userId)?.n ?? 0) === 0) removeAccount.run(userId);
    },
    list: (
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
      if (f.search) {
        // A trigram index answers substrings of three characters or more; shorter ones scan, case-folded.
        if ([...f.search].length >= 3) {
          where.push('m.seq IN (SELECT rowid FROM org_users_search WHERE org_users_search MATCH ?)');
          params.push(`"${f.search.replaceAll('"', '""')}"`);
        } else {
          where.push('(instr(casefold(m.name), ?) > 0 OR instr(casefold(m.email), ?) > 0)');
          params.push(f.search.toLowerCase(), f.search.toLowerCase());
        }
      }
      const spec: ListSpec = {
        from: FROM,
        countFrom: 'FROM org_users m',
        columns: COLUMNS,
        where,
        params,
        sort: SORT_EXPR[f.sort],
        order: f.order,
        id: { expr: 'm.user_id', key: 'user_id' },
      };
      const { rows, pagination } = runList<Row>(db, spec, listing, nextCursor);
      return { data: rows.map(toUser), pagination };
    },
  };
}

/** A membership's entry in the search index: its row and the name and e-mail indexed for it. */
type SearchEntry = { seq: number; name: string | null; email: string };

/**
 * Upkeep of `org_users_search` (trigram FTS5 over name and e-mail, its content the `org_users` table): memberships
 * inserted or renamed are indexed here, removed ones by the table's delete trigger. Outside `deferred` each change is
 * indexed at once; inside it, the first state of each touched row is remembered and the index brought up to date at
 * the end — rows a savepoint rolled back in between are skipped, as they no longer exist. No member may be deleted
 * during a deferral (nor by a cascade). A row written to `org_users` other than through this store is not in the
 * index until `INSERT INTO org_users_search (org_users_search) VALUES ('rebuild')`.
 */
function searchUpkeep(db: Db) {
  const insert = db.prepare('INSERT INTO org_users_search (rowid, name, email) VALUES (?, ?, ?)');
  const remove = db.prepare(
    "INSERT INTO org_users_search (org_users_search, rowid, name, email) VALUES ('delete', ?, ?, ?)",
  );
  const entryOf = db.prepare<[string, string], SearchEntry>(
    'SELECT seq, name, email FROM org_users WHERE org_id = ? AND user_id = ?',
  );
  const insertRows = db.prepare(
    'INSERT INTO org_users_search (rowid, name, email) SELECT seq, name, email FROM org_users WHERE seq IN (SELECT value FROM json_each(?))',
  );
  /** While deferred: each touched row → its entry as the index holds it (null: not indexed). */
  let touched: Map<number, SearchEntry | null> | undefined;

  const flush = () => {
    if (!touched || touched.size === 0) return;
    for (const entry of touched.values()) if (entry) remove.run(entry.seq, entry.name, entry.email);
    insertRows.run(JSON.stringify([...touched.keys()]));
    touched.clear();
  };
  return {
    entryOf: (orgId: string, userId: string) => entryOf.get(orgId, userId),
    added: (seq: number, name: string | null, email: string) => {
      if (!touched) insert.run(seq, name, email);
      // A row a rolled-back savepoint left may have had this number, never indexed.
      else if (!touched.has(seq)) touched.set(seq, null);
    },
    changed: (before: SearchEntry, name: string | null) => {
      if (touched) {
        if (!touched.has(before.seq)) touched.set(before.seq, before);
        return;
      }
      remove.run(before.seq, before.name, before.email);
      insert.run(before.seq, name, before.email);
    },
    /**
     * A deletion's trigger must find the index as the table was, which a deferral does not promise (and a flush inside
     * an item's savepoint could be rolled back with the item): no member leaves during one.
     */
    refuseDeferred: (what: string) => {
      if (touched) throw new Error(`cannot ${what} while the search index is deferred (deferSearch)`);
    },
    deferred: <T>(fn: () => T): T => {
      if (!db.inTransaction || touched) throw new Error('deferSearch runs inside a transaction, once');
      touched = new Map();
      try {
        const result = fn();
        flush();
        return result;
      } finally {
        touched = undefined;
      }
    },
  };
}
