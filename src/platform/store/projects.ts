import type { ProjectRole } from '../../contract/permissions.js';
import type { Environment, Member, Project, ProjectSettings, ProjectStatus } from '../../contract/projects.js';
import type { Db } from './db.js';
import { type Listing, type ListSpec, newestFirst, runList, type SortPosition } from './paging.js';

type ProjectRow = {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string | null;
  status: ProjectStatus;
  settings: string;
  created_at: string;
  updated_at: string;
};

function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    organizationId: r.org_id,
    status: r.status,
    settings: JSON.parse(r.settings) as ProjectSettings,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

type MemberRow = {
  user_id: string;
  role: ProjectRole;
  created_at: string;
  name: string | null;
  email: string;
  avatar_url: string | null;
};

function toMember(r: MemberRow): Member {
  return {
    user: { id: r.user_id, name: r.name, email: r.email, avatarUrl: r.avatar_url },
    role: r.role,
    createdAt: r.created_at,
  };
}

type EnvironmentRow = {
  id: string;
  project_id: string;
  name: string;
  config: string;
  created_at: string;
  updated_at: string;
};

function toEnvironment(r: EnvironmentRow): Environment {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    config: JSON.parse(r.config) as Record<string, string>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The member's profile comes from their membership of the organization (name, e-mail, avatar). */
const MEMBER_FROM = 'FROM project_members pm JOIN org_users u ON u.org_id = pm.org_id AND u.user_id = pm.user_id';
const MEMBER_COLUMNS = 'pm.user_id, pm.role, pm.created_at, u.name, u.email, u.avatar_url';

/** Projects, members and environments: their SQL in one place. Deleting a project cascades to both. */
export function projectsStore(db: Db) {
  const get = db.prepare<[string, string], ProjectRow>('SELECT * FROM projects WHERE org_id = ? AND id = ?');
  const slugTaken = db.prepare<[string, string], { one: 1 }>(
    'SELECT 1 AS one FROM projects WHERE org_id = ? AND slug = ?',
  );
  const insert = db.prepare(
    `INSERT INTO projects (id, org_id, name, slug, description, status, settings, created_at, updated_at)
     VALUES (@id, @organizationId, @name, @slug, @description, @status, @settings, @createdAt, @updatedAt)`,
  );
  const update = db.prepare(
    `UPDATE projects SET name = @name, description = @description, status = @status, settings = @settings,
     updated_at = @updatedAt WHERE org_id = @organizationId AND id = @id`,
  );
  const remove = db.prepare('DELETE FROM projects WHERE org_id = ? AND id = ?');

  const memberRole = db.prepare<[string, string], { role: ProjectRole }>(
    'SELECT role FROM project_members WHERE project_id = ? AND user_id = ?',
  );
  const removeUser = db.prepare('DELETE FROM project_members WHERE org_id = ? AND user_id = ?');
  const getMember = db.prepare<[string, string], MemberRow>(
    `SELECT ${MEMBER_COLUMNS} ${MEMBER_FROM} WHERE pm.project_id = ? AND pm.user_id = ?`,
  );
  const insertMember = db.prepare(
    `INSERT INTO project_members (project_id, org_id, user_id, role, created_at)
     VALUES (@projectId, @orgId, @userId, @role, @createdAt)`,
  );
  const setMemberRole = db.prepare('UPDATE project_members SET role = ? WHERE project_id = ? AND user_id = ?');
  const removeMember = db.prepare('DELETE FROM project_members WHERE project_id = ? AND user_id = ?');

  const environments = db.prepare<[string], EnvironmentRow>(
    'SELECT * FROM environments WHERE project_id = ? ORDER BY created_at, rowid',
  );
  const getEnvironment = db.prepare<[string, string], EnvironmentRow>(
    'SELECT * FROM environments WHERE project_id = ? AND name = ?',
  );
  const insertEnvironment = db.prepare(
    `INSERT INTO environments (id, project_id, name, config, created_at, updated_at)
     VALUES (@id, @projectId, @name, @config, @createdAt, @updatedAt)`,
  );
  const updateEnvironment = db.prepare(
    'UPDATE environments SET config = @config, updated_at = @updatedAt WHERE project_id = @projectId AND id = @id',
  );
  const removeEnvironment = db.prepare('DELETE FROM environments WHERE project_id = ? AND id = ?');

  return {
    /** The project of `orgId`, or undefined. */
    get: (orgId: string, id: string) => {
      const r = get.get(orgId, id);
      return r && toProject(r);
    },
    slugTaken: (orgId: string, slug: string) => slugTaken.get(orgId, slug) !== undefined,
    insert: (p: Project) => void insert.run({ ...p, settings: JSON.stringify(p.settings) }),
    /** Writes name, description, status, settings and updatedAt back (the slug never changes). */
    update: (p: Project) => void update.run({ ...p, settings: JSON.stringify(p.settings) }),
    /** Deletes the project; its members and environments go with it (foreign keys cascade). */
    remove: (orgId: string, id: string) => remove.run(orgId, id).changes === 1,
    /**
     * Projects of the organization, newest first. `visible` limits them to a key's `projectIds` (null: no limit).
     * `search` is a case-insensitive substring of name or description; `slug` matches exactly.
     */
    list: (
      orgId: string,
      listing: Listing,
      f: { status?: ProjectStatus; search?: string; slug?: string },
      visible: readonly string[] | null,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (visible) {
        where.push('id IN (SELECT value FROM json_each(?))');
        params.push(JSON.stringify(visible));
      }
      if (f.status) {
        where.push('status = ?');
        params.push(f.status);
      }
      if (f.slug) {
        where.push('slug = ?');
        params.push(f.slug);
      }
      if (f.search) {
        where.push('(instr(casefold(name), ?) > 0 OR instr(casefold(description), ?) > 0)');
        params.push(f.search.toLowerCase(), f.search.toLowerCase());
      }
      const spec = newestFirst('projects', where, params);
      const { rows, pagination } = runList<ProjectRow>(db, spec, listing, next);
      return { data: rows.map(toProject), pagination };
    },

    /** Takes the user out of every project of the organization. */
    removeUser: (orgId: string, userId: string) => void removeUser.run(orgId, userId),
    /** The user's role in the project, or null when not a member. */
    memberRole: (projectId: string, userId: string) => memberRole.get(projectId, userId)?.role ?? null,
    getMember: (projectId: string, userId: string) => {
      const r = getMember.get(projectId, userId);
      return r && toMember(r);
    },
    insertMember: (m: { projectId: string; orgId: string; userId: string; role: ProjectRole; createdAt: string }) =>
      void insertMember.run(m),
    setMemberRole: (projectId: string, userId: string, role: ProjectRole) =>
      void setMemberRole.run(role, projectId, userId),
    removeMember: (projectId: string, userId: string) => removeMember.run(projectId, userId).changes === 1,
    /** Members of the project, newest first. */
    listMembers: (projectId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: MEMBER_FROM,
        columns: MEMBER_COLUMNS,
        where: ['pm.project_id = ?'],
        params: [projectId],
        sort: { expr: 'pm.created_at', key: 'created_at', nullable: false },
        order: 'desc',
        id: { expr: 'pm.user_id', key: 'user_id' },
      };
      const { rows, pagination } = runList<MemberRow>(db, spec, listing, next);
      return { data: rows.map(toMember), pagination };
    },

    /** The project's environments in the order they were created. */
    environments: (projectId: string) => environments.all(projectId).map(toEnvironment),
    getEnvironment: (projectId: string, name: string) => {
      const r = getEnvironment.get(projectId, name);
      return r && toEnvironment(r);
    },
    insertEnvironment: (e: Environment) => void insertEnvironment.run({ ...e, config: JSON.stringify(e.config) }),
    /** Writes the environment's config and updatedAt back. */
    updateEnvironment: (e: Environment) => void updateEnvironment.run({ ...e, config: JSON.stringify(e.config) }),
    removeEnvironment: (projectId: string, id: string) => void removeEnvironment.run(projectId, id),
  };
}
