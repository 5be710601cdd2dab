import { plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { environmentCreateSchema, environmentPatchSchema, environmentSchema, promoteSchema } from '../projects.js';
import { environmentParams, projectParams } from './params.js';

const tag = 'environments';
const WRITE_NOTE =
  "Organization owners and admins, or the project's admins and developers. Refused with 409 while the project is " +
  'archived or suspended.';

export const environments = {
  list: endpoint({
    method: 'GET',
    path: '/projects/{projectId}/environments',
    operationId: 'listEnvironments',
    summary: "List a project's environments (not paginated), in creation order",
    tag,
    access: 'resources:read',
    scope: 'project',
    params: projectParams,
    response: plainListSchema(environmentSchema),
  }),
  create: endpoint({
    method: 'POST',
    path: '/projects/{projectId}/environments',
    operationId: 'createEnvironment',
    summary:
      'Create an environment (a lower-case slug of at most 32 characters, not `promote`) with an optional config',
    description: 'A name the project already uses is 409. `config` holds at most 200 keys.',
    tag,
    access: 'resources:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: environmentCreateSchema,
    status: 201,
    location: { get: 'getEnvironment', from: { projectId: 'projectId', name: 'name' } },
    response: environmentSchema,
  }),
  promote: endpoint({
    method: 'POST',
    path: '/projects/{projectId}/environments/promote',
    operationId: 'promoteEnvironment',
    summary: "Replace the target environment's config with the source's, atomically; returns the target",
    description: '`source` equal to `target` is 422; an unknown name is 404.',
    tag,
    access: 'resources:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: promoteSchema,
    response: environmentSchema,
  }),
  get: endpoint({
    method: 'GET',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'getEnvironment',
    summary: 'Get an environment',
    tag,
    access: 'resources:read',
    scope: 'project',
    params: environmentParams,
    response: environmentSchema,
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'updateEnvironment',
    summary: "Merge into an environment's config: a string sets a key, null deletes it",
    description: 'At most 200 keys after the merge (422).',
    tag,
    access: 'resources:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: environmentParams,
    body: environmentPatchSchema,
    response: environmentSchema,
  }),
  delete: endpoint({
    method: 'DELETE',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'deleteEnvironment',
    summary: 'Delete an environment',
    description: "The project's default environment (`settings.defaultEnvironment`) cannot be deleted (409).",
    tag,
    access: 'resources:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: environmentParams,
    status: 204,
  }),
} as const;
