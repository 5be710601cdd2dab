import type { OrgRole } from '../../contract/permissions.js';
import type { Invitation } from '../../contract/users.js';
import { jsonArrayWithout, jsonStrings } from './dialects.js';
import { type Listing, newestFirst, runList, type SortPosition, withParams } from './paging.js';
import type { Q, StoreEnv } from './sql.js';

/** The stored states; `expired` is a pending invitation read at or after its `expires_at`. */
type StoredStatus = 'pending' | 'accepted' | 'revoked';

type Row = {
  id: string;
  org_id: string;
  user_id: string;
  email: string;
  name: string | null;
  role: OrgRole;
  teams: string;
  status: StoredStatus;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
};

function toInvitation(r: Row, now: string): Invitation {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    teams: JSON.parse(r.teams) as string[],
    status: r.status === 'pending' && r.expires_at <= now ? 'expired' : r.status,
    userId: r.user_id,
    organizationId: r.org_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

/** A new invitation as written: the record (status `pending`) plus the hash of its link token and who sent it. */
export type NewInvitation = Omit<Invitation, 'status'> & { tokenHash: string; invitedBy: string | null };

/**
 * Invitations: their SQL in one place. The link token is stored only as its SHA-256 hash. `status` holds
 * pending/accepted/revoked; `expired` is derived from `expires_at` when read, so reads take `now`.
 */
export function invitationsStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  /** The user's pending invitations to the organization. */
  const pendingOf = (orgId: string, userId: string) =>
    q
      .updateTable('invitations')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .where('status', '=', 'pending');

  return {
    /** The invitation of `orgId`, or undefined (another organization's is undefined too). */
    get: async (orgId: string, id: string, now: string): Promise<Invitation | undefined> => {
      const r = await q
        .selectFrom('invitations')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .$narrowType<{ role: OrgRole; status: StoredStatus }>()
        .executeTakeFirst();
      return r && toInvitation(r, now);
    },
    insert: async (i: NewInvitation): Promise<void> => {
      await q
        .insertInto('invitations')
        .values({
          id: i.id,
          org_id: i.organizationId,
          user_id: i.userId,
          email: i.email,
          name: i.name,
          role: i.role,
          teams: JSON.stringify(i.teams),
          status: 'pending',
          token_hash: i.tokenHash,
          invited_by: i.invitedBy,
          created_at: i.createdAt,
          expires_at: i.expiresAt,
        })
        .execute();
    },
    /**
     * For the acceptance page: the invitation whose link token hashes to `tokenHash` (SHA-256, hex; see
     * `hashInvitationToken`), only while it can still be accepted — pending, not expired, and its user still `pending`
     * in the organization (not suspended or removed meanwhile). Undefined otherwise: unknown, resent (the old link is
     * dead), expired, accepted or revoked all read the same.
     */
    findPendingByTokenHash: async (tokenHash: string, now: string): Promise<Invitation | undefined> => {
      const r = await q
        .selectFrom('invitations as i')
        .innerJoin('org_users as m', (join) =>
          join.onRef('m.org_id', '=', 'i.org_id').onRef('m.user_id', '=', 'i.user_id'),
        )
        .selectAll('i')
        .where('i.token_hash', '=', tokenHash)
        .where('i.status', '=', 'pending')
        .where('i.expires_at', '>', now)
        .where('m.status', '=', 'pending')
        .$narrowType<{ role: OrgRole; status: StoredStatus }>()
        .executeTakeFirst();
      return r && toInvitation(r, now);
    },
    /**
     * For the acceptance page: marks the invitation accepted, as one compare-and-set — true for exactly one caller,
     * and only while it is pending and unexpired. Call it in the transaction that activates the user; on false, roll
     * back and show the link as no longer valid.
     */
    markAccepted: async (id: string, now: string): Promise<boolean> => {
      const r = await q
        .updateTable('invitations')
        .set({ status: 'accepted', accepted_at: now })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Gives a pending (or expired) invitation a new link token and expiry; false when it is no longer pending. */
    renew: async (orgId: string, id: string, tokenHash: string, expiresAt: string): Promise<boolean> => {
      const r = await q
        .updateTable('invitations')
        .set({ token_hash: tokenHash, expires_at: expiresAt })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Revokes a pending (or expired) invitation; false when it was not pending. */
    revoke: async (orgId: string, id: string, now: string): Promise<boolean> => {
      const r = await q
        .updateTable('invitations')
        .set({ status: 'revoked', revoked_at: now })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Revokes the user's open invitations to the organization. */
    revokeForUser: async (orgId: string, userId: string, now: string): Promise<void> => {
      await pendingOf(orgId, userId).set({ status: 'revoked', revoked_at: now }).execute();
    },
    /** Marks the user's pending invitations accepted (a sign-in through the identity provider joined them). */
    acceptForUser: async (orgId: string, userId: string, now: string): Promise<number> => {
      const r = await pendingOf(orgId, userId).set({ status: 'accepted', accepted_at: now }).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Brings the user's pending invitation up to what they were changed to (name, role, teams), so it mails that. */
    reviseForUser: async (
      orgId: string,
      userId: string,
      r: { name: string | null; role: string; teams: string[] },
    ): Promise<void> => {
      await pendingOf(orgId, userId)
        .set({ name: r.name, role: r.role, teams: JSON.stringify(r.teams) })
        .execute();
    },
    /** Takes a deleted team out of the `teams` of every invitation of the organization. */
    dropTeam: async (orgId: string, teamId: string): Promise<void> => {
      await q
        .updateTable('invitations')
        .set({ teams: withParams<string>(jsonArrayWithout(dialect, 'invitations.teams'), [teamId]) })
        .where('org_id', '=', orgId)
        .where(
          withParams<boolean>(`EXISTS (SELECT 1 FROM ${jsonStrings(dialect, 'invitations.teams')} WHERE value = ?)`, [
            teamId,
          ]),
        )
        .execute();
    },
    /** Newest first; `status` filters on the derived status (`pending` excludes expired ones). */
    list: async (
      orgId: string,
      listing: Listing,
      f: { status?: Invitation['status'] },
      now: string,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (f.status === 'pending' || f.status === 'expired') {
        where.push(`status = 'pending' AND expires_at ${f.status === 'pending' ? '>' : '<='} ?`);
        params.push(now);
      } else if (f.status) {
        where.push('status = ?');
        params.push(f.status);
      }
      const spec = newestFirst('invitations', where, params);
      const { rows, pagination } = await runList<Row>(q, spec, listing, next);
      return { data: rows.map((r) => toInvitation(r, now)), pagination };
    },
  };
}
