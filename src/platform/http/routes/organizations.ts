import { organizations } from '../../../contract/endpoints/organizations.js';
import {
  createOrganization,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from '../../operations/organizations.js';
import { bind } from '../route.js';

export const organizationRoutes = bind(organizations, {
  list: (ctx) => listOrganizations(ctx),
  create: (ctx, { body }) => createOrganization(ctx, body),
  get: (ctx, { params }) => getOrganization(ctx, params.orgId),
  update: (ctx, { params, body }) => updateOrganization(ctx, params.orgId, body),
});
