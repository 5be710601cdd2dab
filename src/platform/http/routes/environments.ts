import * as z from 'zod';
import { idParam, lazySchema, plainListSchema } from '../../../contract/common.js';
import {
  environmentCreateSchema,
  environmentNameSchema,
  environmentPatchSchema,
  environmentSchema,
  promoteSchema,
} from '../../../contract/projects.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironment,
  listEnvironments,
  promoteEnvironment,
  updateEnvironment,
} from '../../operations/environments.js';
import { type RouteDef, route } from '../route.js';
import { projectParams } from './params.js';

const tag = 'environments';
/** A malformed environment name names nothing: `404`, like an unknown one. */
const environmentParams = lazySchema(() => z.strictObject({ projectId: idParam('proj'), name: environmentNameSchema }));
const WRITE_NOTE =
  "Organization owners and admins, or the project's admins and developers. Refused with 409 while the project is " +
  'archived or suspended.';

export const environmentsRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/projects/{projectId}/environments',
    operationId: 'listEnvironments',
    summary: "List a project's environments (not paginated), in creation order",
    tag,
    access: 'resources:read',
    params: projectParams,
    response: plainListSchema(environmentSchema),
    handler: (ctx, { params }) => listEnvironments(ctx, params.projectId),
  }),
  route({
    method: 'POST',
    path: '/projects/{projectId}/environments',
    operationId: 'createEnvironment',
    summary: 'Create an environment (a lower-case slug of at most 32 characters) with an optional config',
    description: 'A name the project already uses is 409. `config` holds at most 200 keys.',
    tag,
    access: 'resources:write',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: environmentCreateSchema,
    status: 201,
    response: environmentSchema,
    handler: (ctx, { params, body }) => createEnvironment(ctx, params.projectId, body),
    location: (e) => `/projects/${e.projectId}/environments/${e.name}`,
  }),
  route({
    method: 'POST',
    path: '/projects/{projectId}/environments/promote',
    operationId: 'promoteEnvironment',
    summary: "Replace the target environment's config with the source's, atomically; returns the target",
    description: '`source` equal to `target` is 422; an unknown name is 404.',
    tag,
    access: 'resources:write',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: promoteSchema,
    response: environmentSchema,
    handler: (ctx, { params, body }) => promoteEnvironment(ctx, params.projectId, body),
  }),
  route({
    method: 'GET',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'getEnvironment',
    summary: 'Get an environment',
    tag,
    access: 'resources:read',
    params: environmentParams,
    response: environmentSchema,
    handler: (ctx, { params }) => getEnvironment(ctx, params.projectId, params.name),
  }),
  route({
    method: 'PATCH',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'updateEnvironment',
    summary: "Merge into an environment's config: a string sets a key, null deletes it",
    description: 'At most 200 keys after the merge (422).',
    tag,
    access: 'resources:write',
    accessNote: WRITE_NOTE,
    params: environmentParams,
    body: environmentPatchSchema,
    response: environmentSchema,
    handler: (ctx, { params, body }) => updateEnvironment(ctx, params.projectId, params.name, body),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{projectId}/environments/{name}',
    operationId: 'deleteEnvironment',
    summary: 'Delete an environment',
    description: "The project's default environment (`settings.defaultEnvironment`) cannot be deleted (409).",
    tag,
    access: 'resources:write',
    accessNote: WRITE_NOTE,
    params: environmentParams,
    status: 204,
    handler: (ctx, { params }) => deleteEnvironment(ctx, params.projectId, params.name),
  }),
];
