import { plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { createdScimTokenSchema, scimStatusSchema, scimTokenCreateSchema, scimTokenSchema } from '../scim.js';
import { orgParams, scimTokenParams } from './params.js';

const tag = 'scim';

export const scim = {
  status: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/scim',
    operationId: 'getScimStatus',
    summary: "Where the organization's directory sync stands: its base URL, tokens, requests, the last failure",
    tag,
    access: 'sso:read',
    params: orgParams,
    response: scimStatusSchema,
  }),
  listTokens: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/scim/tokens',
    operationId: 'listScimTokens',
    summary: "List the organization's SCIM tokens, oldest first (never their secrets)",
    tag,
    access: 'sso:read',
    params: orgParams,
    response: plainListSchema(scimTokenSchema),
  }),
  createToken: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/scim/tokens',
    operationId: 'createScimToken',
    summary: 'Create a SCIM bearer token for an identity provider; the secret `token` is in this response only',
    description:
      "The token works on this organization's SCIM endpoints (`/v2/organizations/{orgId}/scim/…`) and nowhere else. " +
      'At most 10 at once (`409`).',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: orgParams,
    body: scimTokenCreateSchema,
    status: 201,
    location: { get: 'getScimToken', from: { orgId: 'organizationId', tokenId: 'id' } },
    response: createdScimTokenSchema,
    secret: true,
  }),
  getToken: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/scim/tokens/{tokenId}',
    operationId: 'getScimToken',
    summary: 'Get a SCIM token (never its secret)',
    tag,
    access: 'sso:read',
    params: scimTokenParams,
    response: scimTokenSchema,
  }),
  deleteToken: endpoint({
    method: 'DELETE',
    path: '/organizations/{orgId}/scim/tokens/{tokenId}',
    operationId: 'deleteScimToken',
    summary: 'Revoke a SCIM token: it stops working at once',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: scimTokenParams,
    status: 204,
  }),
} as const;
