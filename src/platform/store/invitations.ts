import type { OrgRole } from '../../contract/permissions.js';
import type { Invitation } from '../../contract/users.js';
import type { Db } from './db.js';
import { type Listing, newestFirst, runList, type SortPosition } from './paging.js';

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
export function invitationsStore(db: Db) {
  const get = db.prepare<[string, string], Row>('SELECT * FROM invitations WHERE org_id = ? AND id = ?');
  const insert = db.prepare(
    `INSERT INTO invitations (id, org_id, user_id, email, name, role, teams, status, token_hash, invited_by, created_at,
       expires_at)
     VALUES (@id, @organizationId, @userId, @email, @name, @role, @teams, 'pending', @tokenHash, @invitedBy, @createdAt,
       @expiresAt)`,
  );
  const pendingByHash = db.prepare<{ hash: string; now: string }, Row>(
    `SELECT i.* FROM invitations i JOIN org_users m ON m.org_id = i.org_id AND m.user_id = i.user_id
     WHERE i.token_hash = @hash AND i.status = 'pending' AND i.expires_at > @now AND m.status = 'pending'`,
  );
  const accept = db.prepare(
    `UPDATE invitations SET status = 'accepted', accepted_at = @now
     WHERE id = @id AND status = 'pending' AND expires_at > @now`,
  );
  const renew = db.prepare(
    `UPDATE invitations SET token_hash = @tokenHash, expires_at = @expiresAt
     WHERE org_id = @orgId AND id = @id AND status = 'pending'`,
  );
  const revoke = db.prepare(
    "UPDATE invitations SET status = 'revoked', revoked_at = ? WHERE org_id = ? AND id = ? AND status = 'pending'",
  );
  const revokeForUser = db.prepare(
    "UPDATE invitations SET status = 'revoked', revoked_at = ? WHERE org_id = ? AND user_id = ? AND status = 'pending'",
  );
  const acceptForUser = db.prepare(
    "UPDATE invitations SET status = 'accepted', accepted_at = ? WHERE org_id = ? AND user_id = ? AND status = 'pending'",
  );
  const reviseForUser = db.prepare(
    `UPDATE invitations SET name = @name, role = @role, teams = @teams
     WHERE org_id = @orgId AND user_id = @userId AND status = 'pending'`,
  );
  const dropTeam = db.prepare(
    `UPDATE invitations SET teams = (SELECT json_group_array(value) FROM json_each(invitations.teams) WHERE value != @teamId)
     WHERE org_id = @orgId AND EXISTS (SELECT 1 FROM json_each(invitations.teams) WHERE value = @teamId)`,
  );

  return {
    /** The invitation of `orgId`, or undefined (another organization's is undefined too). */
    get: (orgId: string, id: string, now: string) => {
      const r = get.get(orgId, id);
      return r && toInvitation(r, now);
    },
    insert: (i: NewInvitation) => void insert.run({ ...i, teams: JSON.stringify(i.teams) }),
    /**
     * For the acceptance page: the invitation whose link token hashes to `tokenHash` (SHA-256, hex; see
     * `hashInvitationToken`), only while it can still be accepted — pending, not expired, and its user still `pending`
     * in the organization (not suspended or removed meanwhile). Undefined otherwise: unknown, resent (the old link is
     * dead), expired, accepted or revoked all read the same.
     */
    findPendingByTokenHash: (tokenHash: string, now: string): Invitation | undefined => {
      const r = pendingByHash.get({ hash: tokenHash, now });
      return r && toInvitation(r, now);
    },
    /**
     * For the acceptance page: marks the invitation accepted, as one compare-and-set — true for exactly one caller,
     * and only while it is pending and unexpired. Call it in the transaction that activates the user; on false, roll
     * back and show the link as no longer valid.
     */
    markAccepted: (id: string, now: string) => accept.run({ id, now }).changes === 1,
    /** Gives a pending (or expired) invitation a new link token and expiry; false when it is no longer pending. */
    renew: (orgId: string, id: string, tokenHash: string, expiresAt: string) =>
      renew.run({ orgId, id, tokenHash, expiresAt }).changes === 1,
    /** Revokes a pending (or expired) invitation; false when it was not pending. */
    revoke: (orgId: string, id: string, now: string) => revoke.run(now, orgId, id).changes === 1,
    /** Revokes the user's open invitations to the organization. */
    revokeForUser: (orgId: string, userId: string, now: string) => void revokeForUser.run(now, orgId, userId),
    /** Marks the user's pending invitations accepted (a sign-in through the identity provider joined them). */
    acceptForUser: (orgId: string, userId: string, now: string) => acceptForUser.run(now, orgId, userId).changes,
    /** Takes a deleted team out of the `teams` of every invitation of the organization. */
    /** Brings the user's pending invitation up to what they were changed to (name, role, teams), so it mails that. */
    reviseForUser: (orgId: string, userId: string, r: { name: string | null; role: string; teams: string[] }) =>
      void reviseForUser.run({ orgId, userId, ...r, teams: JSON.stringify(r.teams) }),
    dropTeam: (orgId: string, teamId: string) => void dropTeam.run({ orgId, teamId }),
    /** Newest first; `status` filters on the derived status (`pending` excludes expired ones). */
    list: (
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
      const { rows, pagination } = runList<Row>(db, spec, listing, next);
      return { data: rows.map((r) => toInvitation(r, now)), pagination };
    },
  };
}
