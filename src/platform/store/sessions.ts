import type { SignInMethod } from '../../contract/sessions.js';
import type { Db } from './db.js';

/**
 * A membership's session cutoff: sessions of the user's other organizations created at or before `cutAt` may no
 * longer act in this one (their own organization's revocation cannot reach them), except `keptSessionId`.
 */
export interface SessionCutoff {
  cutAt: string;
  keptSessionId: string | null;
}

/** A session as stored. Active while `revokedAt` is null and `expiresAt` is null or in the future. */
export interface StoredSession {
  id: string;
  userId: string;
  organizationId: string;
  /** The OAuth client that signed in (`plat-cli`), null for a browser login. */
  clientId: string | null;
  /** How it was signed in. */
  method: SignInMethod;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  lastActive: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** What sign-in passes to `insert`; `lastActive` defaults to `createdAt`. */
export type NewSession = Omit<StoredSession, 'lastActive' | 'revokedAt'> & { lastActive?: string };

type Row = {
  id: string;
  user_id: string;
  org_id: string;
  client_id: string | null;
  method: SignInMethod;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  last_active: string;
  expires_at: string | null;
  revoked_at: string | null;
};

function toSession(r: Row): StoredSession {
  return {
    id: r.id,
    userId: r.user_id,
    organizationId: r.org_id,
    clientId: r.client_id,
    method: r.method,
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    lastActive: r.last_active,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

/** Whether a session may still be used at `now` (an ISO timestamp). */
export function isActive(s: StoredSession, now: string): boolean {
  return s.revokedAt === null && (s.expiresAt === null || s.expiresAt > now);
}

/** The SQL form of `isActive`, with `now` as its one parameter. */
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)';

/** Sign-in sessions, one per login, in the organization signed into: their SQL in one place. */
export function sessionsStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO sessions (id, user_id, org_id, client_id, method, ip_address, user_agent, created_at, last_active,
       expires_at)
     VALUES (@id, @userId, @organizationId, @clientId, @method, @ipAddress, @userAgent, @createdAt, @lastActive,
       @expiresAt)`,
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM sessions WHERE id = ?');
  const get = db.prepare<[string, string, string], Row>(
    'SELECT * FROM sessions WHERE org_id = ? AND user_id = ? AND id = ?',
  );
  const listActive = db.prepare<[string, string, string], Row>(
    `SELECT * FROM sessions WHERE org_id = ? AND user_id = ? AND ${ACTIVE} ORDER BY created_at DESC, id DESC`,
  );
  const touch = db.prepare('UPDATE sessions SET last_active = ? WHERE id = ? AND last_active < ?');
  const revoke = db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const revokeActive = db.prepare(
    `UPDATE sessions SET revoked_at = @now WHERE org_id = @orgId AND user_id = @userId AND id IS NOT @keep
       AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @now)`,
  );
  const revokeForUser = db.prepare(
    'UPDATE sessions SET revoked_at = ? WHERE org_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const removeForUser = db.prepare('DELETE FROM sessions WHERE org_id = ? AND user_id = ?');
  const cutoff = db.prepare<[string, string], { cut_at: string; kept_session_id: string | null }>(
    'SELECT cut_at, kept_session_id FROM session_cutoffs WHERE org_id = ? AND user_id = ?',
  );
  const cutOff = db.prepare(
    `INSERT INTO session_cutoffs (org_id, user_id, cut_at, kept_session_id) VALUES (@orgId, @userId, @now, @keep)
     ON CONFLICT (org_id, user_id) DO UPDATE SET cut_at = excluded.cut_at, kept_session_id = excluded.kept_session_id`,
  );
  return {
    /** Records a new sign-in (sign-in calls this inside its own transaction). */
    insert: (s: NewSession) => void insert.run({ ...s, lastActive: s.lastActive ?? s.createdAt }),
    /** Any session by id, whatever its organization or state (for access-token and refresh checks). */
    byId: (id: string) => {
      const r = byId.get(id);
      return r && toSession(r);
    },
    /** A session of this user in this organization, in any state. */
    get: (orgId: string, userId: string, id: string) => {
      const r = get.get(orgId, userId, id);
      return r && toSession(r);
    },
    /** The user's active sessions in the organization, newest first. */
    listActive: (orgId: string, userId: string, now: string) => listActive.all(orgId, userId, now).map(toSession),
    /** Moves `lastActive` forward to `now` (never back). */
    touch: (id: string, now: string) => void touch.run(now, id, now),
    /** Marks one session revoked; false when it already was. */
    revoke: (id: string, now: string) => revoke.run(now, id).changes === 1,
    /** Revokes the user's active sessions in the organization except `keepId`; returns how many. */
    revokeActive: (orgId: string, userId: string, now: string, keepId: string | null = null) =>
      revokeActive.run({ orgId, userId, now, keep: keepId }).changes,
    /** Revokes every session of the user in the organization not yet revoked (expired ones too); returns how many. */
    revokeForUser: (orgId: string, userId: string, now: string) => revokeForUser.run(now, orgId, userId).changes,
    removeForUser: (orgId: string, userId: string) => void removeForUser.run(orgId, userId),
    /** The membership's session cutoff, if its sessions were ever revoked all at once. */
    cutoff: (orgId: string, userId: string): SessionCutoff | undefined => {
      const r = cutoff.get(orgId, userId);
      return r && { cutAt: r.cut_at, keptSessionId: r.kept_session_id };
    },
    /**
     * Stops every session of the user's other organizations created until `now` from acting in this one, except
     * `keepId` (replacing any earlier cutoff). The membership must exist.
     */
    cutOff: (orgId: string, userId: string, now: string, keepId: string | null = null) =>
      void cutOff.run({ orgId, userId, now, keep: keepId }),
  };
}
