import { listSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { projectCreateSchema, projectListQuerySchema, projectPatchSchema, projectSchema } from '../projects.js';
import { orgParams, projectParams } from './params.js';

const tag = 'projects';
const READ_ONLY = 'Refused with 409 while the project is archived or suspended.';

/** `POST /projects/{id}/<move>`: one endpoint per status move. */
function move<const M extends 'archive' | 'unarchive' | 'suspend' | 'resume'>(
  to: M,
  operationId: string,
  summary: string,
  accessNote: string,
) {
  return endpoint({
    method: 'POST',
    path: `/projects/{projectId}/${to}`,
    operationId,
    summary,
    tag,
    access: 'projects:write',
    accessNote,
    params: projectParams,
    response: projectSchema,
  });
}

export const projects = {
  list: endpoint({
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
  }),
  create: endpoint({
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
    location: { get: 'getProject' },
    response: projectSchema,
  }),
  get: endpoint({
    method: 'GET',
    path: '/projects/{projectId}',
    operationId: 'getProject',
    summary: 'Get a project',
    tag,
    access: 'projects:read',
    scope: 'project',
    params: projectParams,
    response: projectSchema,
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/projects/{projectId}',
    operationId: 'updateProject',
    summary: 'Update a project: name, description, settings (merged)',
    description: '`settings.defaultEnvironment` must name an environment of the project (422).',
    tag,
    access: 'projects:write',
    scope: 'project',
    accessNote: `Organization owners and admins, or the project's admins. ${READ_ONLY}`,
    params: projectParams,
    body: projectPatchSchema,
    response: projectSchema,
  }),
  delete: endpoint({
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
  }),
  archive: move(
    'archive',
    'archiveProject',
    'Archive an active project (read-only until unarchived)',
    'Organization-level permission (owners and admins). 409 unless the project is active.',
  ),
  unarchive: move(
    'unarchive',
    'unarchiveProject',
    'Return an archived project to active',
    'Organization-level permission (owners and admins). 409 unless the project is archived.',
  ),
  suspend: move(
    'suspend',
    'suspendProject',
    'Suspend an active project (read-only until resumed)',
    'Owners only. 409 unless the project is active.',
  ),
  resume: move(
    'resume',
    'resumeProject',
    'Return a suspended project to active',
    'Owners only. 409 unless the project is suspended.',
  ),
} as const;
