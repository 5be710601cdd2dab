import { environments } from '../../../contract/endpoints/environments.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironment,
  listEnvironments,
  promoteEnvironment,
  updateEnvironment,
} from '../../operations/environments.js';
import { bind } from '../route.js';

export const environmentsRoutes = bind(environments, {
  list: (ctx, { params }) => listEnvironments(ctx, params.projectId),
  create: (ctx, { params, body }) => createEnvironment(ctx, params.projectId, body),
  promote: (ctx, { params, body }) => promoteEnvironment(ctx, params.projectId, body),
  get: (ctx, { params }) => getEnvironment(ctx, params.projectId, params.name),
  update: (ctx, { params, body }) => updateEnvironment(ctx, params.projectId, params.name, body),
  delete: (ctx, { params }) => deleteEnvironment(ctx, params.projectId, params.name),
});
