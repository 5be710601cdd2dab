import type { Db } from './db.js';

export const SCHEMA = `
CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX teams_name ON teams (org_id, name COLLATE NOCASE);
CREATE INDEX teams_created ON teams (org_id, created_at, id);
CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (org_id, user_id);
`;

/** Teams and their members: their SQL in one place. */
export function teamsStore(db: Db) {
  const removeUser = db.prepare('DELETE FROM team_members WHERE org_id = ? AND user_id = ?');
  return {
    /** Takes the user out of every team of the organization. */
    removeUser: (orgId: string, userId: string) => void removeUser.run(orgId, userId),
  };
}
