import { plainListSchema } from '../../../contract/common.js';
import {
  organizationCreateSchema,
  organizationPatchSchema,
  organizationSchema,
} from '../../../contract/organizations.js';
import {
  createOrganization,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from '../../operations/organizations.js';
import { type RouteDef, route } from '../route.js';
import { orgParams } from './params.js';

const tag = 'organizations';

export const organizationRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/organizations',
    operationId: 'listOrganizations',
    summary: 'List the organizations this credential can act in',
    tag,
    access: 'org:read',
    response: plainListSchema(organizationSchema),
    handler: (ctx) => listOrganizations(ctx),
  }),
  route({
    method: 'POST',
    path: '/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization (on the free plan) with the caller as owner',
    tag,
    access: 'authenticated',
    accessNote: 'Needs a credential that can act in several organizations (a user token or a multi-organization key).',
    body: organizationCreateSchema,
    status: 201,
    response: organizationSchema,
    handler: (ctx, { body }) => createOrganization(ctx, body),
    location: (org) => `/organizations/${org.id}`,
  }),
  route({
    method: 'GET',
    path: '/organizations/{orgId}',
    operationId: 'getOrganization',
    summary: 'Get an organization',
    tag,
    access: 'org:read',
    params: orgParams,
    response: organizationSchema,
    handler: (ctx, { params }) => getOrganization(ctx, params.orgId),
  }),
  route({
    method: 'PATCH',
    path: '/organizations/{orgId}',
    operationId: 'updateOrganization',
    summary: 'Rename an organization or change its plan',
    tag,
    access: 'org:write',
    accessNote: 'Changing `plan` is for owners only.',
    params: orgParams,
    body: organizationPatchSchema,
    response: organizationSchema,
    handler: (ctx, { params, body }) => updateOrganization(ctx, params.orgId, body),
  }),
];
