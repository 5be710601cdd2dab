import type { List } from '../../contract/common.js';
import {
  DEFAULT_ENVIRONMENTS,
  DEFAULT_PROJECT_SETTINGS,
  type Project,
  type ProjectCreate,
  type ProjectListQuery,
  type ProjectPatch,
  type ProjectSettings,
  type ProjectStatus,
} from '../../contract/projects.js';
import type { Ctx } from '../context.js';
import { conflict, forbidden, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { canSeeProject } from './access.js';
import { uniqueSlug } from './slug.js';

/** `GET /organizations/{orgId}/projects`: newest first; `status`, `search`, `slug`; only the key's projects. */
export async function listProjects(ctx: Ctx, orgId: string, q: ProjectListQuery): Promise<List<Project>> {
  const scope = `projects:${orgId}`;
  const listing = resolveListing(ctx.cursors, scope, q, { status: q.status, search: q.search, slug: q.slug }, {});
  const f = listing.filters as { status?: ProjectStatus; search?: string; slug?: string };
  return ctx.stores.projects.list(orgId, listing, f, ctx.principal.projectIds, (pos) =>
    ctx.cursors.encode(scope, listing.filters, pos),
  );
}

/** A project of the acting organization that the credential may see, or `404`. */
export async function loadProject(ctx: Ctx, projectId: string): Promise<Project> {
  const project = await ctx.stores.projects.get(ctx.principal.orgId, projectId);
  if (!project || !canSeeProject(ctx.principal, projectId)) throw notFound('project');
  return project;
}

/** Throws `409` unless the project is `active`: archived and suspended projects are read-only. */
export function requireWritable(project: Project): void {
  if (project.status !== 'active') {
    throw conflict(`the project is ${project.status}; ${project.status} projects are read-only`);
  }
}

export async function getProject(ctx: Ctx, projectId: string): Promise<Project> {
  return loadProject(ctx, projectId);
}

function mergeSettings(settings: ProjectSettings, patch: Partial<ProjectSettings> | undefined): ProjectSettings {
  const next = { ...settings };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  return next;
}

function checkDefaultEnvironment(settings: ProjectSettings, environments: readonly string[]): void {
  if (!environments.includes(settings.defaultEnvironment)) {
    throw invalidField(
      'settings.defaultEnvironment',
      `must name an environment of the project (${environments.join(', ')})`,
    );
  }
}

/**
 * Creates a project with a unique slug and the environments development, staging and production, atomically. (A key
 * restricted to some projects never gets here: creating a project is a change of the organization, see http/permit.ts.)
 */
export async function createProject(ctx: Ctx, orgId: string, input: ProjectCreate): Promise<Project> {
  const settings = mergeSettings(DEFAULT_PROJECT_SETTINGS, input.settings);
  checkDefaultEnvironment(settings, DEFAULT_ENVIRONMENTS);
  return ctx.tx(async (ctx) => {
    const now = ctx.now();
    const project: Project = {
      id: ctx.ids('project'),
      name: input.name,
      slug: await uniqueSlug(input.name, 'project', (s) => ctx.stores.projects.slugTaken(orgId, s)),
      description: input.description ?? null,
      organizationId: orgId,
      status: 'active',
      settings,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.stores.projects.insert(project);
    for (const name of DEFAULT_ENVIRONMENTS) {
      await ctx.stores.projects.insertEnvironment({
        id: ctx.ids('environment'),
        projectId: project.id,
        name,
        config: {},
        createdAt: now,
        updatedAt: now,
      });
    }
    await ctx.emit(
      'project.created',
      { type: 'project', id: project.id },
      { name: project.name, slug: project.slug, environments: [...DEFAULT_ENVIRONMENTS] },
    );
    return project;
  });
}

/** `PATCH /projects/{id}`: name, description, and a partial settings object merged into the current one. */
export async function updateProject(ctx: Ctx, projectId: string, patch: ProjectPatch): Promise<Project> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    requireWritable(project);
    const settings = mergeSettings(project.settings, patch.settings);
    if (patch.settings?.defaultEnvironment !== undefined) {
      checkDefaultEnvironment(
        settings,
        (await ctx.stores.projects.environments(projectId)).map((e) => e.name),
      );
    }
    const next: Project = {
      ...project,
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      settings,
      updatedAt: ctx.now(),
    };
    await ctx.stores.projects.update(next);
    await ctx.emit(
      'project.updated',
      { type: 'project', id: projectId },
      { fields: Object.keys(patch), ...(patch.settings && { settings: Object.keys(patch.settings) }) },
    );
    return next;
  });
}

/**
 * Deletes a project with its environments and members (irreversible), takes it out of every API key's `projectIds`,
 * and revokes the keys left with none.
 */
export async function deleteProject(ctx: Ctx, projectId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const orgId = ctx.principal.orgId;
    const now = ctx.now();
    await ctx.stores.projects.remove(orgId, projectId);
    const revokedKeyIds = await ctx.stores.apiKeys.dropProject(orgId, projectId, now);
    for (const id of revokedKeyIds) {
      await ctx.emit('api_key.revoked', { type: 'api_key', id }, { reason: 'project_deleted', projectId });
    }
    await ctx.emit(
      'project.deleted',
      { type: 'project', id: projectId },
      { name: project.name, slug: project.slug, revokedKeyIds },
    );
  });
}

type Move = 'archive' | 'unarchive' | 'suspend' | 'resume';

/** The status moves (docs/api.md, "Decisions"): from which state, to which, and who may. */
const MOVES: Record<Move, { from: ProjectStatus; to: ProjectStatus; event: string; ownersOnly: boolean }> = {
  archive: { from: 'active', to: 'archived', event: 'project.archived', ownersOnly: false },
  unarchive: { from: 'archived', to: 'active', event: 'project.unarchived', ownersOnly: false },
  suspend: { from: 'active', to: 'suspended', event: 'project.suspended', ownersOnly: true },
  resume: { from: 'suspended', to: 'active', event: 'project.resumed', ownersOnly: true },
};

/**
 * Moves a project between `active`, `archived` and `suspended`. Like create and delete, this is the organization's
 * decision (organization-level `projects:write`); suspend and resume are for owners only. A move the current
 * state does not allow is `409`.
 */
export async function moveProject(ctx: Ctx, projectId: string, move: Move): Promise<Project> {
  const rule = MOVES[move];
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    if (rule.ownersOnly && ctx.principal.role !== 'owner') throw forbidden(`only owners can ${move} a project`);
    if (project.status !== rule.from) {
      throw conflict(`cannot ${move} a project that is ${project.status} (it must be ${rule.from})`);
    }
    const next: Project = { ...project, status: rule.to, updatedAt: ctx.now() };
    await ctx.stores.projects.update(next);
    await ctx.emit(rule.event, { type: 'project', id: projectId }, { from: rule.from, to: rule.to });
    return next;
  });
}
