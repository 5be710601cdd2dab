import { plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { organizationCreateSchema, organizationPatchSchema, organizationSchema } from '../organizations.js';
import { orgParams } from './params.js';

const tag = 'organizations';

export const organizations = {
  list: endpoint({
    method: 'GET',
    path: '/organizations',
    operationId: 'listOrganizations',
    summary: 'List the organizations this credential can act in',
    tag,
    access: 'org:read',
    response: plainListSchema(organizationSchema),
  }),
  create: endpoint({
    method: 'POST',
    path: '/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization (on the free plan) with the caller as owner',
    tag,
    access: 'org:write',
    scope: 'credential',
    accessNote:
      'Needs a credential that can act in several organizations (a user token or a multi-organization key); ' +
      'the permission is checked on the credential, not on the role in the acting organization.',
    body: organizationCreateSchema,
    status: 201,
    location: { get: 'getOrganization' },
    response: organizationSchema,
  }),
  get: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}',
    operationId: 'getOrganization',
    summary: 'Get an organization',
    tag,
    access: 'org:read',
    params: orgParams,
    response: organizationSchema,
  }),
  update: endpoint({
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
  }),
} as const;
