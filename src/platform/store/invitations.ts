import type { Db } from './db.js';

/**
 * Invitations, and the outbox every e-mail goes through. The invitation's link token is stored only as a hash.
 * `status` holds pending/accepted/revoked; `expired` is derived from `expires_at` when read.
 */
export const SCHEMA = `
CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  email TEXT NOT NULL,
  name TEXT,
  role TEXT NOT NULL,
  teams TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT
);
CREATE INDEX invitations_org ON invitations (org_id, created_at, id);
CREATE INDEX invitations_user ON invitations (org_id, user_id);
CREATE TABLE outbox (
  id TEXT PRIMARY KEY,
  org_id TEXT,
  to_addr TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  links TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  sent_at TEXT
);
CREATE INDEX outbox_created ON outbox (created_at, id);
`;

/** Invitations and the outbox: their SQL in one place. */
export function invitationsStore(db: Db) {
  const revokeForUser = db.prepare(
    "UPDATE invitations SET status = 'revoked', revoked_at = ? WHERE org_id = ? AND user_id = ? AND status = 'pending'",
  );
  return {
    /** Revokes the user's open invitations to the organization. */
    revokeForUser: (orgId: string, userId: string, now: string) => void revokeForUser.run(now, orgId, userId),
  };
}
