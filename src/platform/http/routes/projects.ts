import { projects } from '../../../contract/endpoints/projects.js';
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  moveProject,
  updateProject,
} from '../../operations/projects.js';
import { bind } from '../route.js';

export const projectsRoutes = bind(projects, {
  list: (ctx, { params, query }) => listProjects(ctx, params.orgId, query),
  create: (ctx, { params, body }) => createProject(ctx, params.orgId, body),
  get: (ctx, { params }) => getProject(ctx, params.projectId),
  update: (ctx, { params, body }) => updateProject(ctx, params.projectId, body),
  delete: (ctx, { params }) => deleteProject(ctx, params.projectId),
  archive: (ctx, { params }) => moveProject(ctx, params.projectId, 'archive'),
  unarchive: (ctx, { params }) => moveProject(ctx, params.projectId, 'unarchive'),
  suspend: (ctx, { params }) => moveProject(ctx, params.projectId, 'suspend'),
  resume: (ctx, { params }) => moveProject(ctx, params.projectId, 'resume'),
});
