import { sql } from 'kysely';
import type { ProjectRole } from '../../contract/permissions.js';
import type { Environment, Member, Project, ProjectSettings, ProjectStatus } from '../../contract/projects.js';
import { containsPattern, containsText, jsonStrings } from './dialects.js';
import { type Listing, type ListSpec, newestFirst, runList, type SortPosition } from './paging.js';
import type { Q, StoreEnv } from './sql.js';

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
export function projectsStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  /** Members with their profile: `MEMBER_FROM` and `MEMBER_COLUMNS` through the query builder. */
  const members = () =>
    q
      .selectFrom('project_members as pm')
      .innerJoin('org_users as u', (join) =>
        join.onRef('u.org_id', '=', 'pm.org_id').onRef('u.user_id', '=', 'pm.user_id'),
      )
      .select(['pm.user_id', 'pm.role', 'pm.created_at', 'u.name', 'u.email', 'u.avatar_url'])
      .$castTo<MemberRow>();

  return {
    /** The project of `orgId`, or undefined. */
    get: async (orgId: string, id: string) => {
      const r = await q
        .selectFrom('projects')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .$castTo<ProjectRow>()
        .executeTakeFirst();
      return r && toProject(r);
    },
    slugTaken: async (orgId: string, slug: string) => {
      const r = await q
        .selectFrom('projects')
        .select('id')
        .where('org_id', '=', orgId)
        .where('slug', '=', slug)
        .executeTakeFirst();
      return r !== undefined;
    },
    insert: async (p: Project): Promise<void> => {
      await q
        .insertInto('projects')
        .values({
          id: p.id,
          org_id: p.organizationId,
          name: p.name,
          slug: p.slug,
          description: p.description,
          status: p.status,
          settings: JSON.stringify(p.settings),
          created_at: p.createdAt,
          updated_at: p.updatedAt,
        })
        .execute();
    },
    /** Writes name, description, status, settings and updatedAt back (the slug never changes). */
    update: async (p: Project): Promise<void> => {
      await q
        .updateTable('projects')
        .set({
          name: p.name,
          description: p.description,
          status: p.status,
          settings: JSON.stringify(p.settings),
          updated_at: p.updatedAt,
        })
        .where('org_id', '=', p.organizationId)
        .where('id', '=', p.id)
        .execute();
    },
    /** Deletes the project; its members and environments go with it (foreign keys cascade). */
    remove: async (orgId: string, id: string) => {
      const r = await q.deleteFrom('projects').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
    /**
     * Projects of the organization, newest first. `visible` limits them to a key's `projectIds` (null: no limit).
     * `search` is a case-insensitive substring of name or description; `slug` matches exactly.
     */
    list: async (
      orgId: string,
      listing: Listing,
      f: { status?: ProjectStatus; search?: string; slug?: string },
      visible: readonly string[] | null,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (visible) {
        where.push(`id IN (SELECT value FROM ${jsonStrings(dialect, '?')})`);
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
        where.push(`(${containsText('name')} OR ${containsText('description')})`);
        params.push(containsPattern(f.search), containsPattern(f.search));
      }
      const spec = newestFirst('projects', where, params);
      const { rows, pagination } = await runList<ProjectRow>(q, spec, listing, next);
      return { data: rows.map(toProject), pagination };
    },

    /** Takes the user out of every project of the organization. */
    removeUser: async (orgId: string, userId: string): Promise<void> => {
      await q.deleteFrom('project_members').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },
    /** The user's role in the project, or null when not a member. */
    memberRole: async (projectId: string, userId: string) => {
      const r = await q
        .selectFrom('project_members')
        .select('role')
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .$castTo<{ role: ProjectRole }>()
        .executeTakeFirst();
      return r?.role ?? null;
    },
    getMember: async (projectId: string, userId: string) => {
      const r = await members()
        .where('pm.project_id', '=', projectId)
        .where('pm.user_id', '=', userId)
        .executeTakeFirst();
      return r && toMember(r);
    },
    insertMember: async (m: {
      projectId: string;
      orgId: string;
      userId: string;
      role: ProjectRole;
      createdAt: string;
    }): Promise<void> => {
      await q
        .insertInto('project_members')
        .values({ project_id: m.projectId, org_id: m.orgId, user_id: m.userId, role: m.role, created_at: m.createdAt })
        .execute();
    },
    setMemberRole: async (projectId: string, userId: string, role: ProjectRole): Promise<void> => {
      await q
        .updateTable('project_members')
        .set({ role })
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .execute();
    },
    removeMember: async (projectId: string, userId: string) => {
      const r = await q
        .deleteFrom('project_members')
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
    /** Members of the project, newest first. */
    listMembers: async (projectId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: MEMBER_FROM,
        columns: MEMBER_COLUMNS,
        where: ['pm.project_id = ?'],
        params: [projectId],
        sort: { expr: 'pm.created_at', key: 'created_at', nullable: false },
        order: 'desc',
        id: { expr: 'pm.user_id', key: 'user_id' },
      };
      const { rows, pagination } = await runList<MemberRow>(q, spec, listing, next);
      return { data: rows.map(toMember), pagination };
    },

    /** The project's environments in the order they were created. */
    environments: async (projectId: string) => {
      const rows = await q
        .selectFrom('environments')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at')
        // The insertion order of equal timestamps: SQLite's `rowid`, a column of PostgreSQL's table under that name.
        .orderBy(sql`rowid`)
        .execute();
      return rows.map(toEnvironment);
    },
    getEnvironment: async (projectId: string, name: string) => {
      const r = await q
        .selectFrom('environments')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .executeTakeFirst();
      return r && toEnvironment(r);
    },
    insertEnvironment: async (e: Environment): Promise<void> => {
      await q
        .insertInto('environments')
        .values({
          id: e.id,
          project_id: e.projectId,
          name: e.name,
          config: JSON.stringify(e.config),
          created_at: e.createdAt,
          updated_at: e.updatedAt,
        })
        .execute();
    },
    /** Writes the environment's config and updatedAt back. */
    updateEnvironment: async (e: Environment): Promise<void> => {
      await q
        .updateTable('environments')
        .set({ config: JSON.stringify(e.config), updated_at: e.updatedAt })
        .where('project_id', '=', e.projectId)
        .where('id', '=', e.id)
        .execute();
    },
    removeEnvironment: async (projectId: string, id: string): Promise<void> => {
      await q.deleteFrom('environments').where('project_id', '=', projectId).where('id', '=', id).execute();
    },
  };
}
