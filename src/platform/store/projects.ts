import type { ProjectRole } from '../../contract/permissions.js';
import type { Db } from './db.js';

/** Projects, their members and their environments. Deleting a project cascades to both. */
export const SCHEMA = `
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  settings TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, slug)
);
CREATE INDEX projects_created ON projects (org_id, created_at, id);
CREATE TABLE project_members (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members (org_id, user_id);
CREATE INDEX project_members_created ON project_members (project_id, created_at, user_id);
CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, name)
);
`;

/** Projects, members and environments: their SQL in one place. */
export function projectsStore(db: Db) {
  const memberRole = db.prepare<[string, string], { role: ProjectRole }>(
    'SELECT role FROM project_members WHERE project_id = ? AND user_id = ?',
  );
  const removeUser = db.prepare('DELETE FROM project_members WHERE org_id = ? AND user_id = ?');
  return {
    /** Takes the user out of every project of the organization. */
    removeUser: (orgId: string, userId: string) => void removeUser.run(orgId, userId),
    /** The user's role in the project, or null when not a member. */
    memberRole: (projectId: string, userId: string) => memberRole.get(projectId, userId)?.role ?? null,
  };
}
