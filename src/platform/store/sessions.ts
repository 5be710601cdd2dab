import type { Db } from './db.js';

/** Sign-in sessions, one per login, in the organization signed into. */
export const SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  client_id TEXT,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  last_active TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
CREATE INDEX sessions_user ON sessions (user_id, org_id);
`;

/** Sessions: their SQL in one place. */
export function sessionsStore(db: Db) {
  const revokeForUser = db.prepare(
    'UPDATE sessions SET revoked_at = ? WHERE org_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const removeForUser = db.prepare('DELETE FROM sessions WHERE org_id = ? AND user_id = ?');
  return {
    /** Revokes every active session of the user in the organization; returns how many. */
    revokeForUser: (orgId: string, userId: string, now: string) => revokeForUser.run(now, orgId, userId).changes,
    removeForUser: (orgId: string, userId: string) => void removeForUser.run(orgId, userId),
  };
}
