import { listSchema } from '../../../contract/common.js';
import {
  projectCreateSchema,
  projectListQuerySchema,
  projectPatchSchema,
  projectSchema,
} from '../../../contract/projects.js';
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  moveProject,
  updateProject,
} from '../../operations/projects.js';
import { type RouteDef, route } from '../route.js';
import { orgParams, projectParams } from './params.js';

const tag = 'projects';
const READ_ONLY = 'Refused with 409 while the project is archived or suspended.';

/** `POST /projects/{id}/<move>`: one route per status move. */
function moveRoute(
  move: 'archive' | 'unarchive' | 'suspend' | 'resume',
  operationId: string,
  summary: string,
  accessNote: string,
) {
  return route({
    method: 'POST',
    path: `/projects/{projectId}/${move}`,
    operationId,
    summary,
    tag,
    access: 'projects:write',
    accessNote,
    params: projectParams,
    response: projectSchema,
    handler: (ctx, { params }) => moveProject(ctx, params.projectId, move),
  });
}

export const projectsRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/organizations/{orgId}/projects',
    operationId: 'listProjects',
    summary: 'List the projects of an organization',
    description:
      'Newest first. Filters `status`, `search` (case-insensitive substring of name or description) and `slug` ' +
      '(exact). Offset paging with `page`/`per_page`, or cursor paging with `limit`/`cursor`.',
    tag,
    access: 'projects:read',
    accessNote: 'An API key restricted to projects lists only those.',
    params: orgParams,
    query: projectListQuerySchema,
    response: listSchema(projectSchema),
    handler: (ctx, { params, query }) => listProjects(ctx, params.orgId, query),
  }),
  route({
    method: 'POST',
    path: '/organizations/{orgId}/projects',
    operationId: 'createProject',
    summary: 'Create a project, with the environments development, staging and production',
    description:
      'The slug is derived from the name (lower-case, accents folded, other characters as `-`, at most 48 ' +
      'characters, `-2`, `-3`… when taken) and never changes. `settings` default to `defaultEnvironment: ' +
      '"development"`, `autoScaling: false`, `notificationsEnabled: true`.',
    tag,
    access: 'projects:write',
    accessNote: 'Organization-level permission (owners and admins). Not with an API key restricted to projects.',
    params: orgParams,
    body: projectCreateSchema,
    status: 201,
    response: projectSchema,
    handler: (ctx, { params, body }) => createProject(ctx, params.orgId, body),
    location: (p) => `/projects/${p.id}`,
  }),
  route({
    method: 'GET',
    path: '/projects/{projectId}',
    operationId: 'getProject',
    summary: 'Get a project',
    tag,
    access: 'projects:read',
    params: projectParams,
    response: projectSchema,
    handler: (ctx, { params }) => getProject(ctx, params.projectId),
  }),
  route({
    method: 'PATCH',
    path: '/projects/{projectId}',
    operationId: 'updateProject',
    summary: 'Update a project: name, description, settings (merged)',
    description: '`settings.defaultEnvironment` must name an environment of the project (422).',
    tag,
    access: 'projects:write',
    accessNote: `Organization owners and admins, or the project's admins. ${READ_ONLY}`,
    params: projectParams,
    body: projectPatchSchema,
    response: projectSchema,
    handler: (ctx, { params, body }) => updateProject(ctx, params.projectId, body),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{projectId}',
    operationId: 'deleteProject',
    summary: 'Delete a project with its environments and members (irreversible)',
    description:
      "The project leaves every API key's `projectIds`; a key left with none is revoked. Works in any status.",
    tag,
    access: 'projects:write',
    accessNote: 'Organization-level permission (owners and admins).',
    params: projectParams,
    status: 204,
    handler: (ctx, { params }) => deleteProject(ctx, params.projectId),
  }),
  moveRoute(
    'archive',
    'archiveProject',
    'Archive an active project (read-only until unarchived)',
    'Organization-level permission (owners and admins). 409 unless the project is active.',
  ),
  moveRoute(
    'unarchive',
    'unarchiveProject',
    'Return an archived project to active',
    'Organization-level permission (owners and admins). 409 unless the project is archived.',
  ),
  moveRoute(
    'suspend',
    'suspendProject',
    'Suspend an active project (read-only until resumed)',
    'Owners only. 409 unless the project is active.',
  ),
  moveRoute(
    'resume',
    'resumeProject',
    'Return a suspended project to active',
    'Owners only. 409 unless the project is suspended.',
  ),
];
